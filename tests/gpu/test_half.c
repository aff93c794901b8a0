/*
 * Half precision on the virtual GPU (cuda_fp16.h, cuda_bf16.h and the PTX
 * they compile to), element by element against the host:
 * - add, sub, mul, fma (one rounding, to nearest even) with _sat and _relu,
 *   min and max (and _nan), neg, abs, division, every comparison, on
 *   __half, __nv_bfloat16 and both halves of __half2 and __nv_bfloat162;
 * - what cuda_fp16.h cannot reach, by inline PTX: .ftz, .xorsign.abs,
 *   ex2.approx.f16, setp of a pair into p|q, set with a half destination,
 *   cvt with .relu and .satfinite, cvt to a pair (a into the high half), and
 *   cvt to .tf32 (.rna, .rn, .rz, .satfinite);
 * - conversions between halves and integers in each rounding mode;
 * - the math functions (hsqrt, hexp, hlog, hsin, ... and their pairs)
 *   within an ulp or two of the exact result;
 * - atomicAdd on __half, __half2, __nv_bfloat16 and __nv_bfloat162 from many
 *   threads (values whose sums are exact in any order).
 * The host's reference is independent of the virtual GPU's arithmetic: it
 * computes the exact result in binary128 (__float128) and rounds it by
 * searching the 65536 values of the format, so ties, subnormals and
 * overflow come out of the definition of rounding itself. NaN results must
 * be the canonical 0x7fff. Inputs: every pair of special values of both
 * formats (±0, subnormals, the largest finite values, ±Inf, NaNs, ties),
 * random bit patterns, and values that cancel or round at a tie.
 */
#include <math.h>
#include <stdbool.h>

#include "gpu_test.h"

#define THREADS        128
#define N_RANDOM       3072
#define N_CLOSE        1024
#define SHOW           4
#define CANONICAL_NAN  0x7fffu
#define ATOMIC_BLOCKS  8
#define ATOMIC_THREADS 256

typedef __float128 quad;

/* --------------------------------------------- the host's reference */

enum format { F16, BF16 };
enum mode { RN, RZ, RD, RU };

/* Where the fields of a format lie. */
static const struct {
    int fraction_bits, bias;
    uint16_t infinity;
} formats[] = {{10, 15, 0x7c00}, {7, 127, 0x7f80}};

static int is_nan(enum format f, uint16_t h)
{
    return (h & 0x7fff) > formats[f].infinity;
}

/* The value of a finite non-negative pattern, from the definition. */
static double magnitude_of(enum format f, uint16_t h)
{
    int fraction_bits = formats[f].fraction_bits, bias = formats[f].bias;
    int exponent = (h & 0x7fff) >> fraction_bits, fraction = h & ((1 << fraction_bits) - 1);
    if (exponent == 0)
        return ldexp(fraction, 1 - bias - fraction_bits);
    return ldexp((1 << fraction_bits) + fraction, exponent - bias - fraction_bits);
}

static quad value_of(enum format f, uint16_t h)
{
    if ((h & 0x7fff) == formats[f].infinity)
        return h & 0x8000 ? -(quad)INFINITY : (quad)INFINITY;
    quad v = magnitude_of(f, h);
    return h & 0x8000 ? -v : v;
}

static int quad_is_negative(quad x)
{
    unsigned char bytes[sizeof x];
    memcpy(bytes, &x, sizeof x);
    return bytes[sizeof x - 1] >> 7; /* little-endian: the sign is the top bit */
}

/* The largest non-negative pattern whose value is at most m (m finite). */
static uint16_t floor_pattern(enum format f, quad m)
{
    uint16_t lo = 0, hi = formats[f].infinity; /* the infinity's "value" is the overflow point */
    while (hi - lo > 1) {
        uint16_t mid = (uint16_t)((lo + hi) / 2);
        if ((quad)magnitude_of(f, mid) <= m)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* x plus an infinitesimal of sign `sticky` (the part a binary128 result
 * lost), rounded into the format in mode m. */
static uint16_t round_to(enum format f, quad x, int sticky, enum mode m)
{
    if (x != x)
        return CANONICAL_NAN;
    uint16_t sign = quad_is_negative(x) ? 0x8000 : 0;
    quad magnitude = sign ? -x : x;
    int magnitude_sticky = sign ? -sticky : sticky;
    uint16_t inf = formats[f].infinity;
    if (magnitude == (quad)INFINITY)
        return sign | inf;
    quad overflow = ldexp(1.0, formats[f].bias + 1); /* where the infinity would lie */
    uint16_t lo = magnitude >= overflow ? (uint16_t)(inf - 1) : floor_pattern(f, magnitude);
    uint16_t hi = (uint16_t)(lo + 1);
    quad lo_value = magnitude_of(f, lo);
    quad hi_value = hi == inf ? overflow : (quad)magnitude_of(f, hi);
    if (magnitude == lo_value && magnitude_sticky == 0)
        return sign | lo;
    int up; /* the magnitude rounds to hi */
    if (m == RN) {
        quad middle = (lo_value + hi_value) / 2;
        up = magnitude > middle || (magnitude == middle && magnitude_sticky > 0) ||
             (magnitude == middle && magnitude_sticky == 0 && (lo & 1));
    } else {
        up = m == RZ ? 0 : (m == RU) != (sign != 0);
        if (magnitude == lo_value && magnitude_sticky < 0) /* just below lo */
            return sign | (up ? lo : (uint16_t)(lo - 1));
    }
    return sign | (up ? hi : lo);
}

/* Modifiers of the operations, as the PTX instructions' (and the host's
 * order of applying them: clamped before rounding). */
enum { SAT = 1, RELU = 2, FTZ = 4 };

static uint16_t flush(enum format f, uint16_t h)
{
    return (h & formats[f].infinity) == 0 ? h & 0x8000 : h;
}

/* x (exact, or with `sticky`) with the modifiers, rounded to nearest. */
static uint16_t finish(enum format f, quad x, int sticky, unsigned modifiers)
{
    if (x != x)
        return modifiers & SAT ? 0 : CANONICAL_NAN;
    if (modifiers & SAT) {
        if (x <= 0)
            x = 0, sticky = 0;
        else if (x >= 1)
            x = 1, sticky = 0;
    }
    if ((modifiers & RELU) && x < 0)
        x = 0, sticky = 0;
    uint16_t h = round_to(f, x, sticky, RN);
    return modifiers & FTZ ? flush(f, h) : h;
}

/* a + b in binary128 with the sign of what it lost (two-sum). */
static quad sum_with_sticky(quad a, quad b, int *sticky)
{
    quad s = a + b;
    *sticky = 0;
    if (s != s || s == (quad)INFINITY || s == -(quad)INFINITY)
        return s;
    quad bb = s - a, e = (a - (s - bb)) + (b - bb);
    *sticky = (e > 0) - (e < 0);
    return s;
}

static quad input(enum format f, uint16_t h, unsigned modifiers)
{
    return value_of(f, modifiers & FTZ ? flush(f, h) : h);
}

static uint16_t add_ref(enum format f, uint16_t a, uint16_t b, unsigned modifiers, int negate_b)
{
    if (is_nan(f, a) || is_nan(f, b))
        return modifiers & SAT ? 0 : CANONICAL_NAN;
    int sticky;
    quad y = input(f, b, modifiers);
    quad s = sum_with_sticky(input(f, a, modifiers), negate_b ? -y : y, &sticky);
    return finish(f, s, sticky, modifiers);
}

static uint16_t mul_ref(enum format f, uint16_t a, uint16_t b, unsigned modifiers)
{
    if (is_nan(f, a) || is_nan(f, b))
        return modifiers & SAT ? 0 : CANONICAL_NAN;
    return finish(f, input(f, a, modifiers) * input(f, b, modifiers), 0, modifiers);
}

static uint16_t fma_ref(enum format f, uint16_t a, uint16_t b, uint16_t c, unsigned modifiers)
{
    if (is_nan(f, a) || is_nan(f, b) || is_nan(f, c))
        return modifiers & SAT ? 0 : CANONICAL_NAN;
    int sticky;
    quad p = input(f, a, modifiers) * input(f, b, modifiers); /* exact: 22 bits at most */
    quad s = sum_with_sticky(p, input(f, c, modifiers), &sticky);
    return finish(f, s, sticky, modifiers);
}

/* A total order of the non-NaN patterns, −0 below +0. */
static int order_key(uint16_t h)
{
    return h & 0x8000 ? -(int)(h & 0x7fff) - 1 : (int)h;
}

enum { NAN_PROPAGATES = 8, XORSIGN_ABS = 16 };

static uint16_t min_max_ref(enum format f, uint16_t a, uint16_t b, unsigned modifiers, int want_min)
{
    if (modifiers & FTZ)
        a = flush(f, a), b = flush(f, b);
    int an = is_nan(f, a), bn = is_nan(f, b);
    if ((an && bn) || ((modifiers & NAN_PROPAGATES) && (an || bn)))
        return CANONICAL_NAN;
    uint16_t sign = (a ^ b) & 0x8000;
    if (modifiers & XORSIGN_ABS)
        a &= 0x7fff, b &= 0x7fff;
    uint16_t r = an ? b : bn ? a : (order_key(a) < order_key(b)) == want_min ? a : b;
    return modifiers & XORSIGN_ABS ? (uint16_t)(r | sign) : r;
}

enum compare { EQ, NE, LT, LE, GT, GE, EQU, NEU, LTU, LEU, GTU, GEU, NUM, NOTNUM };

static int compare_ref(enum format f, uint16_t a, uint16_t b, enum compare c)
{
    int unordered = is_nan(f, a) || is_nan(f, b);
    quad x = unordered ? 0 : value_of(f, a), y = unordered ? 0 : value_of(f, b);
    int r[] = {x == y, x != y, x<y, x <= y, x> y, x >= y};
    if (c == NUM || c == NOTNUM)
        return unordered == (c == NOTNUM);
    if (c >= EQU)
        return unordered || r[c - EQU];
    return !unordered && r[c];
}

enum function { EXP2, TANH, SQRT, RSQRT, RCP, EXP, LOG, LOG2, SIN, COS };

static long double evaluate(enum function function, long double x)
{
    switch (function) {
    case EXP2:
        return exp2l(x);
    case TANH:
        return tanhl(x);
    case SQRT:
        return sqrtl(x);
    case RSQRT:
        return 1 / sqrtl(x);
    case RCP:
        return 1 / x;
    case EXP:
        return expl(x);
    case LOG:
        return logl(x);
    case LOG2:
        return log2l(x);
    case SIN:
        return sinl(x);
    default:
        return cosl(x);
    }
}

/* An exactly rounded function of one input, through long double. */
static uint16_t function_ref(enum format f, uint16_t a, enum function function)
{
    if (is_nan(f, a))
        return CANONICAL_NAN;
    return round_to(f, (quad)evaluate(function, (long double)value_of(f, a)), 0, RN);
}

/* Rounding a half to an integral value, then to the range of an integer of
 * `bits` (signed or not); NaN gives 0, as cvt does. */
static uint64_t to_integer(enum format f, uint16_t a, enum mode m, int bits, int is_signed)
{
    if (is_nan(f, a))
        return 0;
    double x = (double)value_of(f, a);
    double r = m == RN ? nearbyint(x) : m == RZ ? trunc(x) : m == RD ? floor(x) : ceil(x);
    int value_bits = is_signed ? bits - 1 : bits;
    uint64_t largest = value_bits == 64 ? UINT64_MAX : (UINT64_C(1) << value_bits) - 1;
    if (r >= ldexp(1, value_bits))
        return largest;
    if (r < 0 && !is_signed)
        return 0;
    if (r < -ldexp(1, value_bits))
        return ~largest; /* the most negative */
    return (uint64_t)(int64_t)r;
}

/* --------------------------------------------- values the kernel derives */

/* In the kernel and here alike: an int of any magnitude, a float of any
 * bits, and a float near a half's tie. */
static int32_t int_of(uint16_t a, uint16_t b, uint16_t c)
{
    return (int32_t)((uint32_t)a << 16 | b) >> (c & 15);
}

static float float_of(uint16_t a, uint16_t b)
{
    return gpu_test_float_of((uint32_t)a << 16 | b);
}

static float near_tie_of(uint16_t a, uint16_t b)
{
    float x = (float)value_of(F16, (uint16_t)(a & 0x7bff)); /* finite */
    return x + (float)value_of(F16, (uint16_t)(b & 0x3bff)) * 0x1p-11f;
}

/* f32 bits rounded to .tf32 (an f32 with the low 13 bits zero) in mode m. */
static uint32_t tf32_ref(uint32_t u, enum mode m, int ties_away, int satfinite)
{
    if ((u & 0x7fffffff) > 0x7f800000)
        return 0x7fffffff;
    uint32_t sign = u & 0x80000000u, magnitude = u & 0x7fffffff;
    if (magnitude == 0x7f800000)
        return satfinite ? sign | 0x7f7fe000 : u;
    uint32_t kept = magnitude & ~0x1fffu, rest = magnitude & 0x1fffu;
    int up = m == RN   ? (ties_away ? rest >= 0x1000
                                    : rest > 0x1000 || (rest == 0x1000 && (kept & 0x2000)))
             : m == RZ ? 0
                       : rest != 0 && ((m == RU) != (sign != 0));
    kept += up ? 0x2000 : 0;
    if (satfinite && kept >= 0x7f800000)
        kept = 0x7f7fe000;
    return sign | kept;
}

/* ------------------------------------------------------- the operations */

/* r(a, b, c): the result's bits for the low halves; a pair operation's
 * high halves are r(b, c, a) (the kernel packs x2 = {x, y}, y2 = {y, z},
 * z2 = {z, x}). */
typedef uint32_t (*reference_fn)(uint16_t a, uint16_t b, uint16_t c);

#define REF(name, expr)                                                                            \
    static uint32_t name(uint16_t a, uint16_t b, uint16_t c)                                       \
    {                                                                                              \
        (void)a, (void)b, (void)c;                                                                 \
        return (uint32_t)(expr);                                                                   \
    }

/* Each format's arithmetic, named NAME_f16 and NAME_bf16. */
#define FOR_FORMATS(name, expr_f)                                                                  \
    REF(name##_f16, expr_f(F16))                                                                   \
    REF(name##_bf16, expr_f(BF16))

#define ADD(f)       add_ref(f, a, b, 0, 0)
#define SUB(f)       add_ref(f, a, b, 0, 1)
#define MUL(f)       mul_ref(f, a, b, 0)
#define FMA(f)       fma_ref(f, a, b, c, 0)
#define FMA_RELU(f)  fma_ref(f, a, b, c, RELU)
#define MIN(f)       min_max_ref(f, a, b, 0, 1)
#define MAX(f)       min_max_ref(f, a, b, 0, 0)
#define MIN_NAN(f)   min_max_ref(f, a, b, NAN_PROPAGATES, 1)
#define MAX_NAN(f)   min_max_ref(f, a, b, NAN_PROPAGATES, 0)
#define NEG(f)       (a ^ 0x8000)
#define ABS(f)       (a & 0x7fff)
#define DIV(f)       div_ref(f, a, b)
#define EQ_(f)       compare_ref(f, a, b, EQ)
#define NE_(f)       compare_ref(f, a, b, NE)
#define LT_(f)       compare_ref(f, a, b, LT)
#define LE_(f)       compare_ref(f, a, b, LE)
#define GT_(f)       compare_ref(f, a, b, GT)
#define GE_(f)       compare_ref(f, a, b, GE)
#define EQU_(f)      compare_ref(f, a, b, EQU)
#define NEU_(f)      compare_ref(f, a, b, NEU)
#define LTU_(f)      compare_ref(f, a, b, LTU)
#define GEU_(f)      compare_ref(f, a, b, GEU)
#define ISNAN(f)     compare_ref(f, a, a, NOTNUM)
#define ONE_IF(f, e) ((e) ? (f == F16 ? 0x3c00 : 0x3f80) : 0)
#define EQ_ONE(f)    ONE_IF(f, EQ_(f))
#define LT_ONE(f)    ONE_IF(f, LT_(f))
#define GEU_ONE(f)   ONE_IF(f, GEU_(f))

/* The quotient a / b, correctly rounded (what __hdiv promises). */
static uint16_t div_ref(enum format f, uint16_t a, uint16_t b)
{
    if (is_nan(f, a) || is_nan(f, b))
        return CANONICAL_NAN;
    quad y = value_of(f, b);
    quad q = value_of(f, a) / y; /* 113 bits: rounding twice to 11 or 8 is harmless */
    return finish(f, q, 0, 0);
}

FOR_FORMATS(add, ADD)
FOR_FORMATS(sub, SUB)
FOR_FORMATS(mul, MUL)
FOR_FORMATS(fma, FMA)
FOR_FORMATS(fma_relu, FMA_RELU)
FOR_FORMATS(min, MIN)
FOR_FORMATS(max, MAX)
FOR_FORMATS(min_nan, MIN_NAN)
FOR_FORMATS(max_nan, MAX_NAN)
FOR_FORMATS(neg, NEG)
FOR_FORMATS(abs, ABS)
FOR_FORMATS(div, DIV)
FOR_FORMATS(eq, EQ_)
FOR_FORMATS(ne, NE_)
FOR_FORMATS(lt, LT_)
FOR_FORMATS(le, LE_)
FOR_FORMATS(gt, GT_)
FOR_FORMATS(ge, GE_)
FOR_FORMATS(equ, EQU_)
FOR_FORMATS(neu, NEU_)
FOR_FORMATS(ltu, LTU_)
FOR_FORMATS(geu, GEU_)
FOR_FORMATS(isnan, ISNAN)
FOR_FORMATS(eq_one, EQ_ONE)
FOR_FORMATS(lt_one, LT_ONE)
FOR_FORMATS(geu_one, GEU_ONE)
REF(add_sat_f16, add_ref(F16, a, b, SAT, 0))
REF(sub_sat_f16, add_ref(F16, a, b, SAT, 1))
REF(mul_sat_f16, mul_ref(F16, a, b, SAT))
REF(fma_sat_f16, fma_ref(F16, a, b, c, SAT))
REF(mul_add_f16, add_ref(F16, mul_ref(F16, a, b, 0), c, 0, 0))
REF(isinf_f16, (a & 0x7fff) == 0x7c00 ? (a & 0x8000 ? -1 : 1) : 0)
REF(eq_mask_f16, compare_ref(F16, a, b, EQ) ? 0xffff : 0)
REF(geu_mask_f16, compare_ref(F16, a, b, GEU) ? 0xffff : 0)
REF(ltu_mask_f16, compare_ref(F16, a, b, LTU) ? 0xffff : 0)
REF(add_ftz_f16, add_ref(F16, a, b, FTZ, 0))
REF(mul_ftz_sat_f16, mul_ref(F16, a, b, FTZ | SAT))
REF(fma_ftz_relu_f16, fma_ref(F16, a, b, c, FTZ | RELU))
REF(min_ftz_f16, min_max_ref(F16, a, b, FTZ, 1))
REF(min_xorsign_f16, min_max_ref(F16, a, b, XORSIGN_ABS, 1))
REF(max_nan_xorsign_f16, min_max_ref(F16, a, b, NAN_PROPAGATES | XORSIGN_ABS, 0))
REF(max_xorsign_bf16, min_max_ref(BF16, a, b, XORSIGN_ABS, 0))
REF(neg_ftz_f16, flush(F16, a) ^ 0x8000)
REF(setp_pair_f16, compare_ref(F16, a, b, LT) | compare_ref(F16, b, c, LT) << 1)
REF(setp_and_pair_bf16,
    (compare_ref(BF16, a, b, GE) & (c & 1)) | (compare_ref(BF16, b, c, GE) & (c & 1)) << 1)

REF(ex2_f16, function_ref(F16, a, EXP2))
REF(ex2_ftz_bf16, flush(BF16, function_ref(BF16, flush(BF16, a), EXP2)))
#define TANH(f) function_ref(f, a, TANH)
FOR_FORMATS(tanh, TANH)
REF(sqrt_f16, function_ref(F16, a, SQRT))
REF(rsqrt_f16, function_ref(F16, a, RSQRT))
REF(rcp_f16, function_ref(F16, a, RCP))
REF(exp_f16, function_ref(F16, a, EXP))
REF(exp2_f16, function_ref(F16, a, EXP2))
REF(log_f16, function_ref(F16, a, LOG))
REF(log2_f16, function_ref(F16, a, LOG2))
REF(sin_f16, function_ref(F16, a, SIN))
REF(cos_f16, function_ref(F16, a, COS))
REF(sqrt_bf16, function_ref(BF16, a, SQRT))
REF(exp_bf16, function_ref(BF16, a, EXP))
REF(log_bf16, function_ref(BF16, a, LOG))

/* cvt.{rn,rz}.satfinite: ±Inf and overflow give the largest finite value. */
static uint16_t satfinite_ref(enum format f, float x, enum mode m)
{
    uint16_t h = round_to(f, x, 0, m);
    if ((h & 0x7fff) == formats[f].infinity)
        h = (uint16_t)((h & 0x8000) | (formats[f].infinity - 1));
    return h;
}

REF(to_int_rn_f16, (uint32_t)to_integer(F16, a, RN, 32, 1))
REF(to_int_rz_f16, (uint32_t)to_integer(F16, a, RZ, 32, 1))
REF(to_int_rd_f16, (uint32_t)to_integer(F16, a, RD, 32, 1))
REF(to_int_ru_f16, (uint32_t)to_integer(F16, a, RU, 32, 1))
REF(to_uint_rn_f16, (uint32_t)to_integer(F16, a, RN, 32, 0))
REF(to_short_rz_f16, (uint32_t)to_integer(F16, a, RZ, 16, 1))
REF(to_ushort_ru_f16, (uint32_t)to_integer(F16, a, RU, 16, 0))
REF(to_char_rz_f16, (uint32_t)to_integer(F16, a, RZ, 8, 1))
REF(to_ll_rd_f16, (uint32_t)to_integer(F16, a, RD, 64, 1))
REF(to_int_rn_bf16, (uint32_t)to_integer(BF16, a, RN, 32, 1))
REF(to_uint_rz_bf16, (uint32_t)to_integer(BF16, a, RZ, 32, 0))
REF(from_int_rn_f16, round_to(F16, int_of(a, b, c), 0, RN))
REF(from_int_rz_f16, round_to(F16, int_of(a, b, c), 0, RZ))
REF(from_int_rd_f16, round_to(F16, int_of(a, b, c), 0, RD))
REF(from_int_ru_f16, round_to(F16, int_of(a, b, c), 0, RU))
REF(from_uint_rn_f16, round_to(F16, (uint32_t)int_of(a, b, c), 0, RN))
REF(from_ll_rd_f16, round_to(F16, (quad)int_of(a, b, c) * 4099, 0, RD))
REF(from_int_rn_bf16, round_to(BF16, int_of(a, b, c), 0, RN))
REF(from_int_ru_bf16, round_to(BF16, int_of(a, b, c), 0, RU))
REF(from_float_rn_f16, round_to(F16, float_of(a, b), 0, RN))
REF(near_tie_rn_f16, round_to(F16, near_tie_of(a, b), 0, RN))
REF(near_tie_rz_f16, round_to(F16, near_tie_of(a, b), 0, RZ))
REF(relu_f16, finish(F16, float_of(a, b), 0, RELU))
REF(relu_bf16, finish(BF16, float_of(a, b), 0, RELU))
REF(satfinite_f16, satfinite_ref(F16, float_of(a, b), RN))
REF(satfinite_rz_bf16, satfinite_ref(BF16, float_of(a, b), RZ))
REF(pack_f16, round_to(F16, float_of(a, b), 0, RN) << 16 | round_to(F16, float_of(b, c), 0, RN))
REF(pack_bf16, round_to(BF16, float_of(a, b), 0, RN) << 16 | round_to(BF16, float_of(b, c), 0, RN))
REF(tf32_rna, tf32_ref((uint32_t)a << 16 | b, RN, 1, 0))
REF(tf32_rn, tf32_ref((uint32_t)a << 16 | b, RN, 0, 0))
REF(tf32_rz, tf32_ref((uint32_t)a << 16 | b, RZ, 0, 0))
REF(tf32_rna_satfinite, tf32_ref((uint32_t)a << 16 | b, RN, 1, 1))

/* How a result is compared: bit for bit, or (a function's) within some
 * steps of the format's values from the exactly rounded one. */
enum check { EXACT, ULPS_F16, ULPS_BF16 };

struct op {
    const char *expression; /* CUDA C: an unsigned holding the result's bits */
    reference_fn reference;
    bool pair; /* both halves: r(a, b, c) low, r(b, c, a) high */
    enum check check;
    int ulps;
};

#define EXACT_OP(e, r)                                                                             \
    {                                                                                              \
        e, r, false, EXACT, 0                                                                      \
    }
#define PAIR_OP(e, r)                                                                              \
    {                                                                                              \
        e, r, true, EXACT, 0                                                                       \
    }
#define F16_FN(e, r, u)                                                                            \
    {                                                                                              \
        e, r, false, ULPS_F16, u                                                                   \
    }
#define F16_PAIR_FN(e, r, u)                                                                       \
    {                                                                                              \
        e, r, true, ULPS_F16, u                                                                    \
    }
#define BF16_FN(e, r, u)                                                                           \
    {                                                                                              \
        e, r, false, ULPS_BF16, u                                                                  \
    }

static const struct op ops[] = {
    EXACT_OP("H(__hadd(x, y))", add_f16),
    EXACT_OP("H(__hsub(x, y))", sub_f16),
    EXACT_OP("H(__hmul(x, y))", mul_f16),
    EXACT_OP("H(__hfma(x, y, z))", fma_f16),
    EXACT_OP("H(__hadd_rn(x, y))", add_f16),
    EXACT_OP("H(__hmul_rn(x, y))", mul_f16),
    EXACT_OP("H(__hadd_sat(x, y))", add_sat_f16),
    EXACT_OP("H(__hsub_sat(x, y))", sub_sat_f16),
    EXACT_OP("H(__hmul_sat(x, y))", mul_sat_f16),
    EXACT_OP("H(__hfma_sat(x, y, z))", fma_sat_f16),
    EXACT_OP("H(__hfma_relu(x, y, z))", fma_relu_f16),
    EXACT_OP("H(__hmin(x, y))", min_f16),
    EXACT_OP("H(__hmax(x, y))", max_f16),
    EXACT_OP("H(__hmin_nan(x, y))", min_nan_f16),
    EXACT_OP("H(__hmax_nan(x, y))", max_nan_f16),
    EXACT_OP("H(__hneg(x))", neg_f16),
    EXACT_OP("H(__habs(x))", abs_f16),
    EXACT_OP("H(__hdiv(x, y))", div_f16),
    EXACT_OP("__heq(x, y)", eq_f16),
    EXACT_OP("__hne(x, y)", ne_f16),
    EXACT_OP("__hlt(x, y)", lt_f16),
    EXACT_OP("__hle(x, y)", le_f16),
    EXACT_OP("__hgt(x, y)", gt_f16),
    EXACT_OP("__hge(x, y)", ge_f16),
    EXACT_OP("__hequ(x, y)", equ_f16),
    EXACT_OP("__hneu(x, y)", neu_f16),
    EXACT_OP("__hltu(x, y)", ltu_f16),
    EXACT_OP("__hgeu(x, y)", geu_f16),
    EXACT_OP("__hisnan(x)", isnan_f16),
    EXACT_OP("(unsigned)__hisinf(x)", isinf_f16),
    EXACT_OP("x < y", lt_f16),
    EXACT_OP("H(x * y + z)", mul_add_f16), /* the operators round each step */
    PAIR_OP("H2(__hadd2(x2, y2))", add_f16),
    PAIR_OP("H2(__hsub2(x2, y2))", sub_f16),
    PAIR_OP("H2(__hmul2(x2, y2))", mul_f16),
    PAIR_OP("H2(__hfma2(x2, y2, z2))", fma_f16),
    PAIR_OP("H2(__hfma2_sat(x2, y2, z2))", fma_sat_f16),
    PAIR_OP("H2(__hfma2_relu(x2, y2, z2))", fma_relu_f16),
    PAIR_OP("H2(__hadd2_sat(x2, y2))", add_sat_f16),
    PAIR_OP("H2(__hmin2(x2, y2))", min_f16),
    PAIR_OP("H2(__hmax2(x2, y2))", max_f16),
    PAIR_OP("H2(__hmin2_nan(x2, y2))", min_nan_f16),
    PAIR_OP("H2(__hmax2_nan(x2, y2))", max_nan_f16),
    PAIR_OP("H2(__hneg2(x2))", neg_f16),
    PAIR_OP("H2(__habs2(x2))", abs_f16),
    PAIR_OP("H2(__h2div(x2, y2))", div_f16),
    PAIR_OP("H2(__heq2(x2, y2))", eq_one_f16),
    PAIR_OP("H2(__hlt2(x2, y2))", lt_one_f16),
    PAIR_OP("H2(__hgeu2(x2, y2))", geu_one_f16),
    PAIR_OP("__heq2_mask(x2, y2)", eq_mask_f16),
    PAIR_OP("__hltu2_mask(x2, y2)", ltu_mask_f16),
    EXACT_OP("add_ftz(a, b, c)", add_ftz_f16),
    EXACT_OP("mul_ftz_sat(a, b, c)", mul_ftz_sat_f16),
    EXACT_OP("fma_ftz_relu(a, b, c)", fma_ftz_relu_f16),
    EXACT_OP("min_ftz(a, b, c)", min_ftz_f16),
    EXACT_OP("min_xorsign(a, b, c)", min_xorsign_f16),
    EXACT_OP("max_nan_xorsign(a, b, c)", max_nan_xorsign_f16),
    EXACT_OP("max_xorsign_bf16(a, b, c)", max_xorsign_bf16),
    EXACT_OP("neg_ftz(a, b, c)", neg_ftz_f16),
    EXACT_OP("ex2_f16(a, b, c)", ex2_f16),
    EXACT_OP("ex2_ftz_bf16(a, b, c)", ex2_ftz_bf16),
    EXACT_OP("set_lt_f16(a, b, c)", lt_one_f16),
    EXACT_OP("H(htanh_approx(x))", tanh_f16),
    PAIR_OP("ex2_pair(x2, y2, z2)", ex2_f16),
    PAIR_OP("set_geu_pair(x2, y2, z2)", geu_mask_f16),
    PAIR_OP("set_lt_pair(x2, y2, z2)", lt_one_f16),
    PAIR_OP("H2(h2tanh_approx(x2))", tanh_f16),
    EXACT_OP("setp_lt_pair(x2, y2, z2)", setp_pair_f16),
    EXACT_OP("setp_ge_and_pair(bx2, by2, c & 1)", setp_and_pair_bf16),
    EXACT_OP("(unsigned)__half2int_rn(x)", to_int_rn_f16),
    EXACT_OP("(unsigned)__half2int_rz(x)", to_int_rz_f16),
    EXACT_OP("(unsigned)__half2int_rd(x)", to_int_rd_f16),
    EXACT_OP("(unsigned)__half2int_ru(x)", to_int_ru_f16),
    EXACT_OP("__half2uint_rn(x)", to_uint_rn_f16),
    EXACT_OP("(unsigned)__half2short_rz(x)", to_short_rz_f16),
    EXACT_OP("(unsigned)__half2ushort_ru(x)", to_ushort_ru_f16),
    EXACT_OP("(unsigned)__half2char_rz(x)", to_char_rz_f16),
    EXACT_OP("(unsigned)__half2ll_rd(x)", to_ll_rd_f16),
    EXACT_OP("H(__int2half_rn(I))", from_int_rn_f16),
    EXACT_OP("H(__int2half_rz(I))", from_int_rz_f16),
    EXACT_OP("H(__int2half_rd(I))", from_int_rd_f16),
    EXACT_OP("H(__int2half_ru(I))", from_int_ru_f16),
    EXACT_OP("H(__uint2half_rn((unsigned)I))", from_uint_rn_f16),
    EXACT_OP("H(__ll2half_rd((long long)I * 4099))", from_ll_rd_f16),
    EXACT_OP("H(__float2half_rn(F))", from_float_rn_f16),
    EXACT_OP("H(__float2half_rn(T))", near_tie_rn_f16),
    EXACT_OP("H(__float2half_rz(T))", near_tie_rz_f16),
    EXACT_OP("relu_f16(F)", relu_f16),
    EXACT_OP("relu_bf16(F)", relu_bf16),
    EXACT_OP("satfinite_f16(F)", satfinite_f16),
    EXACT_OP("satfinite_rz_bf16(F)", satfinite_rz_bf16),
    EXACT_OP("pack_f16(F, G)", pack_f16),
    EXACT_OP("pack_bf16(F, G)", pack_bf16),
    EXACT_OP("H2(__floats2half2_rn(G, F))", pack_f16),
    EXACT_OP("tf32_rna(F)", tf32_rna),
    EXACT_OP("tf32_rn(F)", tf32_rn),
    EXACT_OP("tf32_rz(F)", tf32_rz),
    EXACT_OP("tf32_rna_satfinite(F)", tf32_rna_satfinite),
    EXACT_OP("__float_as_uint(nvcuda::wmma::__float_to_tf32(F))", tf32_rna),
    F16_FN("H(hsqrt(x))", sqrt_f16, 1),
    F16_FN("H(hrsqrt(x))", rsqrt_f16, 1),
    F16_FN("H(hrcp(x))", rcp_f16, 1),
    F16_FN("H(hexp(x))", exp_f16, 1),
    F16_FN("H(hexp2(x))", exp2_f16, 1),
    F16_FN("H(hlog(x))", log_f16, 1),
    F16_FN("H(hlog2(x))", log2_f16, 1),
    F16_FN("H(hsin(x))", sin_f16, 2),
    F16_FN("H(hcos(x))", cos_f16, 2),
    F16_PAIR_FN("H2(h2sqrt(x2))", sqrt_f16, 1),
    F16_PAIR_FN("H2(h2exp(x2))", exp_f16, 1),
    EXACT_OP("B(__hadd(bx, by))", add_bf16),
    EXACT_OP("B(__hsub(bx, by))", sub_bf16),
    EXACT_OP("B(__hmul(bx, by))", mul_bf16),
    EXACT_OP("B(__hfma(bx, by, bz))", fma_bf16),
    EXACT_OP("B(__hfma_relu(bx, by, bz))", fma_relu_bf16),
    EXACT_OP("B(__hmin(bx, by))", min_bf16),
    EXACT_OP("B(__hmax(bx, by))", max_bf16),
    EXACT_OP("B(__hmin_nan(bx, by))", min_nan_bf16),
    EXACT_OP("B(__hmax_nan(bx, by))", max_nan_bf16),
    EXACT_OP("B(__hneg(bx))", neg_bf16),
    EXACT_OP("B(__habs(bx))", abs_bf16),
    EXACT_OP("B(__hdiv(bx, by))", div_bf16),
    EXACT_OP("__heq(bx, by)", eq_bf16),
    EXACT_OP("__hne(bx, by)", ne_bf16),
    EXACT_OP("__hlt(bx, by)", lt_bf16),
    EXACT_OP("__hle(bx, by)", le_bf16),
    EXACT_OP("__hgt(bx, by)", gt_bf16),
    EXACT_OP("__hge(bx, by)", ge_bf16),
    EXACT_OP("__hequ(bx, by)", equ_bf16),
    EXACT_OP("__hneu(bx, by)", neu_bf16),
    EXACT_OP("__hltu(bx, by)", ltu_bf16),
    EXACT_OP("__hgeu(bx, by)", geu_bf16),
    EXACT_OP("__hisnan(bx)", isnan_bf16),
    EXACT_OP("B(htanh_approx(bx))", tanh_bf16),
    PAIR_OP("B2(__hadd2(bx2, by2))", add_bf16),
    PAIR_OP("B2(__hsub2(bx2, by2))", sub_bf16),
    PAIR_OP("B2(__hmul2(bx2, by2))", mul_bf16),
    PAIR_OP("B2(__hfma2(bx2, by2, bz2))", fma_bf16),
    PAIR_OP("B2(__hfma2_relu(bx2, by2, bz2))", fma_relu_bf16),
    PAIR_OP("B2(__hmin2(bx2, by2))", min_bf16),
    PAIR_OP("B2(__hmax2_nan(bx2, by2))", max_nan_bf16),
    PAIR_OP("B2(__hneg2(bx2))", neg_bf16),
    PAIR_OP("B2(__habs2(bx2))", abs_bf16),
    PAIR_OP("B2(__heq2(bx2, by2))", eq_one_bf16),
    PAIR_OP("B2(__hlt2(bx2, by2))", lt_one_bf16),
    PAIR_OP("B2(__hgeu2(bx2, by2))", geu_one_bf16),
    PAIR_OP("B2(h2tanh_approx(bx2))", tanh_bf16),
    EXACT_OP("(unsigned)__bfloat162int_rn(bx)", to_int_rn_bf16),
    EXACT_OP("__bfloat162uint_rz(bx)", to_uint_rz_bf16),
    EXACT_OP("B(__int2bfloat16_rn(I))", from_int_rn_bf16),
    EXACT_OP("B(__int2bfloat16_ru(I))", from_int_ru_bf16),
    BF16_FN("B(hsqrt(bx))", sqrt_bf16, 1),
    BF16_FN("B(hexp(bx))", exp_bf16, 1),
    BF16_FN("B(hlog(bx))", log_bf16, 1),
};
#define N_OPS ((int)(sizeof ops / sizeof ops[0]))

/* ------------------------------------------------------------ the kernel */

static const char prelude[] =
    "#include <cuda_fp16.h>\n"
    "#include <cuda_bf16.h>\n"
    "#include <mma.h>\n"
    "__device__ unsigned H(__half v) { return __half_as_ushort(v); }\n"
    "__device__ unsigned B(__nv_bfloat16 v) { return __bfloat16_as_ushort(v); }\n"
    "__device__ unsigned H2(__half2 v) { return H(__low2half(v)) | H(__high2half(v)) << 16; }\n"
    "__device__ unsigned B2(__nv_bfloat162 v)\n"
    "{\n"
    "    return B(__low2bfloat16(v)) | B(__high2bfloat16(v)) << 16;\n"
    "}\n"
    "__device__ unsigned bits(unsigned v) { return v; }\n"
    "__device__ unsigned bits(__half2 v) { return H2(v); }\n"
    "__device__ unsigned bits(__nv_bfloat162 v) { return B2(v); }\n"
    /* inline PTX on a, b, c (16-bit), on pairs, on floats */
    "#define HALF_ASM(name, text) __device__ unsigned name(unsigned short a, unsigned short b,\\\n"
    "    unsigned short c) { unsigned short r; asm(text : \"=h\"(r) : \"h\"(a), \"h\"(b),\\\n"
    "    \"h\"(c)); return r; }\n"
    "#define PAIR_ASM(name, text) template <typename T, typename U> __device__ unsigned\\\n"
    "    name(T a, T b, U c) { unsigned r; asm(text : \"=r\"(r) : \"r\"(bits(a)),\\\n"
    "    \"r\"(bits(b)), \"r\"(bits(c))); return r; }\n"
    "#define FLOAT_ASM(name, out, text) __device__ unsigned name(float p, float q = 0)\\\n"
    "    { out r; asm(text : \"=h\"(r) : \"f\"(p), \"f\"(q)); return r; }\n"
    "#define WORD_ASM(name, text) __device__ unsigned name(float p, float q = 0)\\\n"
    "    { unsigned r; asm(text : \"=r\"(r) : \"f\"(p), \"f\"(q)); return r; }\n"
    "HALF_ASM(add_ftz, \"add.ftz.f16 %0, %1, %2;\")\n"
    "HALF_ASM(mul_ftz_sat, \"mul.ftz.sat.f16 %0, %1, %2;\")\n"
    "HALF_ASM(fma_ftz_relu, \"fma.rn.ftz.relu.f16 %0, %1, %2, %3;\")\n"
    "HALF_ASM(min_ftz, \"min.ftz.f16 %0, %1, %2;\")\n"
    "HALF_ASM(min_xorsign, \"min.xorsign.abs.f16 %0, %1, %2;\")\n"
    "HALF_ASM(max_nan_xorsign, \"max.NaN.xorsign.abs.f16 %0, %1, %2;\")\n"
    "HALF_ASM(max_xorsign_bf16, \"max.xorsign.abs.bf16 %0, %1, %2;\")\n"
    "HALF_ASM(neg_ftz, \"neg.ftz.f16 %0, %1;\")\n"
    "HALF_ASM(ex2_f16, \"ex2.approx.f16 %0, %1;\")\n"
    "HALF_ASM(ex2_ftz_bf16, \"ex2.approx.ftz.bf16 %0, %1;\")\n"
    "HALF_ASM(set_lt_f16, \"set.lt.f16.f16 %0, %1, %2;\")\n"
    "PAIR_ASM(ex2_pair, \"ex2.approx.f16x2 %0, %1;\")\n"
    "PAIR_ASM(set_geu_pair, \"set.geu.u32.f16x2 %0, %1, %2;\")\n"
    "PAIR_ASM(set_lt_pair, \"set.lt.f16x2.f16x2 %0, %1, %2;\")\n"
    "PAIR_ASM(setp_lt_pair, \"{ .reg .pred p, q; .reg .b32 t; setp.lt.f16x2 p|q, %1, %2;\"\n"
    "    \" selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; add.u32 %0, %0, t; }\")\n"
    "PAIR_ASM(setp_ge_and_pair, \"{ .reg .pred p, q, r; .reg .b32 t; setp.ne.u32 r, %3, 0;\"\n"
    "    \" setp.ge.and.bf16x2 p|q, %1, %2, r; selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q;\"\n"
    "    \" add.u32 %0, %0, t; }\")\n"
    "FLOAT_ASM(relu_f16, unsigned short, \"cvt.rn.relu.f16.f32 %0, %1;\")\n"
    "FLOAT_ASM(relu_bf16, unsigned short, \"cvt.rn.relu.bf16.f32 %0, %1;\")\n"
    "FLOAT_ASM(satfinite_f16, unsigned short, \"cvt.rn.satfinite.f16.f32 %0, %1;\")\n"
    "FLOAT_ASM(satfinite_rz_bf16, unsigned short, \"cvt.rz.satfinite.bf16.f32 %0, %1;\")\n"
    "WORD_ASM(pack_f16, \"cvt.rn.f16x2.f32 %0, %1, %2;\")\n"
    "WORD_ASM(pack_bf16, \"cvt.rn.bf16x2.f32 %0, %1, %2;\")\n"
    "WORD_ASM(tf32_rna, \"cvt.rna.tf32.f32 %0, %1;\")\n"
    "WORD_ASM(tf32_rn, \"cvt.rn.tf32.f32 %0, %1;\")\n"
    "WORD_ASM(tf32_rz, \"cvt.rz.tf32.f32 %0, %1;\")\n"
    "WORD_ASM(tf32_rna_satfinite, \"cvt.rna.satfinite.tf32.f32 %0, %1;\")\n";

/* The kernel: out[k * n + i] = expression k of the i-th inputs (malloc'ed). */
static char *kernel_source(void)
{
    size_t size = sizeof prelude + 2048;
    for (int k = 0; k < N_OPS; k++)
        size += strlen(ops[k].expression) + 64;
    char *s = malloc(size);
    if (s == NULL)
        return NULL;
    int used = snprintf(
        s, size,
        "%s"
        "extern \"C\" __global__ void half_ops(const unsigned short *in_a,\n"
        "    const unsigned short *in_b, const unsigned short *in_c, unsigned *out, int n)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i >= n) return;\n"
        "    unsigned short a = in_a[i], b = in_b[i], c = in_c[i];\n"
        "    __half x = __ushort_as_half(a), y = __ushort_as_half(b), z = __ushort_as_half(c);\n"
        "    __half2 x2 = __halves2half2(x, y), y2 = __halves2half2(y, z),\n"
        "        z2 = __halves2half2(z, x);\n"
        "    __nv_bfloat16 bx = __ushort_as_bfloat16(a), by = __ushort_as_bfloat16(b),\n"
        "        bz = __ushort_as_bfloat16(c);\n"
        "    __nv_bfloat162 bx2 = __halves2bfloat162(bx, by), by2 = __halves2bfloat162(by, bz),\n"
        "        bz2 = __halves2bfloat162(bz, bx);\n"
        "    int I = (int)((unsigned)a << 16 | b) >> (c & 15);\n"
        "    float F = __uint_as_float((unsigned)a << 16 | b);\n"
        "    float G = __uint_as_float((unsigned)b << 16 | c);\n"
        "    float T = __half2float(__ushort_as_half(a & 0x7bff)) +\n"
        "              __half2float(__ushort_as_half(b & 0x3bff)) * 0x1p-11f;\n"
        "    (void)x2; (void)y2; (void)z2; (void)bx2; (void)by2; (void)bz2; (void)I;\n",
        prelude);
    for (int k = 0; k < N_OPS; k++)
        used += snprintf(s + used, size - (size_t)used, "    out[(size_t)%d * n + i] = %s;\n", k,
                         ops[k].expression);
    snprintf(s + used, size - (size_t)used, "}\n");
    return s;
}

/* ---------------------------------------------------------------- inputs */

static const uint16_t special_bits[] = {
    0x0000, 0x8000,                 /* ±0 */
    0x0001, 0x8001, 0x03ff, 0x0400, /* f16: subnormals, the smallest normal */
    0x3c00, 0xbc00, 0x3c01, 0x3bff, /* ±1, 1 + ulp, 1 − ulp/2 */
    0x3800, 0x4000, 0x4200, 0xc100, /* 0.5, 2, 3, -2.5 */
    0x6800, 0x6801, 0x7bff, 0xfbff, /* 2048, 2050, ±65504 */
    0x7c00, 0xfc00, 0x7e00, 0xfe00, /* ±Inf, NaNs */
    0x7c01, 0x7fff,                 /* a signaling NaN, the canonical NaN */
    0x0080, 0x007f, 0x3f80, 0xbf80, /* bf16: the smallest normal, a subnormal, ±1 */
    0x3f81, 0x7f7f, 0xff7f, 0x7f80, /* 1 + ulp, ±the largest finite, +Inf */
    0xff80, 0x7fc0, 0x4b80, 0x4b81, /* -Inf, NaN, 2^24, 2^24 + 2^17 */
    0x3555, 0x2e66,                 /* f16 0.3333, 0.1 */
};
#define N_SPECIAL (sizeof special_bits / sizeof special_bits[0])

/* Random f16 values of moderate exponents: sums that cancel, fma residues. */
static uint16_t moderate(void)
{
    return (uint16_t)((gpu_test_rng() & 0x83ff) | (0x3000 + (gpu_test_rng() % 0x1800 & 0x7c00)));
}

static int make_inputs(uint16_t *a, uint16_t *b, uint16_t *c)
{
    int n = 0;
    for (size_t i = 0; i < N_SPECIAL; i++)
        for (size_t j = 0; j < N_SPECIAL; j++, n++) {
            a[n] = special_bits[i];
            b[n] = special_bits[j];
            c[n] = special_bits[(i * 7 + j * 3) % N_SPECIAL];
        }
    for (int i = 0; i < N_RANDOM; i++, n++) {
        uint64_t r = gpu_test_rng();
        a[n] = (uint16_t)r, b[n] = (uint16_t)(r >> 16), c[n] = (uint16_t)(r >> 32);
    }
    for (int i = 0; i < N_CLOSE; i++, n++) {
        a[n] = moderate();
        b[n] = (uint16_t)(a[n] ^ 0x8000 ^ (gpu_test_rng() & 7)); /* cancels */
        c[n] = moderate();
    }
    return n;
}

/* ---------------------------------------------------------------- checks */

/* A pattern's position among the format's values, consecutive values one
 * apart (−0 next to +0). */
static int position(uint16_t h)
{
    return order_key(h);
}

static int close_enough(const struct op *op, uint32_t got, uint32_t want)
{
    if (op->check == EXACT)
        return got == want;
    enum format f = op->check == ULPS_F16 ? F16 : BF16;
    for (int half = 0; half < (op->pair ? 2 : 1); half++) {
        uint16_t g = (uint16_t)(got >> (16 * half)), w = (uint16_t)(want >> (16 * half));
        if (is_nan(f, g) || is_nan(f, w)) {
            if (g != w)
                return 0;
            continue;
        }
        if (abs(position(g) - position(w)) > op->ulps)
            return 0;
    }
    return 1;
}

static uint32_t expected(const struct op *op, uint16_t a, uint16_t b, uint16_t c)
{
    uint32_t low = op->reference(a, b, c);
    if (!op->pair)
        return low;
    return (low & 0xffff) | (op->reference(b, c, a) & 0xffff) << 16;
}

static void compare(const uint16_t *a, const uint16_t *b, const uint16_t *c, const uint32_t *out,
                    int n)
{
    for (int k = 0; k < N_OPS; k++) {
        int wrong = 0;
        for (int i = 0; i < n; i++) {
            uint32_t want = expected(&ops[k], a[i], b[i], c[i]), got = out[(size_t)k * n + i];
            if (close_enough(&ops[k], got, want))
                continue;
            if (wrong++ < SHOW)
                fprintf(stderr, "  %s with a=0x%04x b=0x%04x c=0x%04x gave 0x%x, expected 0x%x\n",
                        ops[k].expression, a[i], b[i], c[i], got, want);
        }
        if (wrong)
            fprintf(stderr, "  %s: %d of %d wrong\n", ops[k].expression, wrong, n);
        CHECK(wrong == 0);
    }
}

static void test_operations(void)
{
    enum { CAP = N_SPECIAL * N_SPECIAL + N_RANDOM + N_CLOSE };
    static uint16_t a[CAP], b[CAP], c[CAP];
    int n = make_inputs(a, b, c);
    uint32_t *out = malloc((size_t)n * N_OPS * sizeof *out);
    char *source = kernel_source();
    const char *options[] = {gpu_test_toolkit_include()};
    CUmodule module;
    CUfunction f;
    if (CHECK(out != NULL && source != NULL) &&
        CHECK_CU(gpu_test_load_source_options(&module, source, "half_ops.cu", 1, options))) {
        CUdeviceptr da = gpu_test_upload(a, n * sizeof *a), db = gpu_test_upload(b, n * sizeof *b);
        CUdeviceptr dc = gpu_test_upload(c, n * sizeof *c);
        CUdeviceptr dout = gpu_test_upload(NULL, (size_t)n * N_OPS * sizeof *out);
        void *args[] = {&da, &db, &dc, &dout, &n};
        if (CHECK_CU(cuModuleGetFunction(&f, module, "half_ops")) &&
            gpu_test_run(f, (unsigned)(n + THREADS - 1) / THREADS, THREADS, args) &&
            gpu_test_download(out, dout, (size_t)n * N_OPS * sizeof *out))
            compare(a, b, c, out, n);
        cuMemFree(da);
        cuMemFree(db);
        cuMemFree(dc);
        CHECK_CU(cuModuleUnload(module));
    }
    free(source);
    free(out);
}

/* --------------------------------------------------------------- atomics */

static const char atomics_source[] =
    "#include <cuda_fp16.h>\n"
    "#include <cuda_bf16.h>\n"
    "extern \"C\" __global__ void half_atomics(__half *h, __half2 *h2, __nv_bfloat16 *b,\n"
    "    __nv_bfloat162 *b2, unsigned short *old)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    old[i] = __half_as_ushort(atomicAdd(h, __float2half(1.0f)));\n"
    "    atomicAdd(h2, __floats2half2_rn(0.5f, -2.0f));\n"
    "    atomicAdd(&b[i % 8], __float2bfloat16(1.0f));\n"
    "    atomicAdd(&b2[i % 16], __floats2bfloat162_rn(1.0f, 0.5f));\n"
    "}\n";

/* Every thread adds 1 to an f16 counter, and to the others amounts whose
 * sums are exact in any order (bf16 counts exactly to 256 only: its
 * counters are shared by fewer threads); the old values are each count
 * once. */
static void test_atomics(void)
{
    enum { N = ATOMIC_BLOCKS * ATOMIC_THREADS, BF16_COUNTERS = 8, BF16_PAIRS = 16 };
    CUmodule module;
    CUfunction f;
    const char *options[] = {gpu_test_toolkit_include()};
    if (!CHECK_CU(
            gpu_test_load_source_options(&module, atomics_source, "half_atomics.cu", 1, options)) ||
        !CHECK_CU(cuModuleGetFunction(&f, module, "half_atomics")))
        return;
    static uint16_t old[N];
    uint16_t h = 0, b[BF16_COUNTERS] = {0};
    uint32_t h2 = 0, b2[BF16_PAIRS] = {0};
    CUdeviceptr dh = gpu_test_upload(&h, 2), dh2 = gpu_test_upload(&h2, 4);
    CUdeviceptr db = gpu_test_upload(b, sizeof b), db2 = gpu_test_upload(b2, sizeof b2);
    CUdeviceptr dold = gpu_test_upload(NULL, sizeof old);
    void *args[] = {&dh, &dh2, &db, &db2, &dold};
    if (gpu_test_run(f, ATOMIC_BLOCKS, ATOMIC_THREADS, args) && gpu_test_download(&h, dh, 2) &&
        gpu_test_download(&h2, dh2, 4) && gpu_test_download(b, db, sizeof b) &&
        gpu_test_download(b2, db2, sizeof b2) && gpu_test_download(old, dold, sizeof old)) {
        CHECK_EQ(h, round_to(F16, N, 0, RN)); /* 2048 */
        CHECK_EQ(h2, (uint32_t)round_to(F16, N * 0.5, 0, RN) |
                         (uint32_t)round_to(F16, -2.0 * N, 0, RN) << 16);
        for (int k = 0; k < BF16_COUNTERS; k++)
            CHECK_EQ(b[k], round_to(BF16, N / BF16_COUNTERS, 0, RN));
        for (int k = 0; k < BF16_PAIRS; k++)
            CHECK_EQ(b2[k], (uint32_t)round_to(BF16, N / BF16_PAIRS, 0, RN) |
                                (uint32_t)round_to(BF16, N / BF16_PAIRS * 0.5, 0, RN) << 16);
        static int seen[N];
        int distinct = 1;
        for (int i = 0; i < N; i++) {
            double v = (double)value_of(F16, old[i]);
            int k = (int)v;
            distinct = distinct && v == k && k >= 0 && k < N && !seen[k]++;
        }
        CHECK(distinct);
    }
    CHECK_CU(cuModuleUnload(module));
}

int main(void)
{
    CUcontext context;
    if (!gpu_test_start(&context))
        return gpu_test_summary();
    test_operations();
    test_atomics();
    CHECK_CU(cuCtxDestroy(context));
    return gpu_test_summary();
}
