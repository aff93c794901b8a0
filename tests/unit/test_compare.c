/*
 * Unit tests of the output comparison (integers exactly, floats within
 * atol + rtol·|expected|, NaN, infinities, ±0, subnormals), of the scalar
 * check, and of the guard zones around buffers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/compare.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Helpers ---- */

static float f32_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static double f64_bits(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static struct compare_result compare(const void *expected, const void *actual, enum value_type type,
                                     size_t count, const struct compare_tolerance *tolerance)
{
    struct compare_result r;
    memset(&r, 0xa5, sizeof r); /* garbage: compare_buffers must reset it */
    compare_buffers(expected, actual, type, count, tolerance, &r);
    return r;
}

/* Whether one f32 (f64) pair matches under `tolerance`. */
static bool f32_match(float expected, float actual, const struct compare_tolerance *tolerance)
{
    return compare(&expected, &actual, VALUE_F32, 1, tolerance).mismatches == 0;
}

static bool f64_match(double expected, double actual, const struct compare_tolerance *tolerance)
{
    return compare(&expected, &actual, VALUE_F64, 1, tolerance).mismatches == 0;
}

static void assert_all_match(struct compare_result r)
{
    assert_int_equal(r.mismatches, 0);
    assert_false(r.has_first);
}

/* ---- Integers ---- */

static void i16_edges(void **state)
{
    (void)state;
    int16_t e[] = {INT16_MIN, INT16_MAX, -1, 0, 1, INT16_MIN};
    int16_t a[] = {INT16_MIN, INT16_MAX, -1, 0, 1, INT16_MAX};
    assert_all_match(compare(e, e, VALUE_I16, 6, NULL));
    struct compare_result r = compare(e, a, VALUE_I16, 6, NULL);
    assert_int_equal(r.mismatches, 1);
    assert_true(r.has_first);
    assert_int_equal(r.first_index, 5);
    assert_true(r.first_expected == -32768.0);
    assert_true(r.first_actual == 32767.0);
    assert_int_equal(r.first_expected_bits, 0x8000);
    assert_int_equal(r.first_actual_bits, 0x7fff);
    assert_true(r.max_abs_error == 65535.0);
}

static void u16_edges(void **state)
{
    (void)state;
    uint16_t e[] = {0, UINT16_MAX, 0x8000};
    uint16_t a[] = {UINT16_MAX, UINT16_MAX, 0x7fff};
    struct compare_result r = compare(e, a, VALUE_U16, 3, NULL);
    assert_int_equal(r.mismatches, 2);
    assert_int_equal(r.first_index, 0);
    assert_true(r.first_expected == 0.0);
    assert_true(r.first_actual == 65535.0); /* unsigned: not -1 */
    assert_int_equal(r.first_actual_bits, 0xffff);
    assert_true(r.max_abs_error == 65535.0);
}

static void i32_edges_and_sign(void **state)
{
    (void)state;
    int32_t e[] = {INT32_MIN, 7, -1};
    int32_t a[] = {INT32_MAX, 7, 1};
    struct compare_result r = compare(e, a, VALUE_I32, 3, NULL);
    assert_int_equal(r.mismatches, 2);
    assert_int_equal(r.first_index, 0);
    assert_true(r.first_expected == -2147483648.0);
    assert_true(r.first_actual == 2147483647.0);
    assert_int_equal(r.first_expected_bits, 0x80000000u);
    assert_int_equal(r.first_actual_bits, 0x7fffffffu);
    assert_true(r.max_abs_error == 4294967295.0);

    r = compare(e + 2, a + 2, VALUE_I32, 1, NULL); /* -1 against 1 */
    assert_true(r.first_expected == -1.0);
    assert_int_equal(r.first_expected_bits, 0xffffffffu); /* the element's own bits */
    assert_true(r.max_abs_error == 2.0);
}

static void u32_edges(void **state)
{
    (void)state;
    uint32_t e[] = {0, UINT32_MAX};
    uint32_t a[] = {UINT32_MAX, 0};
    struct compare_result r = compare(e, a, VALUE_U32, 2, NULL);
    assert_int_equal(r.mismatches, 2);
    assert_true(r.first_actual == 4294967295.0);
    assert_int_equal(r.first_actual_bits, UINT32_MAX);
    assert_true(r.max_abs_error == 4294967295.0);
}

static void i64_edges(void **state)
{
    (void)state;
    int64_t e[] = {INT64_MIN, INT64_MAX, -1};
    int64_t a[] = {INT64_MAX, INT64_MAX, -2};
    struct compare_result r = compare(e, a, VALUE_I64, 3, NULL);
    assert_int_equal(r.mismatches, 2);
    assert_int_equal(r.first_index, 0);
    assert_true(r.first_expected == -9223372036854775808.0);
    assert_int_equal(r.first_expected_bits, UINT64_C(0x8000000000000000));
    assert_int_equal(r.first_actual_bits, UINT64_C(0x7fffffffffffffff));
    assert_true(r.max_abs_error == 18446744073709551615.0); /* 2^64 - 1, no overflow */
}

static void u64_bits_are_exact_above_2_53(void **state)
{
    (void)state;
    uint64_t e[] = {UINT64_MAX, 0};
    uint64_t a[] = {UINT64_MAX - 1, 0};
    struct compare_result r = compare(e, a, VALUE_U64, 2, NULL);
    assert_int_equal(r.mismatches, 1);
    assert_int_equal(r.first_expected_bits, UINT64_MAX);
    assert_int_equal(r.first_actual_bits, UINT64_MAX - 1);
    assert_true(r.first_expected == r.first_actual); /* as doubles both round to 2^64 */
    assert_true(r.max_abs_error == 1.0);
}

static void integers_ignore_tolerance(void **state)
{
    (void)state;
    const struct compare_tolerance loose = {1000.0, 1.0};
    int32_t e[] = {1, 2};
    int32_t a[] = {2, 2};
    assert_int_equal(compare(e, a, VALUE_I32, 2, &loose).mismatches, 1);
    uint16_t ue[] = {10};
    uint16_t ua[] = {11};
    assert_int_equal(compare(ue, ua, VALUE_U16, 1, &loose).mismatches, 1);
}

/* Mismatches in several 4096-byte blocks, with equal blocks between. */
static void counts_across_blocks(void **state)
{
    (void)state;
    enum { N = 10000 };
    int32_t *e = calloc(N, sizeof *e), *a = calloc(N, sizeof *a);
    assert_non_null(e);
    assert_non_null(a);
    for (int i = 0; i < N; i++)
        e[i] = a[i] = i - 5000;
    a[1023] = 0;
    a[1024] = 0;
    a[7000] += 3;
    a[N - 1] -= 10;
    struct compare_result r = compare(e, a, VALUE_I32, N, NULL);
    assert_int_equal(r.mismatches, 4);
    assert_int_equal(r.first_index, 1023);
    assert_true(r.first_expected == -3977.0);
    assert_true(r.first_actual == 0.0);
    assert_true(r.max_abs_error == 3977.0);
    a[1023] = e[1023];
    a[1024] = e[1024];
    r = compare(e, a, VALUE_I32, N, NULL); /* the first mismatch in a later block */
    assert_int_equal(r.mismatches, 2);
    assert_int_equal(r.first_index, 7000);
    assert_true(r.first_actual == 2003.0);
    assert_true(r.max_abs_error == 10.0);
    free(e);
    free(a);
}

/* e[i] = i and a copy, every `step`-th element of the copy off by 2^-10
 * (within a tolerance of 1e-3, and not equal). */
static void nearly_equal_floats(int n, int step, float **e, float **a)
{
    *e = malloc((size_t)n * sizeof **e);
    *a = malloc((size_t)n * sizeof **a);
    assert_non_null(*e);
    assert_non_null(*a);
    for (int i = 0; i < n; i++)
        (*e)[i] = (*a)[i] = (float)i;
    for (int i = 0; i < n; i += step)
        (*a)[i] += 0.0009765625f;
}

static void f32_counts_across_blocks(void **state)
{
    (void)state;
    enum { N = 3000 };
    const struct compare_tolerance tolerance = {1e-3, 0};
    float *e, *a;
    nearly_equal_floats(N, 3, &e, &a);
    a[2047] = 0.0f;
    a[2048] = NAN;
    a[N - 1] = INFINITY;
    struct compare_result r = compare(e, a, VALUE_F32, N, &tolerance);
    assert_int_equal(r.mismatches, 3);
    assert_int_equal(r.first_index, 2047);
    assert_true(r.first_expected == 2047.0);
    assert_true(r.first_actual == 0.0);
    assert_true(r.max_abs_error == 2047.0);
    free(e);
    free(a);
}

/* Parts of any sizes, compared in order, give the whole's result: the
 * count, the first mismatch (its index in the whole buffer) and the
 * largest error (the grader reads outputs a part at a time). */
static void parts_give_the_whole(void **state)
{
    (void)state;
    enum { N = 5000 };
    const struct compare_tolerance tolerance = {1e-3, 0};
    float *e, *a;
    nearly_equal_floats(N, 7, &e, &a);
    a[1499] = -1.0f;
    a[1500] = NAN;
    a[4999] = 1e9f;
    struct compare_result whole = compare(e, a, VALUE_F32, N, &tolerance);
    static const size_t part_sizes[] = {1, 7, 1500, 1024, N};
    for (size_t k = 0; k < sizeof part_sizes / sizeof *part_sizes; k++) {
        struct compare_result parts = {0};
        for (size_t first = 0; first < N; first += part_sizes[k]) {
            size_t n = N - first < part_sizes[k] ? N - first : part_sizes[k];
            compare_buffers_part(e + first, a + first, VALUE_F32, first, n, &tolerance, &parts);
        }
        assert_int_equal(parts.mismatches, 3);
        assert_int_equal(parts.first_index, 1499);
        assert_true(parts.first_actual == -1.0);
        assert_int_equal(parts.first_index, whole.first_index);
        assert_int_equal(parts.first_expected_bits, whole.first_expected_bits);
        assert_int_equal(parts.first_actual_bits, whole.first_actual_bits);
        assert_true(parts.max_abs_error == whole.max_abs_error);
    }
    free(e);
    free(a);
}

static void unaligned_buffers(void **state)
{
    (void)state;
    double e[5] = {1, 2, 3, 4, 5}, a[5] = {1, 2, 3, 4, 6};
    unsigned char be[sizeof e + 1], ba[sizeof a + 3];
    memcpy(be + 1, e, sizeof e);
    memcpy(ba + 3, a, sizeof a);
    struct compare_result r = compare(be + 1, ba + 3, VALUE_F64, 5, NULL);
    assert_int_equal(r.mismatches, 1);
    assert_int_equal(r.first_index, 4);
    assert_true(r.first_actual == 6.0);
    int64_t ie[3] = {-1, 2, 3}, ia[3] = {-1, 2, 4};
    memcpy(be + 1, ie, sizeof ie);
    memcpy(ba + 3, ia, sizeof ia);
    assert_int_equal(compare(be + 1, ba + 3, VALUE_I64, 3, NULL).first_index, 2);
}

/* ---- Floats: NaN, infinities, zeros, subnormals ---- */

static void nan_matches_only_nan(void **state)
{
    (void)state;
    const struct compare_tolerance huge = {1e300, 1e300};
    float qnan = f32_bits(0x7fc00000), payload = f32_bits(0x7fc12345);
    float negative = f32_bits(0xffc00001), signalling = f32_bits(0x7f800001);
    assert_true(f32_match(qnan, payload, NULL));
    assert_true(f32_match(payload, negative, &huge));
    assert_true(f32_match(signalling, qnan, NULL));
    assert_false(f32_match(qnan, 0.0f, &huge));
    assert_false(f32_match(0.0f, qnan, &huge));
    assert_false(f32_match(qnan, INFINITY, &huge));
    assert_false(f32_match(INFINITY, qnan, &huge));

    double dnan = f64_bits(0x7ff8000000000000), dpayload = f64_bits(0xfff0000000000001);
    assert_true(f64_match(dnan, dpayload, NULL));
    assert_true(f64_match(dpayload, dnan, &huge));
    assert_false(f64_match(dnan, 1.0, &huge));
    assert_false(f64_match(1.0, dnan, &huge));
}

static void nan_mismatch_keeps_its_bits(void **state)
{
    (void)state;
    float e[] = {1.0f, 2.0f};
    float a[] = {1.0f, f32_bits(0x7f800001)}; /* a signalling NaN */
    struct compare_result r = compare(e, a, VALUE_F32, 2, NULL);
    assert_int_equal(r.mismatches, 1);
    assert_int_equal(r.first_index, 1);
    assert_true(r.first_expected == 2.0);
    assert_true(isnan(r.first_actual));
    assert_int_equal(r.first_expected_bits, 0x40000000);
    assert_int_equal(r.first_actual_bits, 0x7f800001);
    assert_true(r.max_abs_error == 0.0); /* not a finite pair */
}

static void infinities(void **state)
{
    (void)state;
    const struct compare_tolerance infinite = {INFINITY, INFINITY};
    const struct compare_tolerance some = {1e-3, 1e-3};
    assert_true(f32_match(INFINITY, INFINITY, NULL));
    assert_true(f32_match(-INFINITY, -INFINITY, &some));
    assert_false(f32_match(INFINITY, -INFINITY, &infinite));
    assert_false(f32_match(-INFINITY, INFINITY, &some));
    /* a finite value never matches an infinity, whatever the tolerance */
    assert_false(f32_match(INFINITY, FLT_MAX, &infinite));
    assert_false(f32_match(FLT_MAX, INFINITY, &infinite));
    assert_false(f32_match(1.0f, -INFINITY, &infinite));
    assert_false(f32_match(-INFINITY, 0.0f, &some));

    assert_true(f64_match(INFINITY, INFINITY, &some));
    assert_false(f64_match(INFINITY, -INFINITY, &infinite));
    assert_false(f64_match(INFINITY, DBL_MAX, &infinite));
    assert_false(f64_match(-DBL_MAX, -INFINITY, &infinite));
    /* finite values whose difference overflows: within an infinite atol */
    assert_true(f64_match(-DBL_MAX, DBL_MAX, &infinite));
    assert_false(f64_match(-DBL_MAX, DBL_MAX, &some));
}

static void infinity_mismatch_is_reported(void **state)
{
    (void)state;
    double e[] = {INFINITY, 1.0, 2.0};
    double a[] = {INFINITY, -INFINITY, 2.5};
    struct compare_result r = compare(e, a, VALUE_F64, 3, NULL);
    assert_int_equal(r.mismatches, 2);
    assert_int_equal(r.first_index, 1);
    assert_true(r.first_actual == -INFINITY);
    assert_int_equal(r.first_actual_bits, UINT64_C(0xfff0000000000000));
    assert_true(r.max_abs_error == 0.5); /* the infinite pairs do not count */
}

static void signed_zeros_are_equal(void **state)
{
    (void)state;
    float e[] = {0.0f, -0.0f};
    float a[] = {-0.0f, 0.0f};
    assert_all_match(compare(e, a, VALUE_F32, 2, NULL)); /* the bytes differ */
    double de[] = {-0.0, 0.0}, da[] = {0.0, -0.0};
    struct compare_result r = compare(de, da, VALUE_F64, 2, NULL);
    assert_all_match(r);
    assert_true(r.max_abs_error == 0.0);
}

static void subnormals(void **state)
{
    (void)state;
    const struct compare_tolerance one_f32_step = {FLT_TRUE_MIN, 0};
    const struct compare_tolerance below_f32_step = {(double)FLT_TRUE_MIN / 2, 0};
    float tiny = FLT_TRUE_MIN, sub = f32_bits(0x007fffff); /* the largest subnormal */
    assert_true(f32_match(tiny, tiny, NULL));
    assert_false(f32_match(0.0f, tiny, NULL));
    assert_false(f32_match(sub, FLT_MIN, NULL));
    assert_true(f32_match(sub, FLT_MIN, &one_f32_step));
    assert_true(f32_match(0.0f, -tiny, &one_f32_step));
    assert_false(f32_match(0.0f, tiny, &below_f32_step));

    const struct compare_tolerance one_f64_step = {DBL_TRUE_MIN, 0};
    assert_false(f64_match(DBL_TRUE_MIN, 2 * DBL_TRUE_MIN, NULL));
    assert_true(f64_match(DBL_TRUE_MIN, 2 * DBL_TRUE_MIN, &one_f64_step));
    assert_false(f64_match(DBL_TRUE_MIN, 3 * DBL_TRUE_MIN, &one_f64_step));

    float e[] = {1.0f, tiny}, a[] = {1.0f, 0.0f};
    struct compare_result r = compare(e, a, VALUE_F32, 2, NULL);
    assert_int_equal(r.first_expected_bits, 1);
    assert_true(r.first_expected == (double)FLT_TRUE_MIN);
    assert_true(r.max_abs_error == (double)FLT_TRUE_MIN);
}

/* ---- Floats: tolerances ---- */

/* expected 4, atol 0.5, rtol 0.25: the bound is exactly 1.5. */
static void boundary_f32(void **state)
{
    (void)state;
    const struct compare_tolerance t = {0.5, 0.25};
    assert_true(f32_match(4.0f, 5.5f, &t));
    assert_false(f32_match(4.0f, nextafterf(5.5f, INFINITY), &t));
    assert_true(f32_match(4.0f, 2.5f, &t));
    assert_false(f32_match(4.0f, nextafterf(2.5f, -INFINITY), &t));
    assert_true(f32_match(-4.0f, -5.5f, &t)); /* rtol scales |expected| */
    assert_false(f32_match(-4.0f, nextafterf(-5.5f, -INFINITY), &t));
    assert_true(f32_match(-4.0f, -2.5f, &t));
    assert_false(f32_match(-4.0f, nextafterf(-2.5f, 0.0f), &t));
}

static void boundary_f64(void **state)
{
    (void)state;
    const struct compare_tolerance t = {0.5, 0.25};
    assert_true(f64_match(4.0, 5.5, &t));
    assert_false(f64_match(4.0, nextafter(5.5, INFINITY), &t));
    assert_true(f64_match(4.0, 2.5, &t));
    assert_false(f64_match(4.0, nextafter(2.5, -INFINITY), &t));
    assert_true(f64_match(-4.0, -5.5, &t));
    assert_false(f64_match(-4.0, nextafter(-5.5, -INFINITY), &t));
}

static void rtol_only(void **state)
{
    (void)state;
    const struct compare_tolerance t = {0, 0x1p-10}; /* bound = |expected| / 1024 */
    assert_true(f32_match(1024.0f, 1025.0f, &t));
    assert_false(f32_match(1024.0f, nextafterf(1025.0f, INFINITY), &t));
    assert_true(f32_match(-2048.0f, -2046.0f, &t));
    assert_false(f32_match(-2048.0f, nextafterf(-2046.0f, 0.0f), &t));
    assert_true(f64_match(1024.0, 1023.0, &t));
    assert_false(f64_match(1024.0, nextafter(1023.0, 0.0), &t));
    /* rtol alone: an expected 0 needs an exact 0 */
    assert_true(f32_match(0.0f, -0.0f, &t));
    assert_false(f32_match(0.0f, FLT_TRUE_MIN, &t));
}

static void atol_only(void **state)
{
    (void)state;
    const struct compare_tolerance t = {0.125, 0};
    assert_true(f32_match(1e6f, 1000000.125f, &t)); /* f32 steps of 1/16 here */
    assert_false(f32_match(1e6f, 1000000.1875f, &t));
    assert_true(f32_match(0.0f, -0.125f, &t));
    assert_false(f32_match(0.0f, nextafterf(-0.125f, -1.0f), &t));
    assert_true(f64_match(1e6, 1e6 - 0.125, &t));
    assert_false(f64_match(1e6, nextafter(1e6 - 0.125, 0.0), &t));
}

static void null_tolerance_is_exact(void **state)
{
    (void)state;
    float e[] = {1.0f, 2.0f}, a[] = {1.0f, nextafterf(2.0f, 3.0f)};
    struct compare_result r = compare(e, a, VALUE_F32, 2, NULL);
    assert_int_equal(r.mismatches, 1);
    assert_int_equal(r.first_index, 1);
    assert_int_equal(r.first_expected_bits, 0x40000000);
    assert_int_equal(r.first_actual_bits, 0x40000001);
    assert_true(r.first_actual == (double)nextafterf(2.0f, 3.0f));
    assert_true(r.max_abs_error == 0x1p-22);
    assert_false(f64_match(1.0, nextafter(1.0, 0.0), NULL));
    const struct compare_tolerance zero = {0, 0};
    assert_false(f64_match(1.0, nextafter(1.0, 0.0), &zero));
}

/* Equal values match even under a tolerance that admits nothing else. */
static void equal_values_match_any_tolerance(void **state)
{
    (void)state;
    const struct compare_tolerance negative = {-1.0, -1.0};
    const struct compare_tolerance not_a_number = {NAN, 0};
    assert_true(f32_match(3.0f, 3.0f, &negative));
    assert_true(f32_match(0.0f, -0.0f, &negative));
    assert_false(f32_match(3.0f, 3.5f, &negative));
    assert_true(f64_match(2.0, 2.0, &not_a_number));
    assert_false(f64_match(2.0, 2.5, &not_a_number));
}

static void max_abs_error_over_finite_pairs(void **state)
{
    (void)state;
    const struct compare_tolerance t = {0.3, 0};
    float e[] = {1.0f, 2.0f, 3.0f, 4.0f, INFINITY, NAN, 5.0f, 6.0f};
    float a[] = {1.25f, 2.0f, 3.5f, 4.0f, INFINITY, NAN, INFINITY, NAN};
    struct compare_result r = compare(e, a, VALUE_F32, 8, &t);
    assert_int_equal(r.mismatches, 3);
    assert_int_equal(r.first_index, 2);
    assert_true(r.first_expected == 3.0);
    assert_true(r.first_actual == 3.5);
    assert_true(r.max_abs_error == 0.5);

    const struct compare_tolerance loose = {1.0, 0};
    r = compare(e, a, VALUE_F32, 4, &loose);
    assert_all_match(r);
    assert_true(r.max_abs_error == 0.5); /* errors within tolerance count too */
    r = compare(e, e, VALUE_F32, 8, &t);
    assert_all_match(r);
    assert_true(r.max_abs_error == 0.0);
}

static void empty_buffers(void **state)
{
    (void)state;
    const struct compare_tolerance t = {1e-6, 1e-6};
    for (int type = 0; type < VALUE_TYPE_COUNT; type++) {
        struct compare_result r = compare(NULL, NULL, (enum value_type)type, 0, &t);
        assert_all_match(r);
        assert_true(r.max_abs_error == 0.0);
    }
}

static void unknown_type_matches_nothing(void **state)
{
    (void)state;
    int32_t e[] = {1, 2};
    struct compare_result r = compare(e, e, VALUE_TYPE_COUNT, 2, NULL);
    assert_int_equal(r.mismatches, 2);
}

/* ---- compare_scalar ---- */

static void scalar_pi_estimate(void **state)
{
    (void)state;
    assert_true(compare_scalar(3.1412, M_PI, 1e-2));
    assert_true(compare_scalar(3.1416, M_PI, 1e-3));
    assert_false(compare_scalar(3.0, M_PI, 1e-2));
    assert_false(compare_scalar(3.15, M_PI, 1e-3));
    assert_true(compare_scalar(3.5, 3.0, 0.5)); /* the bound itself passes */
    assert_false(compare_scalar(nextafter(3.5, 4.0), 3.0, 0.5));
    assert_true(compare_scalar(2.5, 3.0, 0.5));
    assert_false(compare_scalar(nextafter(2.5, 0.0), 3.0, 0.5));
    assert_true(compare_scalar(-0.0, 0.0, 0.0));
    assert_true(compare_scalar(7.0, 7.0, 0.0));
}

static void scalar_nan_never_passes(void **state)
{
    (void)state;
    assert_false(compare_scalar(NAN, M_PI, INFINITY));
    assert_false(compare_scalar(M_PI, NAN, INFINITY));
    assert_false(compare_scalar(NAN, NAN, INFINITY));
    /* a NaN tolerance admits equal values only */
    assert_true(compare_scalar(1.0, 1.0, NAN));
    assert_false(compare_scalar(1.0, 1.5, NAN));
}

static void scalar_infinities(void **state)
{
    (void)state;
    assert_true(compare_scalar(INFINITY, INFINITY, 0.0));
    assert_true(compare_scalar(-INFINITY, -INFINITY, -1.0)); /* tolerance is irrelevant */
    assert_false(compare_scalar(INFINITY, -INFINITY, INFINITY));
    assert_false(compare_scalar(DBL_MAX, INFINITY, INFINITY));
    assert_false(compare_scalar(INFINITY, DBL_MAX, INFINITY));
    assert_false(compare_scalar(INFINITY, 0.0, INFINITY));
}

/* ---- Guard zones ---- */

static void guard_untouched_is_intact(void **state)
{
    (void)state;
    unsigned char zone[GUARD_BYTES];
    guard_fill(zone, sizeof zone);
    size_t changed = 12345;
    assert_true(guard_intact(zone, sizeof zone, &changed));
    assert_int_equal(changed, 12345); /* left alone */
}

static void guard_reports_first_changed_byte(void **state)
{
    (void)state;
    unsigned char zone[GUARD_BYTES];
    const size_t offsets[] = {0, 1, 7, 8, 15, 16, 2048, 2053, GUARD_BYTES - 9, GUARD_BYTES - 1};
    for (size_t k = 0; k < sizeof offsets / sizeof offsets[0]; k++) {
        guard_fill(zone, sizeof zone);
        zone[offsets[k]] ^= 0x01;
        size_t changed = SIZE_MAX;
        assert_false(guard_intact(zone, sizeof zone, &changed));
        assert_int_equal(changed, offsets[k]);
    }
    guard_fill(zone, sizeof zone);
    zone[3000] = 0;
    zone[100] = 0;
    size_t changed = SIZE_MAX;
    assert_false(guard_intact(zone, sizeof zone, &changed));
    assert_int_equal(changed, 100);
    assert_false(guard_intact(zone, sizeof zone, NULL));
}

/* Zones of any length and alignment; the pattern starts at the zone. */
static void guard_odd_sizes_and_alignment(void **state)
{
    (void)state;
    unsigned char buffer[64];
    for (size_t start = 0; start < 8; start++)
        for (size_t bytes = 0; bytes + start <= sizeof buffer; bytes++) {
            guard_fill(buffer + start, bytes);
            size_t changed = SIZE_MAX;
            assert_true(guard_intact(buffer + start, bytes, &changed));
            if (bytes == 0)
                continue;
            buffer[start + bytes - 1] ^= 0x80;
            assert_false(guard_intact(buffer + start, bytes, &changed));
            assert_int_equal(changed, bytes - 1);
        }
}

static void guard_pattern_is_unlikely(void **state)
{
    (void)state;
    unsigned char zone[64];
    guard_fill(zone, sizeof zone);
    for (size_t i = 0; i + 16 < sizeof zone; i++)
        assert_int_equal(zone[i], zone[i + 16]); /* repeats every 16 bytes */
    for (size_t i = 0; i + 4 <= sizeof zone; i++) {
        uint32_t bits;
        int32_t value;
        float f;
        memcpy(&bits, zone + i, 4);
        memcpy(&value, zone + i, 4);
        memcpy(&f, zone + i, 4);
        assert_true(bits != 0 && bits != 0x80000000u); /* ±0.0f */
        assert_true(f != 1.0f && f != -1.0f);
        assert_true(value < -1000 || value > 1000);
    }
    for (size_t i = 0; i + 8 <= sizeof zone; i++) {
        double d;
        memcpy(&d, zone + i, 8);
        assert_true(d != 0.0 && d != 1.0 && d != -1.0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(i16_edges),
        cmocka_unit_test(u16_edges),
        cmocka_unit_test(i32_edges_and_sign),
        cmocka_unit_test(u32_edges),
        cmocka_unit_test(i64_edges),
        cmocka_unit_test(u64_bits_are_exact_above_2_53),
        cmocka_unit_test(integers_ignore_tolerance),
        cmocka_unit_test(counts_across_blocks),
        cmocka_unit_test(f32_counts_across_blocks),
        cmocka_unit_test(parts_give_the_whole),
        cmocka_unit_test(unaligned_buffers),
        cmocka_unit_test(nan_matches_only_nan),
        cmocka_unit_test(nan_mismatch_keeps_its_bits),
        cmocka_unit_test(infinities),
        cmocka_unit_test(infinity_mismatch_is_reported),
        cmocka_unit_test(signed_zeros_are_equal),
        cmocka_unit_test(subnormals),
        cmocka_unit_test(boundary_f32),
        cmocka_unit_test(boundary_f64),
        cmocka_unit_test(rtol_only),
        cmocka_unit_test(atol_only),
        cmocka_unit_test(null_tolerance_is_exact),
        cmocka_unit_test(equal_values_match_any_tolerance),
        cmocka_unit_test(max_abs_error_over_finite_pairs),
        cmocka_unit_test(empty_buffers),
        cmocka_unit_test(unknown_type_matches_nothing),
        cmocka_unit_test(scalar_pi_estimate),
        cmocka_unit_test(scalar_nan_never_passes),
        cmocka_unit_test(scalar_infinities),
        cmocka_unit_test(guard_untouched_is_intact),
        cmocka_unit_test(guard_reports_first_changed_byte),
        cmocka_unit_test(guard_odd_sizes_and_alignment),
        cmocka_unit_test(guard_pattern_is_unlikely),
    };
    return cmocka_run_group_tests_name("compare", tests, NULL, NULL);
}
