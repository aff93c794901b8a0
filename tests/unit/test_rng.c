/*
 * Unit tests of the inputs' random numbers (grader/rng.c): Philox-4x32-10
 * against its published known-answer vectors, values pinned forever (a
 * seed must reproduce a grading result on any machine, any year), every
 * distribution's range and conversion to every element type, statistical
 * sanity, independence from the number of threads, and the accuracy of the
 * elementary functions written without libm.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/rng.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TWO_PI   6.283185307179586
#define TWO_PI_L 6.283185307179586476925286766559006L
#define STAT_N   1000000
#define THREAD_N 300001 /* odd, and enough for 7 threads of >= 2^15 elements */

static const struct rng_key test_key = {2024, 3};

/* `count` elements of `type` from (spec, key), on `threads` threads. */
static void *generate(enum value_type type, size_t count, struct input_spec spec,
                      struct rng_key key, int threads)
{
    void *out = malloc(count * value_type_bytes(type) + 1);
    assert_non_null(out);
    assert_true(inputs_generate(out, type, count, &spec, key, threads));
    return out;
}

/* The high word of the 128-bit product x * y. */
static uint64_t mul_high(uint64_t x, uint64_t y)
{
    uint64_t x0 = (uint32_t)x, x1 = x >> 32, y0 = (uint32_t)y, y1 = y >> 32;
    uint64_t p00 = x0 * y0, p01 = x0 * y1, p10 = x1 * y0;
    uint64_t middle = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    return x1 * y1 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
}

/* Element i of a buffer of `type`, as a double (exact for the values
 * tested: small integers, the types' limits, reals). */
static double element(const void *v, enum value_type type, size_t i)
{
    switch (type) {
    case VALUE_I16:
        return ((const int16_t *)v)[i];
    case VALUE_U16:
        return ((const uint16_t *)v)[i];
    case VALUE_I32:
        return ((const int32_t *)v)[i];
    case VALUE_U32:
        return ((const uint32_t *)v)[i];
    case VALUE_I64:
        return (double)((const int64_t *)v)[i];
    case VALUE_U64:
        return (double)((const uint64_t *)v)[i];
    case VALUE_F32:
        return ((const float *)v)[i];
    default:
        return ((const double *)v)[i];
    }
}

static struct input_spec spec_of(enum input_distribution d, double a, double b)
{
    return (struct input_spec){d, a, b};
}

/* ---- The generator ------------------------------------------------------ */

/* Random123's kat_vectors, "philox4x32 10": counter, key, expected output. */
static void philox_matches_known_answers(void **state)
{
    (void)state;
    static const uint32_t vectors[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
         0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
         0x94fdcceb, 0x5001e420, 0x24126ea1},
    };
    for (int v = 0; v < 3; v++) {
        uint32_t out[4];
        rng_philox4x32_10(vectors[v], vectors[v] + 4, out);
        for (int w = 0; w < 4; w++)
            assert_int_equal(out[w], vectors[v][6 + w]);
    }
}

/* rng_u64(seed, stream, 2p + h) is words 2h, 2h + 1 of Philox with key
 * seed and counter (p, stream), low words first. */
static void rng_u64_is_philox_of_index_and_stream(void **state)
{
    (void)state;
    struct rng_key zero = {0, 0};
    assert_int_equal(rng_u64(zero, 0), 0xe169c58d6627e8d5u);
    assert_int_equal(rng_u64(zero, 1), 0x9b00dbd8bc57ac4cu);
    struct rng_key key = {0x299f31d0a4093822u, 0x0370734413198a2eu};
    uint64_t p = 0x05a308d3243f6a88u;
    uint32_t counter[4] = {(uint32_t)p, (uint32_t)(p >> 32), 0x13198a2e, 0x03707344};
    uint32_t philox_key[2] = {0xa4093822, 0x299f31d0}, out[4];
    rng_philox4x32_10(counter, philox_key, out);
    assert_int_equal(rng_u64(key, 2 * p), out[0] | (uint64_t)out[1] << 32);
    assert_int_equal(rng_u64(key, 2 * p + 1), out[2] | (uint64_t)out[3] << 32);
}

/* The contract: these values never change. */
static void first_values_are_pinned(void **state)
{
    (void)state;
    static const struct rng_key keys[3] = {{0, 0}, {42, 1}, {0x0123456789abcdefu, 7}};
    static const uint64_t bits[3][5] = {
        {0xe169c58d6627e8d5u, 0x9b00dbd8bc57ac4cu, 0x5cb200dbf8e4cca4u, 0x097eff67b1a574ebu,
         0x51c732a604faa329u},
        {0x2051e91302933769u, 0xb62c409c3b68b038u, 0xfdd21d9420ff9139u, 0x39c6bd081b0af4ecu,
         0x1f70ab0736794079u},
        {0x8ec43d2634b23a77u, 0xa6c02cf2fdbf9305u, 0x1ee17293f9a36445u, 0xc59490403ec6e16du,
         0x6f5e7b6a69dc405du},
    };
    static const double units[3][3] = {
        {0x1.c2d38b1acc4fdp-1, 0x1.3601b7b178af5p-1, 0x1.72c8036fe3932p-2},
        {0x1.028f489814998p-3, 0x1.6c58813876d16p-1, 0x1.fba43b2841ff2p-1},
        {0x1.1d887a4c69647p-1, 0x1.4d8059e5fb7f2p-1, 0x1.ee17293f9a36p-4},
    };
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 5; i++)
            assert_int_equal(rng_u64(keys[k], (uint64_t)i), bits[k][i]);
        for (int i = 0; i < 3; i++)
            assert_true(rng_unit(keys[k], (uint64_t)i) == units[k][i]);
    }
}

static void distributions_are_pinned(void **state)
{
    (void)state;
    static const double normal[4] = {0x1.00d31dbec785cp-2, -0x1.62a00d7a997aep-1,
                                     -0x1.a481af62167adp+0, -0x1.0e7be0b27735p-1};
    static const double uniform[4] = {-0x1.0cabc74d0b522p-1, 0x1.389ee0c442a4p-1,
                                      0x1.18e6384be46c6p-1, 0x1.95b37798085ap-4};
    static const int32_t greyscale[8] = {60, 205, 197, 140, 203, 25, 35, 18};
    double *n = generate(VALUE_F64, 4, spec_of(INPUT_NORMAL, 0, 1), test_key, 1);
    double *u = generate(VALUE_F64, 4, spec_of(INPUT_UNIFORM, -1, 1), test_key, 1);
    int32_t *g = generate(VALUE_I32, 8, spec_of(INPUT_UNIFORM_INT, 0, 254), test_key, 1);
    for (int i = 0; i < 4; i++) {
        assert_true(n[i] == normal[i]);
        assert_true(u[i] == uniform[i]);
    }
    for (int i = 0; i < 8; i++)
        assert_int_equal(g[i], greyscale[i]);
    free(n);
    free(u);
    free(g);
}

/* FNV-1a of the bytes. */
static uint64_t digest(const void *data, size_t size)
{
    const unsigned char *byte = data;
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ byte[i]) * 0x100000001b3u;
    return h;
}

/* Every last bit of 2^20 elements, pinned: a compiler that fuses a * b + c
 * or a libm-dependent change would show here. */
/* Back to the default blocks after a test that chose them, failed or not. */
static int default_blocks(void **state)
{
    (void)state;
    rng_wide_blocks(true);
    return 0;
}

static void digests_are_pinned(void **state)
{
    (void)state;
    static const struct {
        enum value_type type;
        struct input_spec spec;
        uint64_t digest;
    } cases[] = {
        {VALUE_F64, {INPUT_NORMAL, 0, 1}, 0xcd1130fbc6ade78eu},
        {VALUE_F32, {INPUT_NORMAL, 10, 3}, 0xcca19127032b45a0u},
        {VALUE_F64, {INPUT_UNIFORM, -1, 1}, 0xfb0cda304808f5f9u},
        {VALUE_F32, {INPUT_UNIFORM, 0, 1}, 0x1d71beb0fa527ea6u},
        {VALUE_I32, {INPUT_UNIFORM_INT, -1000, 1000}, 0x2edef9dbc0ce072du},
        {VALUE_F32, {INPUT_UNIFORM_INT, 0, 254}, 0x105d8ce545338ddau},
        {VALUE_F32, {INPUT_ARANGE, 0.5, 0.1}, 0xd21365acd11d7250u},
    };
    size_t n = 1 << 20;
    /* the generator's blocks one way, then the other (AVX-512) where it runs */
    bool has_wide = rng_wide_blocks(false);
    for (int wide = 0; wide <= (int)has_wide; wide++) {
        rng_wide_blocks(wide);
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            void *v = generate(cases[c].type, n, cases[c].spec, test_key, 0);
            uint64_t h = digest(v, n * value_type_bytes(cases[c].type));
            if (h != cases[c].digest)
                print_message("case %zu: digest 0x%016llxu\n", c, (unsigned long long)h);
            assert_int_equal(h, cases[c].digest);
            free(v);
        }
    }
}

static void unit_is_the_top_53_bits(void **state)
{
    (void)state;
    for (uint64_t i = 0; i < 10000; i++) {
        double u = rng_unit(test_key, i);
        assert_true(u >= 0 && u < 1);
        assert_true(u == (double)(rng_u64(test_key, i) >> 11) / 9007199254740992.0);
    }
}

/* Sample correlation of the units of two keys over n indices. */
static double correlation(struct rng_key x, struct rng_key y, uint64_t n)
{
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (uint64_t i = 0; i < n; i++) {
        double a = rng_unit(x, i), b = rng_unit(y, i);
        sx += a, sy += b, sxx += a * a, syy += b * b, sxy += a * b;
    }
    double cov = sxy / n - sx / n * sy / n;
    return cov / sqrt((sxx / n - sx / n * sx / n) * (syy / n - sy / n * sy / n));
}

static void streams_and_seeds_are_independent(void **state)
{
    (void)state;
    struct rng_key keys[4] = {{1, 0}, {1, 1}, {1, 2}, {2, 0}};
    for (int x = 0; x < 4; x++)
        for (int y = x + 1; y < 4; y++) {
            for (uint64_t i = 0; i < 1000; i++)
                assert_true(rng_u64(keys[x], i) != rng_u64(keys[y], i));
            /* 1e5 samples: the correlation's standard deviation is 0.003 */
            assert_true(fabs(correlation(keys[x], keys[y], 100000)) < 0.015);
        }
    /* neighbouring indices too: index i against index i + 1 */
    struct rng_key shifted = {1, 0};
    double s = 0;
    for (uint64_t i = 0; i < 100000; i++)
        s += (rng_unit(shifted, i) - 0.5) * (rng_unit(shifted, i + 1) - 0.5);
    assert_true(fabs(s / 100000 * 12) < 0.015);
}

/* ---- Statistics --------------------------------------------------------- */

static void mean_and_variance(const double *v, size_t n, double *mean, double *variance)
{
    double s = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    *mean = s / n;
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - *mean) * (v[i] - *mean);
    *variance = ss / (n - 1);
}

static void uniform_has_the_right_moments(void **state)
{
    (void)state;
    double *u = generate(VALUE_F64, STAT_N, spec_of(INPUT_UNIFORM, 0, 1), test_key, 0);
    double mean, variance;
    mean_and_variance(u, STAT_N, &mean, &variance);
    /* standard errors: 2.9e-4 for the mean, 7.5e-5 for the variance */
    assert_true(fabs(mean - 0.5) < 0.0015);
    assert_true(fabs(variance - 1.0 / 12) < 0.0004);
    free(u);
}

static void normal_has_the_right_moments(void **state)
{
    (void)state;
    double *z = generate(VALUE_F64, STAT_N, spec_of(INPUT_NORMAL, 3, 2), test_key, 0);
    double mean, variance, fourth = 0, beyond = 0;
    mean_and_variance(z, STAT_N, &mean, &variance);
    for (size_t i = 0; i < STAT_N; i++) {
        double t = (z[i] - 3) / 2;
        fourth += t * t * t * t;
        beyond += fabs(t) > 1.959963984540054;
    }
    /* standard errors: 0.002 for the mean, 0.0057 for the variance (4) */
    assert_true(fabs(mean - 3) < 0.01);
    assert_true(fabs(variance - 4) < 0.03);
    assert_true(fabs(fourth / STAT_N - 3) < 0.05);     /* kurtosis; s.e. 0.0098 */
    assert_true(fabs(beyond / STAT_N - 0.05) < 0.001); /* s.e. 0.00022 */
    free(z);
}

/* Elements 2p and 2p + 1 are Box-Muller of units 2p and 2p + 1, as libm
 * computes it: within 1e-14 of the radius, and r^2 within 1e-14 relative. */
static void normal_is_box_muller_of_the_units(void **state)
{
    (void)state;
    double *z = generate(VALUE_F64, STAT_N, spec_of(INPUT_NORMAL, 0, 1), test_key, 0);
    for (size_t p = 0; p < STAT_N / 2; p++) {
        double u1 = 1 - rng_unit(test_key, 2 * p), u2 = rng_unit(test_key, 2 * p + 1);
        double r2 = -2 * log(u1), r = sqrt(r2);
        assert_true(fabs(z[2 * p] - r * cos(TWO_PI * u2)) <= 1e-14 * (r + 1));
        assert_true(fabs(z[2 * p + 1] - r * sin(TWO_PI * u2)) <= 1e-14 * (r + 1));
        double s2 = z[2 * p] * z[2 * p] + z[2 * p + 1] * z[2 * p + 1];
        assert_true(fabs(s2 - r2) <= 1e-14 * r2);
    }
    free(z);
}

static void uniform_int_hits_every_value_equally(void **state)
{
    (void)state;
    int32_t *v = generate(VALUE_I32, 700000, spec_of(INPUT_UNIFORM_INT, -3, 3), test_key, 0);
    size_t count[7] = {0};
    for (size_t i = 0; i < 700000; i++) {
        assert_true(v[i] >= -3 && v[i] <= 3);
        count[v[i] + 3]++;
    }
    for (int k = 0; k < 7; k++) /* expected 1e5, standard deviation 293 */
        assert_in_range(count[k], 100000 - 1500, 100000 + 1500);
    /* the value is the high word of bits * 7 (rejection: 2 in 2^64) */
    for (uint64_t i = 0; i < 1000; i++)
        assert_int_equal(v[i], (int64_t)mul_high(rng_u64(test_key, i), 7) - 3);
    free(v);
}

/* ---- Ranges and conversions -------------------------------------------- */

static void uniform_stays_in_range(void **state)
{
    (void)state;
    double *d = generate(VALUE_F64, 100000, spec_of(INPUT_UNIFORM, -2.5, 7.25), test_key, 0);
    float *f = generate(VALUE_F32, 100000, spec_of(INPUT_UNIFORM, -2.5, 7.25), test_key, 0);
    for (size_t i = 0; i < 100000; i++) {
        assert_true(d[i] >= -2.5 && d[i] < 7.25);
        assert_true(d[i] == -2.5 + 9.75 * rng_unit(test_key, i));
        assert_true(f[i] >= -2.5f && f[i] < 7.25f);
        assert_true(f[i] == (float)d[i] || (float)d[i] == 7.25f);
    }
    free(d);
    free(f);
}

/* [1, 1 + ulp) holds one value: half the draws round up to b and must be
 * clamped back; b not a float (0.1) must stay out of reach too. */
static void uniform_rounding_up_to_b_is_clamped(void **state)
{
    (void)state;
    double *d = generate(VALUE_F64, 10000, spec_of(INPUT_UNIFORM, 1, 1 + DBL_EPSILON), test_key, 1);
    float *f = generate(VALUE_F32, 10000, spec_of(INPUT_UNIFORM, 1, 1 + FLT_EPSILON), test_key, 1);
    float *tenth = generate(VALUE_F32, 100000, spec_of(INPUT_UNIFORM, 0, 0.1), test_key, 0);
    float *above = generate(VALUE_F32, 10000, spec_of(INPUT_UNIFORM, 0.1, 0.2), test_key, 1);
    for (size_t i = 0; i < 10000; i++) {
        assert_true(d[i] == 1);
        assert_true(f[i] == 1);
        assert_true((double)above[i] >= 0.1 && (double)above[i] < 0.2);
    }
    float largest = 0;
    for (size_t i = 0; i < 100000; i++) {
        assert_true(tenth[i] >= 0 && (double)tenth[i] < 0.1);
        largest = tenth[i] > largest ? tenth[i] : largest;
    }
    assert_true(largest > 0.0999f);
    free(d);
    free(f);
    free(tenth);
    free(above);
}

/* A uniform over [-40000, 40000) into each integer type: rounded, clamped. */
static void uniform_into_integers_is_clamped(void **state)
{
    (void)state;
    struct input_spec spec = spec_of(INPUT_UNIFORM, -40000, 40000);
    int16_t *i16 = generate(VALUE_I16, 10000, spec, test_key, 1);
    uint16_t *u16 = generate(VALUE_U16, 10000, spec, test_key, 1);
    int64_t *i64 = generate(VALUE_I64, 10000, spec, test_key, 1);
    uint32_t *u32 = generate(VALUE_U32, 10000, spec, test_key, 1);
    bool low = false, high = false;
    for (size_t i = 0; i < 10000; i++) {
        double x = -40000 + 80000 * rng_unit(test_key, i);
        int64_t rounded = (int64_t)nearbyint(x); /* default mode: ties to even */
        assert_int_equal(i64[i], rounded);
        assert_int_equal(i16[i], rounded < -32768 ? -32768 : rounded > 32767 ? 32767 : rounded);
        assert_int_equal(u16[i], rounded < 0 ? 0 : rounded);
        assert_int_equal(u32[i], rounded < 0 ? 0 : rounded);
        low |= i16[i] == -32768;
        high |= i16[i] == 32767;
    }
    assert_true(low && high);
    free(i16);
    free(u16);
    free(i64);
    free(u32);
}

/* uniform_int 0..254 in every type, e.g. greyscales floor(U[0, 255)). */
static void uniform_int_in_every_type(void **state)
{
    (void)state;
    struct input_spec spec = spec_of(INPUT_UNIFORM_INT, 0, 254);
    int32_t *ref = generate(VALUE_I32, 50000, spec, test_key, 1);
    for (int t = 0; t < VALUE_TYPE_COUNT; t++) {
        void *v = generate((enum value_type)t, 50000, spec, test_key, 1);
        for (size_t i = 0; i < 50000; i++)
            assert_true(element(v, (enum value_type)t, i) == ref[i]);
        free(v);
    }
    free(ref);
}

static void uniform_int_bounds_are_clamped_to_the_type(void **state)
{
    (void)state;
    uint16_t *u = generate(VALUE_U16, 10000, spec_of(INPUT_UNIFORM_INT, -5, 3), test_key, 1);
    int16_t *s = generate(VALUE_I16, 10000, spec_of(INPUT_UNIFORM_INT, 32760, 40000), test_key, 1);
    int32_t *one = generate(VALUE_I32, 100, spec_of(INPUT_UNIFORM_INT, 9, 9), test_key, 1);
    bool top = false;
    for (size_t i = 0; i < 10000; i++) {
        assert_in_range(u[i], 0, 3);
        assert_in_range(s[i], 32760, 32767);
        top |= s[i] == 32767;
    }
    for (size_t i = 0; i < 100; i++)
        assert_int_equal(one[i], 9);
    assert_true(top);
    free(u);
    free(s);
    free(one);
}

/* The whole 64-bit range is the bits; a range of 2^63 + 1 values rejects
 * about half the first draws, so the redraws are exercised. */
static void uniform_int_wide_ranges(void **state)
{
    (void)state;
    uint64_t *all = generate(VALUE_U64, 1000, spec_of(INPUT_UNIFORM_INT, 0, 0x1p64), test_key, 1);
    int64_t *sall =
        generate(VALUE_I64, 1000, spec_of(INPUT_UNIFORM_INT, -0x1p63, 0x1p63), test_key, 1);
    for (uint64_t i = 0; i < 1000; i++) {
        assert_int_equal(all[i], rng_u64(test_key, i));
        assert_int_equal((uint64_t)sall[i], rng_u64(test_key, i) + 0x8000000000000000u);
    }
    size_t n = 200000;
    uint64_t *half = generate(VALUE_U64, n, spec_of(INPUT_UNIFORM_INT, 0, 0x1p63), test_key, 0);
    uint64_t *again = generate(VALUE_U64, n, spec_of(INPUT_UNIFORM_INT, 0, 0x1p63), test_key, 3);
    double mean = 0;
    size_t first_kept = 0;
    for (size_t i = 0; i < n; i++) {
        assert_true(half[i] <= 0x8000000000000000u);
        mean += (double)half[i] / n;
        /* the first draw's high word, when it was kept */
        first_kept += half[i] == mul_high(rng_u64(test_key, i), 0x8000000000000001u);
    }
    assert_memory_equal(half, again, n * sizeof *half);
    assert_true(fabs(mean / 0x1p62 - 1) < 0.01);
    assert_in_range(first_kept, n / 4, n * 3 / 4);
    free(all);
    free(sall);
    free(half);
    free(again);
}

static void constant_is_rounded_and_clamped(void **state)
{
    (void)state;
    struct {
        double a;
        enum value_type type;
        double expected;
    } cases[] = {
        {2.5, VALUE_I32, 2},
        {3.5, VALUE_I32, 4},
        {-2.5, VALUE_I32, -2},
        {-2.6, VALUE_I16, -3},
        {2.4999999999999996, VALUE_I32, 2},
        {0.49999999999999994, VALUE_I32, 0},
        {1e6, VALUE_I16, 32767},
        {-1e6, VALUE_I16, -32768},
        {-3, VALUE_U16, 0},
        {70000, VALUE_U16, 65535},
        {-0.4, VALUE_U32, 0},
        {5e9, VALUE_U32, 4294967295.0},
        {-5e9, VALUE_I32, -2147483648.0},
        {1e30, VALUE_U64, 0x1p64},
        {-1e30, VALUE_I64, -0x1p63},
        {NAN, VALUE_I32, 0},
        {0.1, VALUE_F32, (double)0.1f},
        {0.1, VALUE_F64, 0.1},
        {1e300, VALUE_F32, INFINITY},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        void *v = generate(cases[c].type, 3, spec_of(INPUT_CONSTANT, cases[c].a, 0), test_key, 1);
        for (int i = 0; i < 3; i++) {
            assert_true(element(v, cases[c].type, (size_t)i) == cases[c].expected);
        }
        free(v);
    }
    int64_t *big = generate(VALUE_I64, 1, spec_of(INPUT_CONSTANT, 1e30, 0), test_key, 1);
    uint64_t *ubig = generate(VALUE_U64, 1, spec_of(INPUT_CONSTANT, 1e30, 0), test_key, 1);
    assert_true(*big == INT64_MAX && *ubig == UINT64_MAX);
    free(big);
    free(ubig);
}

static void arange_is_exact_then_converted(void **state)
{
    (void)state;
    float *f = generate(VALUE_F32, 1000, spec_of(INPUT_ARANGE, 1, 0.1), test_key, 1);
    int32_t *i32 = generate(VALUE_I32, 1000, spec_of(INPUT_ARANGE, -500, 1), test_key, 1);
    uint16_t *u16 = generate(VALUE_U16, 70000, spec_of(INPUT_ARANGE, 0, 1), test_key, 0);
    for (size_t i = 0; i < 1000; i++) {
        assert_true(f[i] == (float)(1 + (double)i * 0.1));
        assert_int_equal(i32[i], (int32_t)i - 500);
    }
    for (size_t i = 0; i < 70000; i++)
        assert_int_equal(u16[i], i < 65535 ? i : 65535);
    free(f);
    free(i32);
    free(u16);
}

static void zero_and_poison_are_bytes(void **state)
{
    (void)state;
    for (int t = 0; t < VALUE_TYPE_COUNT; t++) {
        size_t bytes = 1000 * value_type_bytes((enum value_type)t);
        unsigned char *z =
            generate((enum value_type)t, 1000, spec_of(INPUT_ZERO, 5, 5), test_key, 1);
        unsigned char *p =
            generate((enum value_type)t, 1000, spec_of(INPUT_POISON, 5, 5), test_key, 1);
        for (size_t i = 0; i < bytes; i++) {
            assert_int_equal(z[i], 0);
            assert_int_equal(p[i], 0xFF);
        }
        free(z);
        free(p);
    }
    float *f = generate(VALUE_F32, 4, spec_of(INPUT_POISON, 0, 0), test_key, 1);
    assert_true(isnan(f[0]) && isnan(f[3]));
    free(f);
}

/* ---- Threads ------------------------------------------------------------ */

/* Any number of threads (so any chunking, odd starts included) gives the
 * same bytes, and a short buffer is the prefix of a long one. */
static void output_does_not_depend_on_threads(void **state)
{
    (void)state;
    static const int threads[] = {2, 3, 7, 0, 64};
    struct input_spec specs[] = {
        spec_of(INPUT_UNIFORM, -1, 1), spec_of(INPUT_UNIFORM_INT, 0, 254),
        spec_of(INPUT_NORMAL, 0, 1),   spec_of(INPUT_CONSTANT, 7, 0),
        spec_of(INPUT_ARANGE, 0, 0.5), spec_of(INPUT_ZERO, 0, 0),
        spec_of(INPUT_POISON, 0, 0),
    };
    enum value_type types[] = {VALUE_F32, VALUE_F64, VALUE_I16, VALUE_U64};
    for (size_t s = 0; s < sizeof specs / sizeof *specs; s++)
        for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
            size_t bytes = value_type_bytes(types[t]);
            void *one = generate(types[t], THREAD_N, specs[s], test_key, 1);
            for (size_t k = 0; k < sizeof threads / sizeof *threads; k++) {
                void *many = generate(types[t], THREAD_N, specs[s], test_key, threads[k]);
                assert_memory_equal(one, many, THREAD_N * bytes);
                free(many);
            }
            void *prefix = generate(types[t], 1001, specs[s], test_key, 1);
            assert_memory_equal(one, prefix, 1001 * bytes);
            free(prefix);
            free(one);
        }
}

/* Element i depends on i only: buffers of every length up to 64 (an odd
 * length ends inside a Box-Muller pair) are prefixes of the longest. */
static void elements_are_pure_functions_of_the_index(void **state)
{
    (void)state;
    double *whole = generate(VALUE_F64, 64, spec_of(INPUT_NORMAL, 0, 1), test_key, 1);
    for (size_t n = 1; n < 64; n++) {
        double *part = generate(VALUE_F64, n, spec_of(INPUT_NORMAL, 0, 1), test_key, 1);
        assert_memory_equal(part, whole, n * sizeof *part);
        free(part);
    }
    free(whole);
}

static void empty_and_invalid_requests(void **state)
{
    (void)state;
    struct input_spec spec = spec_of(INPUT_NORMAL, 0, 1);
    assert_true(inputs_generate(NULL, VALUE_F32, 0, &spec, test_key, 0));
    float f[4];
    assert_false(inputs_generate(f, VALUE_TYPE_COUNT, 4, &spec, test_key, 1));
    spec.distribution = (enum input_distribution)99;
    assert_false(inputs_generate(f, VALUE_F32, 4, &spec, test_key, 1));
}

static void distribution_names_parse(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        enum input_distribution distribution;
    } names[] = {
        {"uniform", INPUT_UNIFORM},   {"uniform_int", INPUT_UNIFORM_INT}, {"normal", INPUT_NORMAL},
        {"constant", INPUT_CONSTANT}, {"arange", INPUT_ARANGE},           {"zero", INPUT_ZERO},
        {"poison", INPUT_POISON},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        enum input_distribution d = INPUT_POISON + 1;
        assert_true(input_distribution_parse(names[i].name, &d));
        assert_int_equal(d, names[i].distribution);
    }
    static const char *const unknown[] = {"gaussian", "Uniform", "uniform ", "", "uniform_i"};
    for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++) {
        enum input_distribution d = INPUT_ARANGE;
        assert_false(input_distribution_parse(unknown[i], &d));
        assert_int_equal(d, INPUT_ARANGE);
    }
}

/* ---- Elementary functions ---------------------------------------------- */

static void log_matches_libm(void **state)
{
    (void)state;
    assert_true(rng_log(1) == 0);
    assert_true(rng_log(0) == -INFINITY);
    assert_true(isnan(rng_log(-1)));
    double worst = 0;
    struct rng_key key = {7, 7};
    for (uint64_t i = 0; i < 2000000; i++) {
        double x;
        if (i < 1000000) /* the Box-Muller domain (0, 1] */
            x = 1 - rng_unit(key, i);
        else if (i < 1500000) /* near 1, where log is small */
            x = 1 + (rng_unit(key, i) - 0.5) * 0x1p-10;
        else /* every exponent, subnormals included */
            x = ldexp(1 + rng_unit(key, i), (int)(rng_u64(key, i + 7) % 2097) - 1074);
        double expected = log(x);
        if (expected != 0) {
            double e = fabs(rng_log(x) - expected) / fabs(expected);
            worst = e > worst ? e : worst;
        }
    }
    assert_true(worst < 1e-14);
}

static void sincos_matches_libm(void **state)
{
    (void)state;
    static const double exact[][3] = {{0, 0, 1}, {0.25, 1, 0}, {0.5, 0, -1}, {0.75, -1, 0}};
    for (int i = 0; i < 4; i++) {
        double s, c;
        rng_sincos_turns(exact[i][0], &s, &c);
        assert_true(fabs(s - exact[i][1]) == 0 && fabs(c - exact[i][2]) == 0);
    }
    struct rng_key key = {9, 9};
    double worst = 0, worst_relative = 0;
    for (uint64_t i = 0; i < 1000000; i++) {
        double t = i < 1000 ? (double)i / 4000 : rng_unit(key, i), s, c;
        rng_sincos_turns(t, &s, &c);
        /* libm in double: 2 pi t rounds, so compare absolutely */
        double e = fmax(fabs(s - sin(TWO_PI * t)), fabs(c - cos(TWO_PI * t)));
        worst = e > worst ? e : worst;
        /* libm in long double: relative, except at the very zeros */
        long double x = TWO_PI_L * t, es = sinl(x), ec = cosl(x);
        if (fabsl(es) > 1e-4L)
            worst_relative = fmax(worst_relative, (double)(fabsl(s - es) / fabsl(es)));
        if (fabsl(ec) > 1e-4L)
            worst_relative = fmax(worst_relative, (double)(fabsl(c - ec) / fabsl(ec)));
    }
    assert_true(worst < 1e-15);
    assert_true(worst_relative < 1e-14);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(philox_matches_known_answers),
        cmocka_unit_test(rng_u64_is_philox_of_index_and_stream),
        cmocka_unit_test(first_values_are_pinned),
        cmocka_unit_test(distributions_are_pinned),
        cmocka_unit_test_teardown(digests_are_pinned, default_blocks),
        cmocka_unit_test(unit_is_the_top_53_bits),
        cmocka_unit_test(streams_and_seeds_are_independent),
        cmocka_unit_test(uniform_has_the_right_moments),
        cmocka_unit_test(normal_has_the_right_moments),
        cmocka_unit_test(normal_is_box_muller_of_the_units),
        cmocka_unit_test(uniform_int_hits_every_value_equally),
        cmocka_unit_test(uniform_stays_in_range),
        cmocka_unit_test(uniform_rounding_up_to_b_is_clamped),
        cmocka_unit_test(uniform_into_integers_is_clamped),
        cmocka_unit_test(uniform_int_in_every_type),
        cmocka_unit_test(uniform_int_bounds_are_clamped_to_the_type),
        cmocka_unit_test(uniform_int_wide_ranges),
        cmocka_unit_test(constant_is_rounded_and_clamped),
        cmocka_unit_test(arange_is_exact_then_converted),
        cmocka_unit_test(zero_and_poison_are_bytes),
        cmocka_unit_test(output_does_not_depend_on_threads),
        cmocka_unit_test(elements_are_pure_functions_of_the_index),
        cmocka_unit_test(empty_and_invalid_requests),
        cmocka_unit_test(distribution_names_parse),
        cmocka_unit_test(log_matches_libm),
        cmocka_unit_test(sincos_matches_libm),
    };
    return cmocka_run_group_tests_name("rng", tests, NULL, NULL);
}
