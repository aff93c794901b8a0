/*
 * Unit tests of the statistics of repeated timings: the median of odd and
 * even counts (unsorted, with outliers), and the relative standard error
 * that decides when enough runs were taken.
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
