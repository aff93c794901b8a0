/*
 * Internal to emulator/: the SIMD video instructions' arithmetic (vadd2 …
 * vset4, ptx.h), lane by lane as the PTX ISA's pseudocode says.
 */
#ifndef KGRADE_EMULATOR_VIDEO_H
#define KGRADE_EMULATOR_VIDEO_H

#include <stdint.h>

#include "ptx.h"

/* d of one thread's vop2/vop4/vset2/vset4 with sources a, b, c. */
uint32_t video_simd(const struct ptx_insn *insn, uint32_t a, uint32_t b, uint32_t c);

#endif
