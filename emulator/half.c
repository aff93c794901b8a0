/*
 * f16, bf16 and tf32 arithmetic with PTX's semantics (what half.h promises).
 *
 * Every f16 and bf16 value is exactly a double, and so is the product of two
 * of them (at most 22 significant bits, exponents far inside double's
 * range). A sum is not always exact in double (the exponents of a bf16 sum
 * may be 250 apart), so sums are rounded to odd: the two-sum algorithm gives
 * the rounding error, and an inexact sum becomes the neighbouring double
 * whose last bit is odd. A value rounded to odd with 53 bits rounds
 * correctly once more into any format of at most 51 bits (Boldo and
 * Melquiond, "Emulation of FMA and correctly rounded sums: proved
 * algorithms using rounding to odd", IEEE TC 2008), so add, sub, mul and
 * fma round exactly once. The final rounding is arith.c's, by hand.
 *
 * Values are decoded by their bits and the float work runs inside an
 * fp_scope (fp_env.h): nothing depends on the caller's MXCSR.
 */
#include "half.h"
#include "fp_env.h"

#include <math.h>
#include <string.h>

#define HALF_SIGN         0x8000u
#define F64_EXPONENT_BIAS 1023
#define F64_FRACTION_BITS 52
#define F64_CANONICAL_NAN UINT64_C(0x7fffffffffffffff)
#define F64_INFINITY      UINT64_C(0x7ff0000000000000)
#define TF32_DROPPED_BITS 13 /* of an f32's 23 fraction bits, tf32 keeps 10 */
#define TF32_MAX          0x7f7fe000u
#define F32_INFINITY      0x7f800000u
#define F32_SIGN          0x80000000u

/* Where the fields of a 16-bit format lie. */
struct half_layout {
    unsigned fraction_bits;
    int bias;
    uint16_t exponent_mask;
    uint16_t one;
    uint16_t largest; /* the largest finite magnitude */
};

static const struct half_layout layouts[] = {
    [HALF_F16] = {10, 15, 0x7c00, 0x3c00, 0x7bff},
    [HALF_BF16] = {7, 127, 0x7f80, 0x3f80, 0x7f7f},
};

static double f64_of_bits(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static uint64_t f64_bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

bool half_is_nan(enum half_format f, uint16_t h)
{
    return (h & ~HALF_SIGN) > layouts[f].exponent_mask;
}

uint16_t half_one(enum half_format f)
{
    return layouts[f].one;
}

uint16_t half_flush(enum half_format f, uint16_t h)
{
    return (h & layouts[f].exponent_mask) == 0 ? h & HALF_SIGN : h;
}

/* By the bits: a subnormal fraction·2^(1 − bias − fraction_bits) is a
 * normal double whose leading one is bit `lead` of the fraction. */
double half_value(enum half_format f, uint16_t h)
{
    const struct half_layout *L = &layouts[f];
    uint64_t sign = (uint64_t)(h & HALF_SIGN) << 48;
    unsigned exponent = (unsigned)(h & L->exponent_mask) >> L->fraction_bits;
    unsigned exponent_max = (unsigned)L->exponent_mask >> L->fraction_bits;
    uint64_t fraction = h & ((1u << L->fraction_bits) - 1);
    if (exponent == exponent_max)
        return f64_of_bits(fraction != 0 ? F64_CANONICAL_NAN : sign | F64_INFINITY);
    if (exponent != 0)
        return f64_of_bits(
            sign | (uint64_t)((int)exponent - L->bias + F64_EXPONENT_BIAS) << F64_FRACTION_BITS |
            fraction << (F64_FRACTION_BITS - L->fraction_bits));
    if (fraction == 0)
        return f64_of_bits(sign);
    int lead = 63 - __builtin_clzll(fraction);
    int scale = lead + 1 - L->bias - (int)L->fraction_bits;
    uint64_t significand = (fraction << (F64_FRACTION_BITS - lead)) & ((UINT64_C(1) << 52) - 1);
    return f64_of_bits(sign | (uint64_t)(scale + F64_EXPONENT_BIAS) << F64_FRACTION_BITS |
                       significand);
}

/* An input with .ftz applied. */
static double input_value(enum half_format f, uint16_t h, unsigned modifiers)
{
    return half_value(f, modifiers & HALF_FTZ ? half_flush(f, h) : h);
}

uint16_t half_round(enum half_format f, double x, enum arith_rounding r, unsigned modifiers)
{
    const struct half_layout *L = &layouts[f];
    if (isnan(x))
        return modifiers & HALF_SAT ? 0 : HALF_CANONICAL_NAN;
    if (modifiers & HALF_SAT)
        x = x > 0 ? (x < 1 ? x : 1.0) : 0.0;
    if ((modifiers & HALF_RELU) && x < 0)
        x = 0.0;
    uint16_t h = f == HALF_F16 ? arith_f64_to_f16(x, r) : arith_f64_to_bf16(x, r);
    if ((modifiers & HALF_SATFINITE) && (h & ~HALF_SIGN) == L->exponent_mask)
        h = (h & HALF_SIGN) | L->largest;
    return modifiers & HALF_FTZ ? half_flush(f, h) : h;
}

uint16_t half_from_f32(enum half_format f, uint32_t f32_bits, enum arith_rounding r,
                       unsigned modifiers)
{
    struct fp_scope s = fp_scope_enter(ARITH_RN);
    float x;
    memcpy(&x, &f32_bits, sizeof x);
    uint16_t h = half_round(f, fp_pin_f64((double)fp_pin_f32(x)), r, modifiers);
    fp_scope_leave(s);
    return h;
}

/* a + b rounded to odd (a and b doubles, inside an fp_scope): the exact sum
 * when it is a double, else the neighbour of the nearest double toward the
 * exact sum whose last bit is odd. Two-sum (Knuth) gives the error e of the
 * nearest sum s, and the exact sum lies strictly between s and its
 * neighbour on e's side. */
static double sum_to_odd(double a, double b)
{
    double s = fp_pin_f64(fp_pin_f64(a) + fp_pin_f64(b));
    if (!isfinite(s))
        return s;
    double b_part = fp_pin_f64(s - a);
    double e = fp_pin_f64((a - (s - b_part)) + (b - b_part));
    if (e == 0 || (f64_bits(s) & 1) != 0)
        return s;
    return nextafter(s, e > 0 ? INFINITY : -INFINITY);
}

/* What a binary operation computes, before its rounding. */
enum half_binary { HALF_ADD, HALF_SUB, HALF_MUL };

static uint16_t binary(enum half_format f, enum half_binary op, uint16_t a, uint16_t b,
                       unsigned modifiers)
{
    struct fp_scope s = fp_scope_enter(ARITH_RN);
    double x = input_value(f, a, modifiers), y = input_value(f, b, modifiers);
    double exact = op == HALF_MUL ? fp_pin_f64(x * y) : sum_to_odd(x, op == HALF_SUB ? -y : y);
    uint16_t h = half_round(f, exact, ARITH_RN, modifiers);
    fp_scope_leave(s);
    return h;
}

uint16_t half_add(enum half_format f, uint16_t a, uint16_t b, unsigned modifiers)
{
    return binary(f, HALF_ADD, a, b, modifiers);
}

uint16_t half_sub(enum half_format f, uint16_t a, uint16_t b, unsigned modifiers)
{
    return binary(f, HALF_SUB, a, b, modifiers);
}

uint16_t half_mul(enum half_format f, uint16_t a, uint16_t b, unsigned modifiers)
{
    return binary(f, HALF_MUL, a, b, modifiers);
}

uint16_t half_fma(enum half_format f, uint16_t a, uint16_t b, uint16_t c, unsigned modifiers)
{
    struct fp_scope s = fp_scope_enter(ARITH_RN);
    double product = fp_pin_f64(input_value(f, a, modifiers) * input_value(f, b, modifiers));
    double exact = sum_to_odd(product, input_value(f, c, modifiers));
    uint16_t h = half_round(f, exact, ARITH_RN, modifiers);
    fp_scope_leave(s);
    return h;
}

/* A total order of the non-NaN values by their bits, −0 just below +0. */
static int32_t order_key(uint16_t h)
{
    return h & HALF_SIGN ? -(int32_t)(h & ~HALF_SIGN) - 1 : (int32_t)h;
}

static uint16_t min_or_max(enum half_format f, uint16_t a, uint16_t b, unsigned modifiers,
                           bool want_min)
{
    if (modifiers & HALF_FTZ)
        a = half_flush(f, a), b = half_flush(f, b);
    bool a_nan = half_is_nan(f, a), b_nan = half_is_nan(f, b);
    if ((a_nan && b_nan) || ((modifiers & HALF_NAN) && (a_nan || b_nan)))
        return HALF_CANONICAL_NAN;
    uint16_t sign = (a ^ b) & HALF_SIGN;
    if (modifiers & HALF_XORSIGN_ABS)
        a &= ~HALF_SIGN, b &= ~HALF_SIGN;
    uint16_t r = a_nan ? b : b_nan ? a : (order_key(a) < order_key(b)) == want_min ? a : b;
    return modifiers & HALF_XORSIGN_ABS ? r | sign : r;
}

uint16_t half_min(enum half_format f, uint16_t a, uint16_t b, unsigned modifiers)
{
    return min_or_max(f, a, b, modifiers, true);
}

uint16_t half_max(enum half_format f, uint16_t a, uint16_t b, unsigned modifiers)
{
    return min_or_max(f, a, b, modifiers, false);
}

uint16_t half_neg(enum half_format f, uint16_t a, unsigned modifiers)
{
    return (modifiers & HALF_FTZ ? half_flush(f, a) : a) ^ HALF_SIGN;
}

uint16_t half_abs(enum half_format f, uint16_t a, unsigned modifiers)
{
    return (modifiers & HALF_FTZ ? half_flush(f, a) : a) & ~HALF_SIGN;
}

/* function(a) in double, rounded once: within any .approx bound. */
static uint16_t rounded_function(enum half_format f, double (*function)(double), uint16_t a,
                                 unsigned modifiers)
{
    struct fp_scope s = fp_scope_enter(ARITH_RN);
    double y = fp_pin_f64(function(fp_pin_f64(input_value(f, a, modifiers))));
    uint16_t h = half_round(f, y, ARITH_RN, modifiers);
    fp_scope_leave(s);
    return h;
}

uint16_t half_ex2_approx(enum half_format f, uint16_t a, unsigned modifiers)
{
    return rounded_function(f, exp2, a, modifiers);
}

uint16_t half_tanh_approx(enum half_format f, uint16_t a)
{
    return rounded_function(f, tanh, a, 0);
}

/* ----------------------------------------------------------------- tf32 */

/* Whether dropping `rest` (the low 13 bits) rounds the kept bits away from
 * zero; `odd` says the kept part's last bit is 1. */
static bool tf32_rounds_away(uint32_t rest, bool odd, bool negative, enum arith_rounding r)
{
    const uint32_t half = 1u << (TF32_DROPPED_BITS - 1);
    switch (r) {
    case ARITH_RN:
        return rest > half || (rest == half && odd);
    case ARITH_RNA:
        return rest >= half;
    case ARITH_RM:
        return rest != 0 && negative;
    case ARITH_RP:
        return rest != 0 && !negative;
    default:
        return false;
    }
}

/* By the bits: the magnitude's low 13 bits are dropped and the rest rounded
 * up when the mode says so, which carries into the exponent as the
 * encoding intends (up to infinity). Subnormals round the same way. */
uint32_t half_f32_to_tf32(uint32_t f32_bits, enum arith_rounding r, unsigned modifiers)
{
    uint32_t sign = f32_bits & F32_SIGN, magnitude = f32_bits & ~F32_SIGN;
    if (magnitude > F32_INFINITY)
        return TF32_CANONICAL_NAN;
    if ((modifiers & HALF_RELU) && sign && magnitude != 0)
        return 0;
    const uint32_t unit = 1u << TF32_DROPPED_BITS;
    uint32_t kept = magnitude & ~(unit - 1);
    if (magnitude != F32_INFINITY &&
        tf32_rounds_away(magnitude & (unit - 1), (kept & unit) != 0, sign != 0, r))
        kept += unit;
    if ((modifiers & HALF_SATFINITE) && kept >= F32_INFINITY)
        kept = TF32_MAX;
    return sign | kept;
}

uint32_t half_tf32_operand(uint32_t bits)
{
    if ((bits & ~F32_SIGN) > F32_INFINITY)
        return TF32_CANONICAL_NAN;
    return bits & ~((1u << TF32_DROPPED_BITS) - 1);
}
