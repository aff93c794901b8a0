/*
 * Unit tests of the statistics of repeated timings: the median of odd and
 * even counts (unsorted, with outliers), the relative standard error, and
 * the protocol's rule of when enough runs were taken (timing_enough: the
 * kernel form's repeated timing and the host form's wall-clock one).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/timing_stats.h"

#include <math.h>

static void test_no_runs(void **state)
{
    (void)state;
    struct timing_stats s;
    timing_stats_of(NULL, 0, &s);
    assert_int_equal(s.runs, 0);
    assert_true(s.median == 0.0);
    assert_true(isinf(s.rse));
}

static void test_one_run_is_never_enough(void **state)
{
    (void)state;
    const double v[] = {2.5};
    struct timing_stats s;
    timing_stats_of(v, 1, &s);
    assert_true(s.median == 2.5);
    assert_true(isinf(s.rse));
}

static void test_median_of_odd_count_ignores_outliers(void **state)
{
    (void)state;
    const double v[] = {9.0, 1.0, 100.0, 2.0, 3.0};
    struct timing_stats s;
    timing_stats_of(v, 5, &s);
    assert_true(s.median == 3.0);
    assert_true(s.mean == 23.0);
    assert_true(v[0] == 9.0 && v[2] == 100.0); /* the input is not sorted in place */
}

static void test_median_of_even_count_averages_the_middle(void **state)
{
    (void)state;
    const double v[] = {4.0, 1.0, 3.0, 2.0};
    struct timing_stats s;
    timing_stats_of(v, 4, &s);
    assert_true(s.median == 2.5);
}

static void test_identical_runs_have_no_error(void **state)
{
    (void)state;
    const double v[] = {0.35, 0.35, 0.35};
    struct timing_stats s;
    timing_stats_of(v, 3, &s);
    assert_true(s.rse == 0.0);
}

static void test_relative_standard_error(void **state)
{
    (void)state;
    /* mean 10, sample stddev sqrt(((-1)^2 + 0 + 1^2) / 2) = 1, / sqrt(3) / 10 */
    const double v[] = {9.0, 10.0, 11.0};
    struct timing_stats s;
    timing_stats_of(v, 3, &s);
    assert_float_equal(s.rse, 1.0 / sqrt(3.0) / 10.0, 1e-12);
}

static void test_zero_mean_is_never_enough(void **state)
{
    (void)state;
    const double v[] = {0.0, 0.0};
    struct timing_stats s;
    timing_stats_of(v, 2, &s);
    assert_true(isinf(s.rse));
}

/* Pairs of `runs` times, the student's alternately `low` and `high`, the
 * reference's 1 ms. */
static bool enough_of(size_t runs, double low, double high, double started)
{
    double student[TIMING_MAX_RUNS], reference[TIMING_MAX_RUNS];
    for (size_t i = 0; i < runs; i++) {
        student[i] = i % 2 ? high : low;
        reference[i] = 1.0;
    }
    return timing_enough(student, reference, runs, started);
}

static void test_enough_runs(void **state)
{
    (void)state;
    double now = timing_now_seconds();
    assert_false(enough_of(TIMING_MIN_RUNS - 1, 2.0, 2.0, now)); /* too few, however steady */
    assert_true(enough_of(TIMING_MIN_RUNS, 2.0, 2.0, now));      /* steady: no error */
    assert_false(enough_of(TIMING_MIN_RUNS, 1.0, 3.0, now));     /* noisy: more runs */
    assert_true(enough_of(TIMING_MIN_RUNS, 1.0, 3.0, now - TIMING_MAX_SECONDS)); /* time's up */
    assert_true(enough_of(TIMING_MAX_RUNS, 1.0, 3.0, now)); /* as many as are kept */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_runs),
        cmocka_unit_test(test_one_run_is_never_enough),
        cmocka_unit_test(test_median_of_odd_count_ignores_outliers),
        cmocka_unit_test(test_median_of_even_count_averages_the_middle),
        cmocka_unit_test(test_identical_runs_have_no_error),
        cmocka_unit_test(test_relative_standard_error),
        cmocka_unit_test(test_zero_mean_is_never_enough),
        cmocka_unit_test(test_enough_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
