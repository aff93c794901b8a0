/*
 * Internal to emulator/: PTX arithmetic with PTX's exact semantics, where C's
 * default arithmetic is not enough.
 *
 * The interpreter does round-to-nearest f32/f64 add, sub and mul with plain C
 * (which is exact IEEE round-to-nearest-even on x86-64 SSE). Everything else
 * whose result PTX defines bit for bit comes here: the directed rounding
 * modes, fused multiply-add, division and square root in every mode, flushing
 * of subnormals, saturation, NaN rules of min and max, every conversion of
 * cvt, and the approximate functions (within the error bounds the PTX ISA
 * documents). Every function is pure and thread-safe, and returns the same
 * bits on every x86-64 host: results never depend on the host's current
 * floating-point environment. NaN results are canonical: f32 0x7fffffff
 * (what a GPU returns), and by the same pattern f64 0x7fffffffffffffff and
 * f16/bf16 0x7fff.
 */
#ifndef KGRADE_EMULATOR_ARITH_H
#define KGRADE_EMULATOR_ARITH_H

#include <stdbool.h>
#include <stdint.h>

#include "ptx_types.h"

/* PTX's rounding modifiers. For float results: .rn .rz .rm .rp. For
 * rounding a float to an integral value (cvt float→int, or .rni etc. on
 * float→float): .rni .rzi .rmi .rpi, which map to the same four. */
enum arith_rounding {
    ARITH_RN,  /* to nearest, ties to even */
    ARITH_RZ,  /* toward zero */
    ARITH_RM,  /* toward −∞ */
    ARITH_RP,  /* toward +∞ */
    ARITH_RNA, /* to nearest, ties away from zero (cvt.rna: to .tf32 only) */
};

/* ------------------------------------------------------------------ f32 */
float arith_add_f32(float a, float b, enum arith_rounding r);
float arith_sub_f32(float a, float b, enum arith_rounding r);
float arith_mul_f32(float a, float b, enum arith_rounding r);
float arith_fma_f32(float a, float b, float c, enum arith_rounding r); /* a*b+c, one rounding */
float arith_div_f32(float a, float b, enum arith_rounding r);          /* IEEE-exact div.rX */
float arith_sqrt_f32(float a, enum arith_rounding r);                  /* IEEE-exact sqrt.rX */
float arith_rcp_f32(float a, enum arith_rounding r);                   /* IEEE-exact rcp.rX */

/* .ftz: a subnormal input or output becomes a zero of the same sign. */
float arith_ftz_f32(float x);
/* .sat: clamps to [+0.0, 1.0]; −0.0 and NaN become +0.0. */
float arith_sat_f32(float x);

/* min/max (PTX): when one input is NaN the other is returned; both NaN give
 * the canonical NaN; −0.0 counts as less than +0.0. */
float arith_min_f32(float a, float b);
float arith_max_f32(float a, float b);

/* The .approx family, each within the maximum error the PTX ISA states for
 * it (the exact libm result is always acceptable), with PTX's special cases
 * (e.g. ex2(−Inf) = +0, lg2(0) = −Inf, rsqrt(−0) = −Inf, sin(±Inf) = NaN). */
float arith_ex2_approx_f32(float a);
/* ex2.approx.f32's own algorithm (not libm's, which differs between C
 * libraries and cannot be vectorized), written as vector code by the
 * compiled tier (jit_emit.c) so that both tiers agree bit for bit: x
 * clamped to [ARITH_EX2_LOW, ARITH_EX2_HIGH] in double; k its nearest
 * integer, (x + ARITH_EX2_ROUNDER) − ARITH_EX2_ROUNDER; the Taylor
 * polynomial of 2^r at r = x − k by Horner's rule, each step one double
 * multiply then one add (no fused multiply-add); times 2^k (k + 1023 in a
 * double's exponent field); rounded to float. A NaN gives the canonical
 * NaN. The relative error before the last rounding is below 3e-13, so the
 * result is the correctly rounded 2^x but for about one input in 10^5,
 * which is one ulp off: PTX allows 2. */
#define ARITH_EX2_DEGREE  10
#define ARITH_EX2_LOW     (-160.0)
#define ARITH_EX2_HIGH    130.0
#define ARITH_EX2_ROUNDER 0x1.8p52
extern const double arith_ex2_coefficients[ARITH_EX2_DEGREE + 1]; /* ln(2)^n / n! */
float arith_lg2_approx_f32(float a);
float arith_sin_approx_f32(float a);
float arith_cos_approx_f32(float a);
float arith_tanh_approx_f32(float a);
float arith_rcp_approx_f32(float a);
float arith_rsqrt_approx_f32(float a);
float arith_sqrt_approx_f32(float a);
/* div.approx.f32: a * (1/b), with PTX's rule that for 2^126 < |b| < 2^128 the
 * result is 0 (or the ftz variant's). div.full.f32: max 2 ulp. */
float arith_div_approx_f32(float a, float b);
float arith_div_full_f32(float a, float b);

/* ------------------------------------------------------------------ f64 */
double arith_add_f64(double a, double b, enum arith_rounding r);
double arith_sub_f64(double a, double b, enum arith_rounding r);
double arith_mul_f64(double a, double b, enum arith_rounding r);
double arith_fma_f64(double a, double b, double c, enum arith_rounding r);
double arith_div_f64(double a, double b, enum arith_rounding r);
double arith_sqrt_f64(double a, enum arith_rounding r);
double arith_rcp_f64(double a, enum arith_rounding r);
double arith_ftz_f64(double x); /* the .ftz of rsqrt.approx.ftz.f64 */
double arith_min_f64(double a, double b);
double arith_max_f64(double a, double b);
/* rcp.approx.ftz.f64 and rsqrt.approx.f64 (and .ftz): within PTX's bounds. */
double arith_rcp_approx_ftz_f64(double a);
double arith_rsqrt_approx_f64(double a);

/* ------------------------------------------------------------------- cvt */

/* cvt.{mode}{.ftz}{.sat}.{to}.{from}: converts the `from`-typed value held in
 * the low bits of `bits` and returns the `to`-typed result in the low bits
 * (signed results sign-extended to 64 bits, others zero-extended). Covers
 * every pair of u8..u64, s8..s64, f16, bf16, f32, f64:
 * - float → integer: rounds with `mode` (rni/rzi/rmi/rpi), saturates to the
 *   destination's range, NaN → 0;
 * - integer → float, and f64 → f32, f32/f64 → f16/bf16: rounds with `mode`;
 * - float → the same float type with has_mode: rounds to an integral value;
 *   (f16 ↔ bf16 is a rounding conversion, not this);
 * - float → wider float: exact;
 * - integer → integer: truncates or extends by the source's signedness;
 *   with `sat`, clamps to the destination's range instead;
 * - `sat` on a float destination clamps to [0, 1] (NaN → 0);
 * - `ftz` flushes f32 subnormal inputs and outputs to signed zero.
 * `has_mode` is false when the instruction names no rounding mode (the
 * conversions that need none); `mode` is then ignored, and float → integer
 * rounds toward zero. pred, b128 and the packed x2 types give 0. */
uint64_t arith_cvt(uint64_t bits, enum ptx_type to, enum ptx_type from, bool has_mode,
                   enum arith_rounding mode, bool sat, bool ftz);

/* testp.{op}.f32/f64: finite, infinite, number (not NaN), notanumber, normal, subnormal. */
enum arith_testp {
    ARITH_TESTP_FINITE,
    ARITH_TESTP_INFINITE,
    ARITH_TESTP_NUMBER,
    ARITH_TESTP_NOTANUMBER,
    ARITH_TESTP_NORMAL,
    ARITH_TESTP_SUBNORMAL
};
bool arith_testp_f32(float a, enum arith_testp op);
bool arith_testp_f64(double a, enum arith_testp op);

/* copysign.f32 a, b: the magnitude of b with the sign of a (PTX's operand order). */
float arith_copysign_f32(float sign_of, float magnitude_of);
double arith_copysign_f64(double sign_of, double magnitude_of);

/* f16 and bf16 to and from f32 (IEEE, round to nearest even). */
float arith_f16_to_f32(uint16_t h);
uint16_t arith_f32_to_f16(float f, enum arith_rounding r);
float arith_bf16_to_f32(uint16_t h);
uint16_t arith_f32_to_bf16(float f, enum arith_rounding r);
/* Any double rounded once into f16 or bf16 with mode r. */
uint16_t arith_f64_to_f16(double x, enum arith_rounding r);
uint16_t arith_f64_to_bf16(double x, enum arith_rounding r);

#endif
