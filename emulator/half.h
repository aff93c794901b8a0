/*
 * Internal to emulator/: PTX's narrow floating-point formats with the exact
 * semantics of its half-precision instructions: IEEE binary16 (.f16) and
 * bfloat16 (.bf16), element by element (the packed .f16x2 and .bf16x2 are
 * two of them, the first in the low 16 bits), and TensorFloat-32 (.tf32).
 *
 * A 16-bit value is held as its bits. add, sub, mul and fma round once, to
 * nearest even (the only mode PTX gives them), with subnormals; .ftz,
 * .sat and .relu apply where the ISA allows them. NaN results are the
 * canonical 0x7fff of both formats, as a GPU writes them. min and max follow
 * PTX's NaN rules (with .NaN and .xorsign.abs), ex2.approx and tanh.approx
 * are the exactly rounded results, within every bound the ISA gives. Every
 * function is pure, thread-safe and independent of the host's
 * floating-point environment.
 */
#ifndef KGRADE_EMULATOR_HALF_H
#define KGRADE_EMULATOR_HALF_H

#include <stdbool.h>
#include <stdint.h>

#include "arith.h"

enum half_format { HALF_F16, HALF_BF16 };

static inline enum half_format half_format_of(enum ptx_type t)
{
    return t == PTX_BF16 || t == PTX_BF16X2 ? HALF_BF16 : HALF_F16;
}

#define HALF_CANONICAL_NAN 0x7fffu
#define TF32_CANONICAL_NAN 0x7fffffffu /* a .tf32 is held in an f32's bits */

/* The modifiers of a half-precision instruction, as a mask. */
enum half_modifier {
    HALF_FTZ = 1u << 0,         /* subnormal inputs and results become zeros of their sign */
    HALF_SAT = 1u << 1,         /* the result clamped to [+0, 1]; NaN gives +0 */
    HALF_RELU = 1u << 2,        /* a negative result gives +0; NaN the canonical NaN */
    HALF_NAN = 1u << 3,         /* min/max .NaN: a NaN input gives the canonical NaN */
    HALF_XORSIGN_ABS = 1u << 4, /* min/max .xorsign.abs: of |a| and |b|, the sign a's ^ b's */
    HALF_SATFINITE = 1u << 5,   /* cvt: ±Inf and overflow give ± the largest finite value */
};

/* The exact value of h (NaN for every NaN). */
double half_value(enum half_format f, uint16_t h);

/* x rounded once into the format with mode r (arithmetic: to nearest
 * even), after SAT and RELU; SATFINITE replaces an infinite result, FTZ a
 * subnormal one. */
uint16_t half_round(enum half_format f, double x, enum arith_rounding r, unsigned modifiers);

/* cvt from f32 (its bits): half_round of its value. */
uint16_t half_from_f32(enum half_format f, uint32_t f32_bits, enum arith_rounding r,
                       unsigned modifiers);

/* h, or a zero of its sign when it is subnormal (.ftz of an input). */
uint16_t half_flush(enum half_format f, uint16_t h);

bool half_is_nan(enum half_format f, uint16_t h);

/* 1.0 in the format: what set writes for true. */
uint16_t half_one(enum half_format f);

/* add sub mul fma (a * b + c, rounded once) with FTZ, SAT, RELU (fma). */
uint16_t half_add(enum half_format f, uint16_t a, uint16_t b, unsigned modifiers);
uint16_t half_sub(enum half_format f, uint16_t a, uint16_t b, unsigned modifiers);
uint16_t half_mul(enum half_format f, uint16_t a, uint16_t b, unsigned modifiers);
uint16_t half_fma(enum half_format f, uint16_t a, uint16_t b, uint16_t c, unsigned modifiers);

/* min/max: one NaN input gives the other input, two the canonical NaN;
 * −0 is below +0. With FTZ, NAN, XORSIGN_ABS. */
uint16_t half_min(enum half_format f, uint16_t a, uint16_t b, unsigned modifiers);
uint16_t half_max(enum half_format f, uint16_t a, uint16_t b, unsigned modifiers);

/* neg and abs change the sign bit only (after FTZ). */
uint16_t half_neg(enum half_format f, uint16_t a, unsigned modifiers);
uint16_t half_abs(enum half_format f, uint16_t a, unsigned modifiers);

/* ex2.approx (FTZ for bf16) and tanh.approx. */
uint16_t half_ex2_approx(enum half_format f, uint16_t a, unsigned modifiers);
uint16_t half_tanh_approx(enum half_format f, uint16_t a);

/* cvt.{rn,rz,rna}{.relu}{.satfinite}.tf32.f32: the f32 (bits) rounded to
 * .tf32's 10 fraction bits, held as an f32 whose low 13 bits are zero. */
uint32_t half_f32_to_tf32(uint32_t f32_bits, enum arith_rounding r, unsigned modifiers);

/* What a tensor core reads of a .tf32 operand (an f32's bits): its top 19
 * bits, the low 13 zero; a NaN is the canonical one. */
uint32_t half_tf32_operand(uint32_t bits);

#endif
