/*
 * PTX arithmetic with PTX's exact semantics: directed rounding, fused
 * multiply-add, flushing, saturation, min/max NaN rules, every cvt, and the
 * .approx functions (what arith.h promises).
 *
 * Why it needs care: a C float operation rounds the way the calling thread's
 * SSE control register (MXCSR) says, and the program that loaded the virtual
 * GPU may have changed it (fesetround, feenableexcept, or -ffast-math's
 * start-up code, which sets flush-to-zero and denormals-are-zero). So every
 * function that computes with floats runs inside an fp_scope (fp_env.h),
 * which loads the MXCSR the operation needs only when the caller's differs:
 * one stmxcsr and a compare per call in the common case (round to nearest,
 * default environment); the directed modes cost two ldmxcsr. Under the right
 * mode the hardware's add, mul, div, sqrt and fma are exactly IEEE (one
 * rounding), so no result is emulated.
 *
 * cvt rounds by hand instead: every source value is held exactly (a double,
 * or an integer as sign and magnitude) and rounded once to the destination's
 * precision and exponent range (format_encode, integer_round). That keeps one
 * code path for the four modes and the four float formats, and cannot round
 * twice (f64 -> f32 -> f16 would).
 *
 * NaN results are canonical: 0x7fffffff for f32, as the GPU returns from any
 * single-precision operation with a NaN result, and the same pattern for the
 * other widths (f64 0x7fffffffffffffff, f16 and bf16 0x7fff).
 *
 * What is the same in f32 and f64 but for the type is written once and
 * defined for both widths: the bit views (DEFINE_BIT_VIEWS), add, sub, mul,
 * fma, div, sqrt and rcp (DEFINE_ROUNDED_OPERATIONS), ftz, min and max
 * (DEFINE_BIT_OPERATIONS).
 */
#include "arith.h"
#include "fp_env.h"

#include <math.h>
#include <string.h>

#define F32_SIGN          UINT32_C(0x80000000)
#define F32_EXPONENT      UINT32_C(0x7f800000)
#define F32_ONE           UINT32_C(0x3f800000)
#define F32_CANONICAL_NAN UINT32_C(0x7fffffff)
#define F64_SIGN          UINT64_C(0x8000000000000000)
#define F64_EXPONENT      UINT64_C(0x7ff0000000000000)
#define F64_CANONICAL_NAN UINT64_C(0x7fffffffffffffff)

/* ------------------------------------------------------------ bit views */

/* A total order on the non-NaN values of a sign and a magnitude's bits,
 * with −0.0 just below +0.0. Integer compares need no fp_scope. */
static inline int64_t order_key(bool negative, uint64_t magnitude_bits)
{
    return negative ? -(int64_t)magnitude_bits - 1 : (int64_t)magnitude_bits;
}

/* The views of a float width W by its bits U, the same in f32 (float,
 * uint32_t) and f64 (double, uint64_t) but for the types: W_bits and
 * W_from_bits, W_bits_are_nan, W_canonical (a NaN becomes the canonical
 * one) and W_order (order_key of the bits). */
#define DEFINE_BIT_VIEWS(T, W, U, SIGN, EXPONENT, CANONICAL_NAN)                                   \
    static inline U W##_bits(T x)                                                                  \
    {                                                                                              \
        U u;                                                                                       \
        memcpy(&u, &x, sizeof u);                                                                  \
        return u;                                                                                  \
    }                                                                                              \
    static inline T W##_from_bits(U u)                                                             \
    {                                                                                              \
        T x;                                                                                       \
        memcpy(&x, &u, sizeof x);                                                                  \
        return x;                                                                                  \
    }                                                                                              \
    static inline bool W##_bits_are_nan(U u)                                                       \
    {                                                                                              \
        return (u & ~SIGN) > EXPONENT;                                                             \
    }                                                                                              \
    static inline T W##_canonical(T x)                                                             \
    {                                                                                              \
        return W##_bits_are_nan(W##_bits(x)) ? W##_from_bits(CANONICAL_NAN) : x;                   \
    }                                                                                              \
    static inline int64_t W##_order(U u)                                                           \
    {                                                                                              \
        return order_key((u & SIGN) != 0, u & ~SIGN);                                              \
    }

DEFINE_BIT_VIEWS(float, f32, uint32_t, F32_SIGN, F32_EXPONENT, F32_CANONICAL_NAN)
DEFINE_BIT_VIEWS(double, f64, uint64_t, F64_SIGN, F64_EXPONENT, F64_CANONICAL_NAN)

/* ------------------------------------------- rounded once: f32 and f64 */

/* The body of an operation the hardware rounds once: `expression`, whose
 * operands are pinned with fp_pin_W, computed under rounding `r` and
 * pinned, then returned as a T with the canonical NaN. W is f32 (T float)
 * or f64 (T double). */
#define RETURN_ROUNDED(T, W, r, expression)                                                        \
    do {                                                                                           \
        struct fp_scope scope = fp_scope_enter(r);                                                 \
        T rounded = fp_pin_##W(expression);                                                        \
        fp_scope_leave(scope);                                                                     \
        return W##_canonical(rounded);                                                             \
    } while (0)

/* add, sub, mul, fma, div, sqrt and rcp are the same in f32 and f64 but
 * for the type, so one definition makes both widths (arith_add_f32 and
 * arith_add_f64, and so on, as arith.h declares them). FMA and SQRT are the
 * C library's functions of type T. */
#define DEFINE_ROUNDED_OPERATIONS(T, W, FMA, SQRT)                                                 \
    T arith_add_##W(T a, T b, enum arith_rounding r)                                               \
    {                                                                                              \
        RETURN_ROUNDED(T, W, r, fp_pin_##W(a) + fp_pin_##W(b));                                    \
    }                                                                                              \
    T arith_sub_##W(T a, T b, enum arith_rounding r)                                               \
    {                                                                                              \
        RETURN_ROUNDED(T, W, r, fp_pin_##W(a) - fp_pin_##W(b));                                    \
    }                                                                                              \
    T arith_mul_##W(T a, T b, enum arith_rounding r)                                               \
    {                                                                                              \
        RETURN_ROUNDED(T, W, r, fp_pin_##W(a) * fp_pin_##W(b));                                    \
    }                                                                                              \
    T arith_fma_##W(T a, T b, T c, enum arith_rounding r)                                          \
    {                                                                                              \
        RETURN_ROUNDED(T, W, r, FMA(fp_pin_##W(a), fp_pin_##W(b), fp_pin_##W(c)));                 \
    }                                                                                              \
    T arith_div_##W(T a, T b, enum arith_rounding r)                                               \
    {                                                                                              \
        RETURN_ROUNDED(T, W, r, fp_pin_##W(a) / fp_pin_##W(b));                                    \
    }                                                                                              \
    T arith_sqrt_##W(T a, enum arith_rounding r)                                                   \
    {                                                                                              \
        RETURN_ROUNDED(T, W, r, SQRT(fp_pin_##W(a)));                                              \
    }                                                                                              \
    T arith_rcp_##W(T a, enum arith_rounding r)                                                    \
    {                                                                                              \
        return arith_div_##W(1, a, r);                                                             \
    }

DEFINE_ROUNDED_OPERATIONS(float, f32, fmaf, sqrtf)
DEFINE_ROUNDED_OPERATIONS(double, f64, fma, sqrt)

/* ------------------------------------------------ by the bits: f32 and f64 */

/* Flush to zero, min and max, the same in f32 and f64 but for the types:
 * this defines arith_ftz_W, arith_min_W and arith_max_W for both widths.
 * A subnormal flushes to the zero of its sign. When a min/max operand is
 * NaN the result is the other one, or the canonical NaN when both are. By
 * the bits, so that a caller's DAZ cannot change them. */
#define DEFINE_BIT_OPERATIONS(T, W, SIGN, EXPONENT)                                                \
    T arith_ftz_##W(T x)                                                                           \
    {                                                                                              \
        return (W##_bits(x) & EXPONENT) == 0 ? W##_from_bits(W##_bits(x) & SIGN) : x;              \
    }                                                                                              \
    static inline T W##_min_max(T a, T b, bool want_max)                                           \
    {                                                                                              \
        if (W##_bits_are_nan(W##_bits(a)))                                                         \
            return W##_canonical(b);                                                               \
        if (W##_bits_are_nan(W##_bits(b)))                                                         \
            return a;                                                                              \
        int64_t order_a = W##_order(W##_bits(a)), order_b = W##_order(W##_bits(b));                \
        return (want_max ? order_a >= order_b : order_a <= order_b) ? a : b;                       \
    }                                                                                              \
    T arith_min_##W(T a, T b)                                                                      \
    {                                                                                              \
        return W##_min_max(a, b, false);                                                           \
    }                                                                                              \
    T arith_max_##W(T a, T b)                                                                      \
    {                                                                                              \
        return W##_min_max(a, b, true);                                                            \
    }

DEFINE_BIT_OPERATIONS(float, f32, F32_SIGN, F32_EXPONENT)
DEFINE_BIT_OPERATIONS(double, f64, F64_SIGN, F64_EXPONENT)

/* By the bits, so that a caller's DAZ cannot turn a subnormal into zero;
 * −0.0 becomes +0.0 (the range is [+0.0, 1.0]). */
float arith_sat_f32(float x)
{
    uint32_t u = f32_bits(x);
    if (f32_bits_are_nan(u) || (u & F32_SIGN) != 0)
        return 0.0f;
    return u > F32_ONE ? 1.0f : x;
}

/* -------------------------------------------------------------- .approx */

/* The .approx family. Each returns libm's result, correctly rounded or
 * within an ulp or two, far inside PTX's bounds, and computed in the default
 * environment, so its bits depend on the C library only. */

static inline float f32_libm(float (*function)(float), float a)
{
    RETURN_ROUNDED(float, f32, ARITH_RN, function(fp_pin_f32(a)));
}

const double arith_ex2_coefficients[ARITH_EX2_DEGREE + 1] = {
    0x1.0000000000000p+0,  0x1.62e42fefa39efp-1,  0x1.ebfbdff82c58fp-3,  0x1.c6b08d704a0c0p-5,
    0x1.3b2ab6fba4e77p-7,  0x1.5d87fe78a6731p-10, 0x1.430912f86c787p-13, 0x1.ffcbfc588b0c7p-17,
    0x1.62c0223a5c824p-20, 0x1.b5253d395e7c4p-24, 0x1.e4cf5158b8ecap-28,
};

/* 2^a in double, as arith.h says (a not NaN; inside an fp_scope). */
static double ex2_double(float a)
{
    double x = a < ARITH_EX2_LOW ? ARITH_EX2_LOW : a > ARITH_EX2_HIGH ? ARITH_EX2_HIGH : (double)a;
    double k = (x + ARITH_EX2_ROUNDER) - ARITH_EX2_ROUNDER, r = x - k;
    double p = arith_ex2_coefficients[ARITH_EX2_DEGREE];
    for (int n = ARITH_EX2_DEGREE - 1; n >= 0; n--)
        p = p * r + arith_ex2_coefficients[n];
    return p * f64_from_bits((uint64_t)((int64_t)k + 1023) << 52);
}

float arith_ex2_approx_f32(float a)
{
    if (f32_bits_are_nan(f32_bits(a)))
        return f32_canonical(a);
    RETURN_ROUNDED(float, f32, ARITH_RN, (float)ex2_double(fp_pin_f32(a)));
}

float arith_lg2_approx_f32(float a)
{
    return f32_libm(log2f, a);
}

float arith_sin_approx_f32(float a)
{
    return f32_libm(sinf, a);
}

float arith_cos_approx_f32(float a)
{
    return f32_libm(cosf, a);
}

float arith_tanh_approx_f32(float a)
{
    return f32_libm(tanhf, a);
}

float arith_rcp_approx_f32(float a)
{
    return arith_div_f32(1.0f, a, ARITH_RN);
}

/* In double: two roundings of 2^-53 each, then one to f32. rsqrt(−0) is
 * 1/−0 = −Inf, as PTX says. */
float arith_rsqrt_approx_f32(float a)
{
    RETURN_ROUNDED(float, f32, ARITH_RN, (float)(1.0 / sqrt((double)fp_pin_f32(a))));
}

float arith_sqrt_approx_f32(float a)
{
    return arith_sqrt_f32(a, ARITH_RN);
}

/* a * (1/b) with the reciprocal flushed when subnormal, as the GPU's
 * reciprocal unit does: that is exactly PTX's rule that 2^126 < |b| < 2^128
 * gives 0 (and NaN when a is infinite). */
float arith_div_approx_f32(float a, float b)
{
    /* A subnormal divisor has no finite reciprocal in f32; the hardware
     * still returns a finite quotient (NVRTC's fmodf relies on it), and the
     * exact quotient is within the bound. */
    if ((f32_bits(b) & F32_EXPONENT) == 0 && (f32_bits(b) & ~F32_SIGN) != 0)
        return arith_div_f32(a, b, ARITH_RN);
    struct fp_scope s = fp_scope_enter(ARITH_RN);
    float reciprocal = arith_ftz_f32(fp_pin_f32(1.0f / fp_pin_f32(b)));
    float d = fp_pin_f32(fp_pin_f32(a) * fp_pin_f32(reciprocal));
    fp_scope_leave(s);
    return f32_canonical(d);
}

float arith_div_full_f32(float a, float b)
{
    return arith_div_f32(a, b, ARITH_RN);
}

/* Exact 1/a, with subnormal inputs (giving ±Inf) and outputs (|a| > 2^1022)
 * flushed to zeros of their sign. */
double arith_rcp_approx_ftz_f64(double a)
{
    struct fp_scope s = fp_scope_enter(ARITH_RN);
    double d = fp_pin_f64(1.0 / fp_pin_f64(arith_ftz_f64(a)));
    fp_scope_leave(s);
    return f64_canonical(arith_ftz_f64(d));
}

double arith_rsqrt_approx_f64(double a)
{
    RETURN_ROUNDED(double, f64, ARITH_RN, 1.0 / sqrt(fp_pin_f64(a)));
}

/* -------------------------------------------------- rounding by hand */

/* Whether dropping the part of a magnitude below the last kept place
 * rounds the kept part up (away from zero). rest_vs_half compares that part
 * with half a place (<0, 0, >0); inexact says it is not zero. */
static bool rounds_away(int rest_vs_half, bool inexact, bool kept_is_odd, bool negative,
                        enum arith_rounding r)
{
    switch (r) {
    case ARITH_RN:
        return rest_vs_half > 0 || (rest_vs_half == 0 && kept_is_odd);
    case ARITH_RM:
        return inexact && negative;
    case ARITH_RP:
        return inexact && !negative;
    case ARITH_RNA:
        return rest_vs_half >= 0 && inexact;
    case ARITH_RZ:
    default:
        return false;
    }
}

static int compare_with_half(double rest)
{
    return (rest > 0.5) - (rest < 0.5);
}

/* x rounded to an integral value (cvt .rni .rzi .rmi .rpi); keeps x's sign,
 * so −0.3 becomes −0.0 toward zero. Exact operations only. */
static double round_integral(double x, enum arith_rounding r)
{
    double magnitude = fabs(x);
    if (!(magnitude < 0x1p52))
        return x; /* NaN, infinite, or too large to have a fraction */
    double whole = floor(magnitude);
    double rest = magnitude - whole;
    if (rounds_away(compare_with_half(rest), rest != 0, ((uint64_t)whole & 1) != 0, signbit(x), r))
        whole += 1;
    return copysign(whole, x);
}

/* sign·magnitude rounded to `precision` significant bits, the exponent
 * unbounded; exact as a double since precision <= 53. */
static double integer_round(bool negative, uint64_t magnitude, int precision, enum arith_rounding r)
{
    int width = magnitude == 0 ? 0 : 64 - __builtin_clzll(magnitude);
    int drop = width > precision ? width - precision : 0;
    if (drop > 0) {
        uint64_t rest = magnitude & ((UINT64_C(1) << drop) - 1);
        uint64_t half = UINT64_C(1) << (drop - 1);
        magnitude >>= drop;
        if (rounds_away((rest > half) - (rest < half), rest != 0, (magnitude & 1) != 0, negative,
                        r))
            magnitude++;
    }
    double value = ldexp((double)magnitude, drop);
    return negative ? -value : value;
}

/* An IEEE binary format narrower than double. */
struct float_format {
    int precision;       /* significand bits, the implicit one included */
    int min_exponent;    /* exponent of the smallest normal number */
    int max_exponent;    /* exponent of the largest finite number */
    unsigned sign_shift; /* position of the sign bit */
};

static const struct float_format F32_FORMAT = {24, -126, 127, 31};
static const struct float_format F16_FORMAT = {11, -14, 15, 15};
static const struct float_format BF16_FORMAT = {8, -126, 127, 15};

static uint32_t format_infinity(const struct float_format *f)
{
    return (uint32_t)(f->max_exponent - f->min_exponent + 2) << (f->precision - 1);
}

/* What overflow gives: infinity, or the largest finite number when the
 * mode rounds toward zero from that side. */
static uint32_t format_overflow(const struct float_format *f, bool negative, enum arith_rounding r)
{
    bool to_infinity = r == ARITH_RN || (r == ARITH_RP && !negative) || (r == ARITH_RM && negative);
    uint32_t sign = negative ? UINT32_C(1) << f->sign_shift : 0;
    return sign | (to_infinity ? format_infinity(f) : format_infinity(f) - 1);
}

/* The bits of x (any double) rounded once into format f. The magnitude is
 * scaled to units of the result's last place (exact: a power of two), so
 * the integer part is the truncated significand and the fraction decides the
 * rounding. Significand and exponent field are added, not or-ed, so that
 * rounding up out of the significand (or out of the subnormals) carries
 * into the exponent as the IEEE encoding intends. */
static uint32_t format_encode(double x, const struct float_format *f, enum arith_rounding r)
{
    bool negative = signbit(x);
    uint32_t sign = negative ? UINT32_C(1) << f->sign_shift : 0;
    if (isnan(x))
        return (UINT32_C(1) << f->sign_shift) - 1; /* the canonical NaN */
    if (isinf(x))
        return sign | format_infinity(f);
    double magnitude = fabs(x);
    if (magnitude == 0)
        return sign;
    int exponent;
    frexp(magnitude, &exponent);
    exponent--; /* magnitude is in [2^exponent, 2^(exponent + 1)) */
    if (exponent > f->max_exponent)
        return format_overflow(f, negative, r);
    int place_min = f->min_exponent - (f->precision - 1); /* the smallest subnormal */
    int place = exponent < f->min_exponent ? place_min : exponent - (f->precision - 1);
    double units = ldexp(magnitude, -place);
    double kept = floor(units);
    double rest = units - kept;
    uint64_t significand = (uint64_t)kept;
    if (rounds_away(compare_with_half(rest), rest != 0, (significand & 1) != 0, negative, r))
        significand++;
    uint64_t bits = ((uint64_t)(place - place_min) << (f->precision - 1)) + significand;
    if (bits >= format_infinity(f))
        return format_overflow(f, negative, r);
    return sign | (uint32_t)bits;
}

/* ------------------------------------------------------------------- cvt */

/* A cvt source on its way to the destination type, held exactly. */
struct cvt_value {
    bool is_float;
    double real;   /* when is_float */
    bool negative; /* when not: the integer as sign and magnitude */
    uint64_t magnitude;
};

static bool cvt_type_is_integer(enum ptx_type t)
{
    return (t >= PTX_B8 && t <= PTX_B64) || (t >= PTX_U8 && t <= PTX_S64);
}

static bool cvt_type_is_float(enum ptx_type t)
{
    return t == PTX_F16 || t == PTX_BF16 || t == PTX_F32 || t == PTX_F64;
}

static const struct float_format *narrow_format(enum ptx_type t)
{
    switch (t) {
    case PTX_F32:
        return &F32_FORMAT;
    case PTX_F16:
        return &F16_FORMAT;
    default:
        return &BF16_FORMAT;
    }
}

static uint64_t low_bits(uint64_t bits, unsigned width)
{
    return width >= 64 ? bits : bits & ((UINT64_C(1) << width) - 1);
}

/* The low bits of raw as type t, sign-extended for signed types. */
static uint64_t integer_extend(uint64_t raw, enum ptx_type t)
{
    unsigned width = ptx_type_bytes(t) * 8;
    raw = low_bits(raw, width);
    if (ptx_type_is_signed(t) && width < 64 && ((raw >> (width - 1)) & 1))
        raw |= ~UINT64_C(0) << width;
    return raw;
}

/* sign·magnitude clamped to the range of integer type t. */
static uint64_t integer_saturate(bool negative, uint64_t magnitude, enum ptx_type t)
{
    unsigned width = ptx_type_bytes(t) * 8;
    if (!ptx_type_is_signed(t)) {
        uint64_t max = low_bits(~UINT64_C(0), width);
        return negative ? 0 : magnitude > max ? max : magnitude;
    }
    uint64_t limit = UINT64_C(1) << (width - 1); /* |min|, and max + 1 */
    if (negative)
        return integer_extend(0 - (magnitude > limit ? limit : magnitude), t);
    return magnitude >= limit ? limit - 1 : magnitude;
}

static struct cvt_value cvt_decode_integer(uint64_t bits, enum ptx_type from)
{
    unsigned width = ptx_type_bytes(from) * 8;
    uint64_t raw = low_bits(bits, width);
    uint64_t top = UINT64_C(1) << (width - 1);
    struct cvt_value v = {.is_float = false, .negative = false, .magnitude = raw};
    if (ptx_type_is_signed(from) && (raw & top) != 0) {
        v.negative = true;
        v.magnitude = (top << 1) - raw; /* 2^width − raw, modulo 2^64 */
    }
    return v;
}

static struct cvt_value cvt_decode(uint64_t bits, enum ptx_type from, bool ftz)
{
    struct cvt_value v = {.is_float = true};
    switch (from) {
    case PTX_F64:
        v.real = f64_from_bits(bits);
        return v;
    case PTX_F32: {
        float x = f32_from_bits((uint32_t)bits);
        v.real = ftz ? arith_ftz_f32(x) : x;
        return v;
    }
    case PTX_F16:
        v.real = arith_f16_to_f32((uint16_t)bits);
        return v;
    case PTX_BF16:
        v.real = arith_bf16_to_f32((uint16_t)bits);
        return v;
    default:
        return cvt_decode_integer(bits, from);
    }
}

/* Float sources saturate (NaN → 0) after rounding to an integral value;
 * with no mode named (PTX requires one) they round toward zero, like C. */
static uint64_t cvt_to_integer(struct cvt_value v, enum ptx_type to, bool has_mode,
                               enum arith_rounding mode, bool sat)
{
    if (!v.is_float)
        return sat ? integer_saturate(v.negative, v.magnitude, to)
                   : integer_extend(v.negative ? 0 - v.magnitude : v.magnitude, to);
    double x = round_integral(v.real, has_mode ? mode : ARITH_RZ);
    if (isnan(x))
        return 0;
    double magnitude = fabs(x);
    uint64_t clamped = magnitude >= 0x1p64 ? UINT64_MAX : (uint64_t)magnitude;
    return integer_saturate(x < 0, clamped, to);
}

static double saturate_unit(double x)
{
    if (isnan(x) || x <= 0)
        return 0.0;
    return x > 1 ? 1.0 : x;
}

/* Integer sources round to the destination's precision, narrower floats
 * round with `mode` (nearest when none is named), same-type conversions
 * with a mode round to an integral value, wider ones are exact. */
static uint64_t cvt_to_float(struct cvt_value v, enum ptx_type to, enum ptx_type from,
                             bool has_mode, enum arith_rounding mode, bool sat, bool ftz)
{
    enum arith_rounding r = has_mode ? mode : ARITH_RN;
    double x;
    if (!v.is_float)
        x = integer_round(v.negative, v.magnitude,
                          to == PTX_F64 ? 53 : narrow_format(to)->precision, r);
    else if (to == from && has_mode)
        x = round_integral(v.real, mode);
    else
        x = v.real;
    if (sat)
        x = saturate_unit(x);
    if (to == PTX_F64)
        return f64_bits(f64_canonical(x));
    uint32_t bits = format_encode(x, narrow_format(to), r);
    if (to == PTX_F32 && ftz)
        bits = f32_bits(arith_ftz_f32(f32_from_bits(bits)));
    return bits;
}

/* The whole conversion runs in the default environment: every float
 * operation in it is exact, but a caller's DAZ would still zero subnormals
 * and an unmasked trap would fire on a NaN compare. */
uint64_t arith_cvt(uint64_t bits, enum ptx_type to, enum ptx_type from, bool has_mode,
                   enum arith_rounding mode, bool sat, bool ftz)
{
    bool from_ok = cvt_type_is_integer(from) || cvt_type_is_float(from);
    bool to_ok = cvt_type_is_integer(to) || cvt_type_is_float(to);
    if (!from_ok || !to_ok)
        return 0;
    struct fp_scope s = fp_scope_enter(ARITH_RN);
    struct cvt_value v = cvt_decode(fp_pin_u64(bits), from, ftz);
    uint64_t out = cvt_type_is_float(to) ? cvt_to_float(v, to, from, has_mode, mode, sat, ftz)
                                         : cvt_to_integer(v, to, has_mode, mode, sat);
    out = fp_pin_u64(out);
    fp_scope_leave(s);
    return out;
}

/* ---------------------------------------------------------------- testp */

struct fp_class {
    bool nan, infinite, normal, subnormal;
};

static struct fp_class classify(uint64_t exponent, uint64_t exponent_max, bool fraction)
{
    struct fp_class c = {
        .nan = exponent == exponent_max && fraction,
        .infinite = exponent == exponent_max && !fraction,
        .normal = exponent != 0 && exponent != exponent_max,
        .subnormal = exponent == 0 && fraction,
    };
    return c;
}

static bool testp(struct fp_class c, enum arith_testp op)
{
    switch (op) {
    case ARITH_TESTP_FINITE:
        return !c.nan && !c.infinite;
    case ARITH_TESTP_INFINITE:
        return c.infinite;
    case ARITH_TESTP_NUMBER:
        return !c.nan;
    case ARITH_TESTP_NOTANUMBER:
        return c.nan;
    case ARITH_TESTP_NORMAL:
        return c.normal;
    case ARITH_TESTP_SUBNORMAL:
        return c.subnormal;
    }
    return false;
}

bool arith_testp_f32(float a, enum arith_testp op)
{
    uint32_t u = f32_bits(a);
    return testp(classify((u >> 23) & 0xff, 0xff, (u & 0x7fffff) != 0), op);
}

bool arith_testp_f64(double a, enum arith_testp op)
{
    uint64_t u = f64_bits(a);
    return testp(classify((u >> 52) & 0x7ff, 0x7ff, (u & UINT64_C(0xfffffffffffff)) != 0), op);
}

/* ------------------------------------------------------------- copysign */

float arith_copysign_f32(float sign_of, float magnitude_of)
{
    return f32_from_bits((f32_bits(sign_of) & F32_SIGN) | (f32_bits(magnitude_of) & ~F32_SIGN));
}

double arith_copysign_f64(double sign_of, double magnitude_of)
{
    return f64_from_bits((f64_bits(sign_of) & F64_SIGN) | (f64_bits(magnitude_of) & ~F64_SIGN));
}

/* ------------------------------------------------------------ f16, bf16 */

/* By the bits: exact, and needs no fp_scope. An f16 subnormal f·2^-24 is a
 * normal f32 whose leading one is bit `lead` of f. */
float arith_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exponent = (h >> 10) & 0x1f;
    uint32_t fraction = h & 0x3ff;
    if (exponent == 0x1f)
        return f32_from_bits(fraction != 0 ? F32_CANONICAL_NAN : sign | F32_EXPONENT);
    if (exponent != 0)
        return f32_from_bits(sign | (exponent + 127 - 15) << 23 | fraction << 13);
    if (fraction == 0)
        return f32_from_bits(sign);
    uint32_t lead = 31 - (uint32_t)__builtin_clz(fraction);
    uint32_t significand = (fraction << (23 - lead)) & 0x7fffff;
    return f32_from_bits(sign | (lead + 127 - 24) << 23 | significand);
}

/* f rounded into a 16-bit format, in the default environment. */
/* x rounded into a 16-bit format, in the default environment. */
static uint16_t f64_narrow(double x, const struct float_format *format, enum arith_rounding r)
{
    struct fp_scope s = fp_scope_enter(ARITH_RN);
    uint32_t bits = format_encode(fp_pin_f64(x), format, r);
    bits = (uint32_t)fp_pin_u64(bits);
    fp_scope_leave(s);
    return (uint16_t)bits;
}

uint16_t arith_f64_to_f16(double x, enum arith_rounding r)
{
    return f64_narrow(x, &F16_FORMAT, r);
}

uint16_t arith_f64_to_bf16(double x, enum arith_rounding r)
{
    return f64_narrow(x, &BF16_FORMAT, r);
}

/* f rounded into a 16-bit format: widened inside the scope, where a
 * caller's DAZ cannot flush a subnormal on the way. */
static uint16_t f32_narrow(float f, const struct float_format *format, enum arith_rounding r)
{
    struct fp_scope s = fp_scope_enter(ARITH_RN);
    uint32_t bits = format_encode((double)fp_pin_f32(f), format, r);
    bits = (uint32_t)fp_pin_u64(bits);
    fp_scope_leave(s);
    return (uint16_t)bits;
}

uint16_t arith_f32_to_f16(float f, enum arith_rounding r)
{
    return f32_narrow(f, &F16_FORMAT, r);
}

float arith_bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    return f32_from_bits(f32_bits_are_nan(u) ? F32_CANONICAL_NAN : u);
}

uint16_t arith_f32_to_bf16(float f, enum arith_rounding r)
{
    return f32_narrow(f, &BF16_FORMAT, r);
}
