/*
 * The inputs' random numbers: a counter-based generator and the
 * distributions built on it, bit-identical on every IEEE-754 machine.
 *
 * Generator. Philox-4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random
 * numbers: as easy as 1, 2, 3", SC 2011), checked against the authors'
 * known-answer vectors in tests/unit/test_rng.c. It is a keyed bijection on
 * 128-bit counters that passes BigCrush with margin, so every value is a pure
 * function of (seed, stream, index) with no state to carry between threads.
 * The key is the seed (low word first); the counter is (index / 2, stream),
 * low words first, and one block gives the 64-bit values of indices 2p
 * (words 0-1) and 2p + 1 (words 2-3), so a buffer costs one block per two
 * elements. (splitmix64 of a counter would be as fast, but Philox has the
 * published analysis and the test vectors that pin it forever.)
 *
 * Distributions use + - * / and sqrt only, which IEEE-754 rounds correctly,
 * and exact power-of-two scaling (moving exponent bits, as frexp does),
 * never libm's log/sin/cos, whose last bit differs between C libraries.
 * Normals are Box-Muller, pairwise: block p gives u1 = 1 - unit(2p) in
 * (0, 1] and u2 = unit(2p + 1), and elements 2p and 2p + 1 are
 * r cos(2 pi u2) and r sin(2 pi u2) with r = sqrt(-2 log u1), using
 * fdlibm's log and sin/cos polynomials (below 1 ulp). No rejection, so no
 * bound on attempts is needed. Conversions to integer types round to
 * nearest, ties to even, and clamp to the type (NaN gives 0); nextafter,
 * used for the bounds of uniform, is exact by definition.
 *
 * Requirements: double evaluation without excess precision (checked below)
 * and no contraction of a * b + c into a fused multiply-add, which would
 * change the last bits (the pinned digests in the tests fail then). GCC's
 * ISO modes (-std=c11) do not contract; the pragmas below also keep GCC's
 * GNU modes and -ffp-contract=fast, and clang's default, from contracting.
 * (Only clang's explicit -ffp-contract=fast ignores its pragma.)
 */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "rng.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

/* 16 (TS 18661-3, GCC's GNU modes with AVX512-FP16) widens _Float16 only. */
_Static_assert(FLT_EVAL_METHOD == 0 || FLT_EVAL_METHOD == 16,
               "the distributions need double arithmetic without excess precision (x86-64 SSE2, "
               "AArch64, ...)");

/* Threads: none below two chunks of RNG_MIN_CHUNK elements, at most
 * RNG_MAX_THREADS; values are generated RNG_BATCH at a time on the stack. */
#define RNG_MIN_CHUNK   (1 << 15)
#define RNG_MAX_THREADS 64
#define RNG_BATCH       256
#define RNG_LANES       8

/* uniform_int: Lemire's multiply-shift with rejection; a rejected draw is
 * redrawn from the same index in stream `stream ^ attempt * RNG_RETRY_STRIDE`
 * (counters no buffer uses: streams are small). Each attempt fails with
 * probability below 1/2, so the fallback after RNG_MAX_ATTEMPTS (the last
 * draw, slightly biased) happens with probability below 2^-64. */
#define RNG_MAX_ATTEMPTS 64
#define RNG_RETRY_STRIDE 0x9E3779B97F4A7C15u

/* Vectors (GCC's and clang's extensions) for the normals, computed eight
 * lanes side by side (normal_pairs). */
#define VECTOR_LANES 8
typedef double f64xn __attribute__((vector_size(8 * VECTOR_LANES)));
typedef uint64_t u64xn __attribute__((vector_size(8 * VECTOR_LANES)));
typedef int64_t i64xn __attribute__((vector_size(8 * VECTOR_LANES)));
typedef int32_t i32xn __attribute__((vector_size(4 * VECTOR_LANES)));

#define LANES static inline __attribute__((always_inline))
/* Always inlined: no call passes a vector, so its ABI does not matter. */
#pragma GCC diagnostic ignored "-Wpsabi"

/* Philox-4x32's round multipliers and Weyl key increments. */
#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

/* ---- Philox-4x32-10 ---------------------------------------------------- */

/* One round: two 32x32->64 products, then the words swap and mix. */
static inline void philox_round(uint32_t x[4], uint32_t k0, uint32_t k1)
{
    uint64_t p0 = (uint64_t)PHILOX_M0 * x[0];
    uint64_t p1 = (uint64_t)PHILOX_M1 * x[2];
    uint32_t y0 = (uint32_t)(p1 >> 32) ^ x[1] ^ k0;
    uint32_t y2 = (uint32_t)(p0 >> 32) ^ x[3] ^ k1;
    x[0] = y0;
    x[1] = (uint32_t)p1;
    x[2] = y2;
    x[3] = (uint32_t)p0;
}

/* Ten rounds, the key bumped by the Weyl constants between rounds. */
static inline void philox_block(uint32_t x[4], uint32_t k0, uint32_t k1)
{
    for (int round = 0; round < 10; round++) {
        philox_round(x, k0, k1);
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
}

void rng_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4])
{
    memcpy(out, counter, 4 * sizeof *out);
    philox_block(out, key[0], key[1]);
}

/* bits[0] and bits[1]: the values of indices 2p and 2p + 1. */
static inline void philox_pair(struct rng_key key, uint64_t p, uint64_t bits[2])
{
    uint32_t x[4] = {(uint32_t)p, (uint32_t)(p >> 32), (uint32_t)key.stream,
                     (uint32_t)(key.stream >> 32)};
    philox_block(x, (uint32_t)key.seed, (uint32_t)(key.seed >> 32));
    bits[0] = x[0] | (uint64_t)x[1] << 32;
    bits[1] = x[2] | (uint64_t)x[3] << 32;
}

uint64_t rng_u64(struct rng_key key, uint64_t index)
{
    uint64_t bits[2];
    philox_pair(key, index >> 1, bits);
    return bits[index & 1];
}

static inline double unit_from_bits(uint64_t bits)
{
    return (double)(bits >> 11) * 0x1p-53;
}

double rng_unit(struct rng_key key, uint64_t index)
{
    return unit_from_bits(rng_u64(key, index));
}

/* The blocks of pairs p .. p + RNG_LANES - 1, computed side by side (word
 * w of lane l in x[w][l], the rounds as in philox_round) so that independent
 * blocks overlap: bits[2l], bits[2l + 1] for pair p + l. */
static inline void philox_lanes(struct rng_key key, uint64_t p, uint64_t *bits)
{
    uint32_t x[4][RNG_LANES], k0 = (uint32_t)key.seed, k1 = (uint32_t)(key.seed >> 32);
    for (int l = 0; l < RNG_LANES; l++) {
        x[0][l] = (uint32_t)(p + (uint64_t)l);
        x[1][l] = (uint32_t)((p + (uint64_t)l) >> 32);
        x[2][l] = (uint32_t)key.stream;
        x[3][l] = (uint32_t)(key.stream >> 32);
    }
    for (int round = 0; round < 10; round++) {
        for (int l = 0; l < RNG_LANES; l++) {
            uint64_t p0 = (uint64_t)PHILOX_M0 * x[0][l], p1 = (uint64_t)PHILOX_M1 * x[2][l];
            x[0][l] = (uint32_t)(p1 >> 32) ^ x[1][l] ^ k0;
            x[1][l] = (uint32_t)p1;
            x[2][l] = (uint32_t)(p0 >> 32) ^ x[3][l] ^ k1;
            x[3][l] = (uint32_t)p0;
        }
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    for (int l = 0; l < RNG_LANES; l++) {
        bits[2 * l] = x[0][l] | (uint64_t)x[1][l] << 32;
        bits[2 * l + 1] = x[2][l] | (uint64_t)x[3][l] << 32;
    }
}

#if defined(__x86_64__)
typedef uint64_t u64x8 __attribute__((vector_size(64)));

/* philox_lanes on hosts with AVX-512: the eight blocks' words in the 64-bit
 * lanes of one vector each (a 32-bit word zero-extended, so that the
 * 32x32->64 products of philox_round are lane multiplies), 4x faster.
 * Without AVX-512 the same code is slower than philox_lanes (x86 has no
 * 64-bit lane multiply before it), hence two versions, held to each other
 * by the tests (rng_wide_blocks). */
__attribute__((target("avx512f,avx512dq"))) static void philox_wide(struct rng_key key, uint64_t p,
                                                                    uint64_t *bits)
{
    const u64x8 lane = {0, 1, 2, 3, 4, 5, 6, 7}, zero = {0};
    u64x8 counter = p + lane;
    u64x8 x0 = counter & 0xffffffff, x1 = counter >> 32;
    u64x8 x2 = zero + (uint32_t)key.stream, x3 = zero + (key.stream >> 32);
    uint32_t k0 = (uint32_t)key.seed, k1 = (uint32_t)(key.seed >> 32);
    for (int round = 0; round < 10; round++) {
        u64x8 p0 = x0 * PHILOX_M0, p1 = x2 * PHILOX_M1;
        x0 = (p1 >> 32) ^ x1 ^ k0;
        x1 = p1 & 0xffffffff;
        x2 = (p0 >> 32) ^ x3 ^ k1;
        x3 = p0 & 0xffffffff;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    u64x8 first = x0 | x1 << 32, second = x2 | x3 << 32;
    u64x8 out[2] = {__builtin_shufflevector(first, second, 0, 8, 1, 9, 2, 10, 3, 11),
                    __builtin_shufflevector(first, second, 4, 12, 5, 13, 6, 14, 7, 15)};
    memcpy(bits, out, sizeof out);
}

static bool wide_blocks_run_here(void)
{
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
}
#else
static void philox_wide(struct rng_key key, uint64_t p, uint64_t *bits)
{
    philox_lanes(key, p, bits);
}

static bool wide_blocks_run_here(void)
{
    return false;
}
#endif

/* Whether inputs_generate uses philox_wide: where it runs, unless the tests
 * turned it off. Read when a generation starts, before its threads. */
static bool wide_blocks_wanted = true;

bool rng_wide_blocks(bool wanted)
{
    wide_blocks_wanted = wanted;
    return wide_blocks_run_here();
}

/* bits[k] = rng_u64(key, begin + k) for k < n, one block per two values;
 * eight blocks at a time by philox_wide when `wide`. */
static void rng_fill_bits(struct rng_key key, bool wide, uint64_t begin, size_t n, uint64_t *bits)
{
    size_t k = 0;
    if (n > 0 && (begin & 1))
        bits[k++] = rng_u64(key, begin);
    _Static_assert(RNG_LANES == 8, "philox_wide computes eight blocks");
    for (; k + 2 * RNG_LANES <= n; k += 2 * RNG_LANES)
        (wide ? philox_wide : philox_lanes)(key, (begin + k) >> 1, &bits[k]);
    for (; k + 1 < n; k += 2)
        philox_pair(key, (begin + k) >> 1, &bits[k]);
    if (k < n)
        bits[k] = rng_u64(key, begin + k);
}

/* ---- Elementary functions from basic arithmetic (fdlibm's kernels) ------ */

/* log(1 + f) = 2 atanh(s), s = f / (2 + f): fdlibm's minimax polynomial in
 * s^2 for |f| < sqrt(2) - 1, below 1 ulp. */
static const double LG1 = 0x1.5555555555593p-1, LG2 = 0x1.999999997fa04p-2,
                    LG3 = 0x1.2492494229359p-2, LG4 = 0x1.c71c51d8e78afp-3,
                    LG5 = 0x1.7466496cb03dep-3, LG6 = 0x1.39a09d078c69fp-3,
                    LG7 = 0x1.2f112df3e5244p-3;
static const double LN2_HI = 0x1.62e42fee00000p-1, LN2_LO = 0x1.a39ef35793c76p-33;

/* The elementary functions and the normals work on eight lanes side by
 * side (GCC's and clang's vector extensions): normal_batch runs them in
 * one register where the host has AVX-512, as AVX2 halves or SSE2
 * quarters elsewhere, and the scalar entry points (rng_log,
 * rng_sincos_turns: the tests') take lane 0. Each lane does the IEEE
 * operations of the scalar formulas, in their order, never fused (the
 * Makefile's FP_EXACT: AVX-512 has fused multiply-adds), so the values
 * are the same bits on every machine. */

LANES f64xn splat(double x)
{
    return (f64xn){0} + x;
}

/* k as a double, exactly, for |k| < 2^51: 1.5 * 2^52 + k has k in its low
 * bits (no int64 vector conversion before AVX-512). */
LANES f64xn small_to_double(i64xn k)
{
    const u64xn magic_bits = (u64xn){0} + 0x4338000000000000; /* 0x1.8p52 */
    return (f64xn)(magic_bits + (u64xn)k) - 0x1.8p52;
}

/* log(x 2^scale) for a positive normal x, without branches (a random
 * operand would mispredict them): x = m 2^k exactly, m in about [sqrt(1/2),
 * sqrt(2)), by moving the exponent bits (musl's reduction), then k ln 2 +
 * log(m) with ln 2 split in two so that k * LN2_HI is exact. */
LANES f64xn log_normal(f64xn x, i64xn scale)
{
    u64xn bits = (u64xn)x;
    u64xn high = ((bits >> 32) + (0x3ff00000 - 0x3fe6a09e)) & 0xffffffff;
    i64xn k = (i64xn)(high >> 20) - 0x3ff + scale;
    bits = ((high & 0x000fffff) + 0x3fe6a09e) << 32 | (bits & 0xffffffff);
    f64xn f = (f64xn)bits - 1; /* exact (Sterbenz) */
    f64xn s = f / (2 + f), z = s * s, w = z * z;
    f64xn r = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7))) + w * (LG2 + w * (LG4 + w * LG6));
    f64xn hfsq = 0.5 * f * f, dk = small_to_double(k);
    return dk * LN2_HI - ((hfsq - (s * (hfsq + r) + dk * LN2_LO)) - f);
}

/* Natural log of any x: subnormals are scaled by 2^54 first (exact). */
double rng_log(double x)
{
    if (!(x > 0))
        return x == 0 ? -INFINITY : NAN;
    if (x == INFINITY)
        return x;
    bool subnormal = x < DBL_MIN;
    i64xn scale = {subnormal ? -54 : 0};
    return log_normal(splat(subnormal ? x * 0x1p54 : x), scale)[0];
}

/* sin and cos on [-pi/4, pi/4]: fdlibm's __kernel_sin and __kernel_cos. */
static const double S1 = -0x1.5555555555549p-3, S2 = 0x1.111111110f8a6p-7,
                    S3 = -0x1.a01a019c161d5p-13, S4 = 0x1.71de357b1fe7dp-19,
                    S5 = -0x1.ae5e68a2b9cebp-26, S6 = 0x1.5d93a5acfd57cp-33;
static const double C1 = 0x1.555555555554cp-5, C2 = -0x1.6c16c16c15177p-10,
                    C3 = 0x1.a01a019cb1590p-16, C4 = -0x1.27e4f809c52adp-22,
                    C5 = 0x1.1ee9ebdb4b1c4p-29, C6 = -0x1.8fae9be8838d4p-37;

LANES f64xn kernel_sin(f64xn x)
{
    f64xn z = x * x, v = z * x;
    f64xn r = S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)));
    return x + v * (S1 + z * r);
}

LANES f64xn kernel_cos(f64xn x)
{
    f64xn z = x * x, w = z * z;
    f64xn r = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6));
    f64xn hz = 0.5 * z;
    w = 1 - hz;
    return w + (((1 - w) - hz) + z * r);
}

/* sin and cos of 2 pi turns, turns in [0, 1) with at most 53 significant
 * bits after the binary point (a unit). The reduction is exact: 4 turns =
 * n + f with n the nearest integer (the quadrant) and |f| <= 1/2, both
 * without rounding (t + 1/2 rounds only at or above 4, where the integer
 * part stays 4); only x = f pi/2 rounds, by half an ulp. The quadrant
 * selects and signs by bit operations, not branches (it is random):
 * sin(q pi/2 + x) is sin x for even q, cos x for odd, negated in quadrants
 * 2 and 3; cos(q pi/2 + x) the other, negated in quadrants 1 and 2. */
LANES void sincos_turns(f64xn turns, f64xn *sine, f64xn *cosine)
{
    f64xn t = 4 * turns;
    i32xn n32 = __builtin_convertvector(t + 0.5, i32xn);
    f64xn x = (t - __builtin_convertvector(n32, f64xn)) * 0x1.921fb54442d18p+0;
    u64xn n = (u64xn) __builtin_convertvector(n32, i64xn);
    u64xn s = (u64xn)kernel_sin(x), c = (u64xn)kernel_cos(x), odd = -(n & 1);
    *sine = (f64xn)(((c & odd) | (s & ~odd)) ^ (n & 2) << 62);
    *cosine = (f64xn)(((s & odd) | (c & ~odd)) ^ ((n + 1) & 2) << 62);
}

void rng_sincos_turns(double turns, double *sine, double *cosine)
{
    f64xn s, c;
    sincos_turns(splat(turns), &s, &c);
    *sine = s[0];
    *cosine = c[0];
}

LANES f64xn units(u64xn bits)
{
    return __builtin_convertvector((i64xn)(bits >> 11), f64xn) * 0x1p-53;
}

/* The standard normals of indices 2p .. 2p + 15 (eight pairs) from their
 * bits (Box-Muller): u1 from each pair's first value, u2 from its second. */
LANES void normal_pairs(const uint64_t bits[2 * VECTOR_LANES], double z[2 * VECTOR_LANES])
{
    u64xn low, high;
    memcpy(&low, bits, sizeof low);
    memcpy(&high, bits + VECTOR_LANES, sizeof high);
    f64xn u1 = /* (0, 1], exact */
        1 - units(__builtin_shufflevector(low, high, 0, 2, 4, 6, 8, 10, 12, 14));
    f64xn r = -2 * log_normal(u1, (i64xn){0}), sine, cosine;
    for (int l = 0; l < VECTOR_LANES; l++)
        r[l] = sqrt(r[l]);
    sincos_turns(units(__builtin_shufflevector(low, high, 1, 3, 5, 7, 9, 11, 13, 15)), &sine,
                 &cosine);
    f64xn first = r * cosine, second = r * sine;
    f64xn out[2] = {__builtin_shufflevector(first, second, 0, 8, 1, 9, 2, 10, 3, 11),
                    __builtin_shufflevector(first, second, 4, 12, 5, 13, 6, 14, 7, 15)};
    memcpy(z, out, sizeof out);
}

/* ---- Conversions -------------------------------------------------------- */

/* x rounded to the nearest integer, ties to even, exactly and whatever the
 * rounding mode (|x| >= 2^52 is already an integer). */
static inline double round_even(double x)
{
    if (!(x > -0x1p52 && x < 0x1p52))
        return x;
    int64_t t = (int64_t)x;
    double d = x - (double)t; /* exact, |d| < 1 */
    if (d > 0.5 || (d == 0.5 && (t & 1)))
        t++;
    else if (d < -0.5 || (d == -0.5 && (t & 1)))
        t--;
    return (double)t;
}

/* x rounded and clamped to [min, max]; NaN gives 0. */
static inline int64_t to_signed(double x, int64_t min, int64_t max)
{
    if (x != x)
        return 0;
    x = round_even(x);
    if (x <= (double)min)
        return min;
    if (x >= (double)max) /* (double)INT64_MAX is 2^63: below it, x fits */
        return max;
    return (int64_t)x;
}

static inline uint64_t to_unsigned(double x, uint64_t max)
{
    if (!(x > 0))
        return 0;
    x = round_even(x);
    if (x >= (double)max)
        return max;
    return (uint64_t)x;
}

/* Two's complement without implementation-defined conversion. */
static inline int64_t as_signed(uint64_t v)
{
    return v <= INT64_MAX ? (int64_t)v : -(int64_t)~v - 1;
}

/* out[first + k] = v[k] converted to the type, for k < n. */
static void store_reals(void *out, enum value_type type, size_t first, const double *v, size_t n)
{
    switch (type) {
    case VALUE_I16:
        for (size_t k = 0; k < n; k++)
            ((int16_t *)out)[first + k] = (int16_t)to_signed(v[k], INT16_MIN, INT16_MAX);
        break;
    case VALUE_U16:
        for (size_t k = 0; k < n; k++)
            ((uint16_t *)out)[first + k] = (uint16_t)to_unsigned(v[k], UINT16_MAX);
        break;
    case VALUE_I32:
        for (size_t k = 0; k < n; k++)
            ((int32_t *)out)[first + k] = (int32_t)to_signed(v[k], INT32_MIN, INT32_MAX);
        break;
    case VALUE_U32:
        for (size_t k = 0; k < n; k++)
            ((uint32_t *)out)[first + k] = (uint32_t)to_unsigned(v[k], UINT32_MAX);
        break;
    case VALUE_I64:
        for (size_t k = 0; k < n; k++)
            ((int64_t *)out)[first + k] = to_signed(v[k], INT64_MIN, INT64_MAX);
        break;
    case VALUE_U64:
        for (size_t k = 0; k < n; k++)
            ((uint64_t *)out)[first + k] = to_unsigned(v[k], UINT64_MAX);
        break;
    case VALUE_F32:
        for (size_t k = 0; k < n; k++)
            ((float *)out)[first + k] = (float)v[k];
        break;
    default:
        memcpy((double *)out + first, v, n * sizeof *v);
        break;
    }
}

/* out[first + k] = v[k], integers already inside the type's range (two's
 * complement in 64 bits for signed types and reals). */
static void store_integers(void *out, enum value_type type, size_t first, const uint64_t *v,
                           size_t n)
{
    for (size_t k = 0; k < n; k++) {
        size_t i = first + k;
        switch (type) {
        case VALUE_I16:
            ((int16_t *)out)[i] = (int16_t)as_signed(v[k]);
            break;
        case VALUE_U16:
            ((uint16_t *)out)[i] = (uint16_t)v[k];
            break;
        case VALUE_I32:
            ((int32_t *)out)[i] = (int32_t)as_signed(v[k]);
            break;
        case VALUE_U32:
            ((uint32_t *)out)[i] = (uint32_t)v[k];
            break;
        case VALUE_I64:
            ((int64_t *)out)[i] = as_signed(v[k]);
            break;
        case VALUE_U64:
            ((uint64_t *)out)[i] = v[k];
            break;
        case VALUE_F32:
            ((float *)out)[i] = (float)as_signed(v[k]);
            break;
        default:
            ((double *)out)[i] = (double)as_signed(v[k]);
            break;
        }
    }
}

/* ---- The plan: a spec made ready for the workers ----------------------- */

struct rng_plan {
    void *out;
    enum value_type type;
    enum input_distribution distribution;
    struct rng_key key;
    double a, b;
    double width;      /* uniform: b - a */
    double top;        /* uniform: the largest double in [a, b) */
    float f32_lo;      /* uniform into f32: the smallest float >= a */
    float f32_hi;      /*   and the largest float < b */
    uint64_t int_lo;   /* uniform_int: the bounds, rounded and clamped to */
    uint64_t int_span; /*   the type (two's complement), and hi - lo */
    bool wide;         /* the blocks by philox_wide */
};

/* The integer bounds of uniform_int inside the type's range (int64 for
 * reals); a > b gives the single value a. */
static void plan_integer_bounds(struct rng_plan *plan)
{
    static const int64_t min[] = {INT16_MIN, 0, INT32_MIN, 0, INT64_MIN, 0, INT64_MIN, INT64_MIN};
    static const int64_t max[] = {INT16_MAX, 0, INT32_MAX, 0, INT64_MAX, 0, INT64_MAX, INT64_MAX};
    static const uint64_t umax[] = {0, UINT16_MAX, 0, UINT32_MAX, 0, UINT64_MAX, 0, 0};
    uint64_t lo, hi;
    if (umax[plan->type]) {
        lo = to_unsigned(plan->a, umax[plan->type]);
        hi = to_unsigned(plan->b, umax[plan->type]);
        hi = hi < lo ? lo : hi;
    } else {
        int64_t slo = to_signed(plan->a, min[plan->type], max[plan->type]);
        int64_t shi = to_signed(plan->b, min[plan->type], max[plan->type]);
        lo = (uint64_t)slo;
        hi = shi < slo ? lo : (uint64_t)shi;
    }
    plan->int_lo = lo;
    plan->int_span = hi - lo;
}

/* The bounds of uniform's [a, b) for doubles and floats. */
static void plan_real_bounds(struct rng_plan *plan)
{
    double a = plan->a, b = plan->b;
    plan->width = b - a;
    plan->top = b > a ? nextafter(b, -INFINITY) : a;
    float lo = (float)a, hi = (float)b;
    if ((double)lo < a)
        lo = nextafterf(lo, INFINITY);
    if ((double)hi >= b)
        hi = nextafterf(hi, -INFINITY);
    plan->f32_lo = lo;
    plan->f32_hi = hi;
}

static bool plan_init(struct rng_plan *plan, void *out, enum value_type type,
                      const struct input_spec *spec, struct rng_key key)
{
    if ((unsigned)type >= VALUE_TYPE_COUNT || (unsigned)spec->distribution > INPUT_POISON)
        return false;
    *plan = (struct rng_plan){.out = out,
                              .type = type,
                              .distribution = spec->distribution,
                              .key = key,
                              .a = spec->a,
                              .b = spec->b,
                              .wide = wide_blocks_wanted && wide_blocks_run_here()};
    plan_real_bounds(plan);
    plan_integer_bounds(plan);
    return true;
}

/* ---- Distributions, one batch at a time -------------------------------- */

/* a + (b - a) u, kept inside [a, b) after rounding to the element type. */
static inline double uniform_value(const struct rng_plan *plan, uint64_t bits)
{
    double x = plan->a + plan->width * unit_from_bits(bits);
    if (x > plan->top)
        x = plan->top;
    if (plan->type == VALUE_F32 && plan->f32_lo <= plan->f32_hi) {
        float y = (float)x;
        y = y < plan->f32_lo ? plan->f32_lo : y > plan->f32_hi ? plan->f32_hi : y;
        x = y;
    }
    return x;
}

static void uniform_batch(const struct rng_plan *plan, uint64_t begin, size_t n, double *v)
{
    uint64_t bits[RNG_BATCH];
    rng_fill_bits(plan->key, plan->wide, begin, n, bits);
    for (size_t k = 0; k < n; k++)
        v[k] = uniform_value(plan, bits[k]);
}

/* Whole groups of eight pairs from the even index at or below `begin`,
 * then the part asked. Cloned for AVX-512 and AVX2 (chosen at load time):
 * the same operations, in registers of 8 and 4 lanes instead of 2. */
__attribute__((target_clones("avx512f", "avx2", "default"))) static void
normal_batch(const struct rng_plan *plan, uint64_t begin, size_t n, double *v)
{
    enum { GROUP = 2 * VECTOR_LANES };
    uint64_t bits[RNG_BATCH + GROUP];
    double z[RNG_BATCH + GROUP];
    size_t skip = begin & 1, groups = (skip + n + GROUP - 1) / GROUP;
    rng_fill_bits(plan->key, plan->wide, begin - skip, GROUP * groups, bits);
    for (size_t g = 0; g < groups; g++)
        normal_pairs(&bits[GROUP * g], &z[GROUP * g]);
    for (size_t k = 0; k < n; k++)
        v[k] = plan->a + plan->b * z[skip + k];
}

static void arange_batch(const struct rng_plan *plan, uint64_t begin, size_t n, double *v)
{
    for (size_t k = 0; k < n; k++)
        v[k] = plan->a + (double)(begin + k) * plan->b;
}

/* The high and low words of the 128-bit product x * y. */
static inline uint64_t mul_hi_lo(uint64_t x, uint64_t y, uint64_t *lo)
{
    uint64_t x0 = (uint32_t)x, x1 = x >> 32, y0 = (uint32_t)y, y1 = y >> 32;
    uint64_t p00 = x0 * y0, p01 = x0 * y1, p10 = x1 * y0, p11 = x1 * y1;
    uint64_t middle = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    *lo = (middle << 32) | (uint32_t)p00;
    return p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
}

/* Uniform in [0, span] from the index's bits, unbiased (Lemire 2019): the
 * high word of bits * (span + 1), rejected when the low word falls in the
 * 2^64 mod (span + 1) values that would favour some results. */
static uint64_t bounded(struct rng_key key, uint64_t index, uint64_t bits, uint64_t span)
{
    if (span == UINT64_MAX)
        return bits;
    uint64_t range = span + 1, lo, hi = mul_hi_lo(bits, range, &lo);
    for (uint64_t attempt = 1; lo < range && attempt < RNG_MAX_ATTEMPTS; attempt++) {
        if (lo >= (0 - range) % range)
            break;
        struct rng_key retry = {key.seed, key.stream ^ attempt * RNG_RETRY_STRIDE};
        hi = mul_hi_lo(rng_u64(retry, index), range, &lo);
    }
    return hi;
}

static void uniform_int_batch(const struct rng_plan *plan, uint64_t begin, size_t n, uint64_t *v)
{
    rng_fill_bits(plan->key, plan->wide, begin, n, v);
    for (size_t k = 0; k < n; k++)
        v[k] = plan->int_lo + bounded(plan->key, begin + k, v[k], plan->int_span);
}

/* ---- Filling a range, on threads --------------------------------------- */

static void fill_batch(const struct rng_plan *plan, size_t begin, size_t n)
{
    double reals[RNG_BATCH];
    uint64_t integers[RNG_BATCH];
    switch (plan->distribution) {
    case INPUT_UNIFORM:
        uniform_batch(plan, begin, n, reals);
        break;
    case INPUT_UNIFORM_INT:
        uniform_int_batch(plan, begin, n, integers);
        store_integers(plan->out, plan->type, begin, integers, n);
        return;
    case INPUT_NORMAL:
        normal_batch(plan, begin, n, reals);
        break;
    case INPUT_ARANGE:
        arange_batch(plan, begin, n, reals);
        break;
    default: /* INPUT_CONSTANT */
        for (size_t k = 0; k < n; k++)
            reals[k] = plan->a;
        break;
    }
    store_reals(plan->out, plan->type, begin, reals, n);
}

static void fill_range(const struct rng_plan *plan, size_t begin, size_t end)
{
    size_t size = value_type_bytes(plan->type);
    if (plan->distribution == INPUT_ZERO || plan->distribution == INPUT_POISON) {
        int byte = plan->distribution == INPUT_ZERO ? 0 : 0xFF;
        memset((char *)plan->out + begin * size, byte, (end - begin) * size);
        return;
    }
    for (size_t i = begin; i < end; i += RNG_BATCH)
        fill_batch(plan, i, end - i < RNG_BATCH ? end - i : RNG_BATCH);
}

struct rng_chunk {
    const struct rng_plan *plan;
    size_t begin, end;
};

static void *fill_chunk(void *arg)
{
    const struct rng_chunk *chunk = arg;
    fill_range(chunk->plan, chunk->begin, chunk->end);
    return NULL;
}

/* How many threads share `count` elements: `threads` (<= 0: the cores),
 * but none with less than RNG_MIN_CHUNK elements. */
static int thread_count(int threads, size_t count)
{
    long n = threads > 0 ? threads : sysconf(_SC_NPROCESSORS_ONLN);
    size_t most = count / RNG_MIN_CHUNK;
    if (n < 1 || most < 1)
        return 1;
    if ((size_t)n > most)
        n = (long)most;
    return n > RNG_MAX_THREADS ? RNG_MAX_THREADS : (int)n;
}

/* The first element of chunk t of n (contiguous, sizes differing by <= 1). */
static size_t chunk_begin(size_t count, int t, int n)
{
    return count / (size_t)n * (size_t)t + count % (size_t)n * (size_t)t / (size_t)n;
}

bool inputs_generate(void *out, enum value_type type, size_t count, const struct input_spec *spec,
                     struct rng_key key, int threads)
{
    struct rng_plan plan;
    if (!plan_init(&plan, out, type, spec, key))
        return false;
    int n = thread_count(threads, count);
    pthread_t thread[RNG_MAX_THREADS];
    struct rng_chunk chunk[RNG_MAX_THREADS];
    bool started[RNG_MAX_THREADS];
    for (int t = 1; t < n; t++) {
        chunk[t] =
            (struct rng_chunk){&plan, chunk_begin(count, t, n), chunk_begin(count, t + 1, n)};
        started[t] = pthread_create(&thread[t], NULL, fill_chunk, &chunk[t]) == 0;
    }
    fill_range(&plan, 0, chunk_begin(count, 1, n));
    /* A thread that could not start leaves its chunk to this one. */
    for (int t = 1; t < n; t++)
        if (started[t])
            pthread_join(thread[t], NULL);
        else
            fill_chunk(&chunk[t]);
    return true;
}

bool input_distribution_parse(const char *name, enum input_distribution *distribution)
{
    static const char *const names[] = {"uniform", "uniform_int", "normal", "constant",
                                        "arange",  "zero",        "poison"};
    for (size_t d = 0; d < sizeof names / sizeof *names; d++)
        if (strcmp(name, names[d]) == 0) {
            *distribution = (enum input_distribution)d;
            return true;
        }
    return false;
}
