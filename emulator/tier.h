/*
 * Internal to emulator/: which tier runs a launch (tier.c), and the compare
 * mode that runs it on both and checks they agree (tier_compare.c).
 *
 * The interpreter is the oracle: the compiled tier must give the same
 * results, faults, counters, modeled times and printf output, bit for bit.
 * KGEMU_TIER=compare makes every launch prove it, and aborts the process
 * with what differs when it does not.
 */
#ifndef KGRADE_EMULATOR_TIER_H
#define KGRADE_EMULATOR_TIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu.h"

enum emu_tier {
    EMU_TIER_JIT,     /* the compiled tier, interpreting what it does not cover */
    EMU_TIER_INTERP,  /* the interpreter alone */
    EMU_TIER_COMPARE, /* both, compared (tests) */
};

/* KGEMU_TIER (jit, interp or compare), read once; unset or empty is the
 * default, anything else is said once on stderr and is the default too. */
enum emu_tier emu_tier(void);
/* What emu_tier makes of a value of KGEMU_TIER (NULL: unset). */
enum emu_tier emu_tier_parse(const char *value);

/* Runs the launch in the interpreter, then from the same device memory and
 * heap in the compiled tier, both on one host thread, and compares all
 * they did; aborts the process naming the kernel and the first difference.
 * The result, the memory and the printf output (written once) are then
 * the launch's, as emu_launch_run promises. */
CUresult tier_compare_run(const struct emu_launch *cfg, struct emu_launch_result *result);

/* The parts of the comparison, for the unit tests. Each returns true when
 * the two agree; otherwise `what` says the first difference. */

/* The fault (every field), the counters (every field; doubles as bits) and
 * the warp instructions. The result's elapsed_ms is not compared: it is
 * counters.modeled_ms, or the host's time when KGEMU_TIMING=off. */
bool tier_results_agree(const struct emu_launch_result *interp,
                        const struct emu_launch_result *compiled, char *what, size_t size);

/* tier_image.c: a sparse copy of every allocation's bytes and of the heap's
 * bookkeeping. */
struct tier_image_allocation;

struct tier_image {
    struct tier_image_allocation *allocations; /* by base address */
    size_t count;
    struct emu_heap_snapshot *heap; /* NULL: the launch has no heap */
};

/* false when out of memory (the image is then empty). */
bool tier_image_take(struct tier_image *image, struct emu_memory *memory, struct emu_heap *heap);
/* Writes the image back; false when an allocation or the heap is gone. */
bool tier_image_put(const struct tier_image *image, struct emu_memory *memory,
                    struct emu_heap *heap);
/* The live memory and heap (the compiled tier's) against the image (the
 * interpreter's). */
bool tier_image_agrees(const struct tier_image *image, struct emu_memory *memory,
                       struct emu_heap *heap, char *what, size_t size);
void tier_image_free(struct tier_image *image);

#endif
