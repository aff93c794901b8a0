/*
 * Unit tests of numbers people can read (grader/number_text.c): every case
 * of tests/unit/number_text_cases.json (zero, 1, 0.999, 1.25, 207, 0.00484,
 * 12345, a value that rounds up into the next unit, the faster-than-the-
 * reference wording at and around its threshold, exponents, negatives,
 * NaN and infinities) as a number, a ratio and a time; the same table
 * checks the pages' twin, web/static/format.js (tests/web/).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/grader.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define CASES "tests/unit/number_text_cases.json"

static double value_of(const json_t *v)
{
    const char *word = json_string_value(v);
    if (!word)
        return json_number_value(v);
    return strcmp(word, "nan") == 0 ? NAN : strcmp(word, "inf") == 0 ? INFINITY : -INFINITY;
}

/* One case: its number, ratio and time texts, each as the table says. */
static void check_case(const json_t *c)
{
    char out[GRADER_NUMBER_TEXT_MAX];
    double x = value_of(json_object_get(c, "value"));
    const char *(*const format[])(double, char *) = {grader_number_text, grader_ratio_text,
                                                     grader_ms_text};
    const char *const field[] = {"number", "ratio", "ms"};
    for (int f = 0; f < 3; f++) {
        const char *want = json_string_value(json_object_get(c, field[f]));
        const char *got = format[f](x, out);
        if (strcmp(got, want) != 0)
            print_error("%s of %.17g: \"%s\", expected \"%s\"\n", field[f], x, got, want);
        assert_string_equal(got, want);
    }
}

static void test_table(void **state)
{
    (void)state;
    json_error_t error;
    json_t *table = json_load_file(CASES, 0, &error);
    if (!table)
        print_error("%s: %s\n", CASES, error.text);
    assert_non_null(table);
    json_t *cases = json_object_get(table, "cases"), *c;
    size_t i;
    assert_true(json_array_size(cases) >= 20);
    json_array_foreach(cases, i, c) check_case(c);
    json_decref(table);
}

/* Whatever the value, the text fits and keeps three significant figures. */
static void test_every_exponent_fits(void **state)
{
    (void)state;
    char out[GRADER_NUMBER_TEXT_MAX];
    for (int e = -320; e <= 308; e++) {
        double x = 9.996 * pow(10, e);
        assert_true(strlen(grader_ratio_text(-x, out)) < GRADER_NUMBER_TEXT_MAX - 1);
        assert_true(strlen(grader_ms_text(x, out)) < GRADER_NUMBER_TEXT_MAX - 1);
    }
    assert_string_equal(grader_number_text(DBL_MAX, out), "1.80e+308");
    assert_string_equal(grader_number_text(5e-324, out), "4.94e-324");
    assert_string_equal(grader_number_text(-0.0, out), "0");
}

/* No ratio that passes is ever shown as zero (the "0.00×" of issue 16). */
static void test_no_small_ratio_reads_zero(void **state)
{
    (void)state;
    char out[GRADER_NUMBER_TEXT_MAX];
    for (double r = 1e-7; r < 1.5; r *= 1.01) {
        grader_ratio_text(r, out);
        assert_true(strncmp(out, "0×", strlen("0×")) != 0);
        assert_null(strstr(out, "0.00×"));
        bool faster = r < GRADER_RATIO_FASTER_AT + 0.0005; /* as rounded: 0.500 */
        assert_true((strstr(out, "faster") != NULL) == faster);
    }
}

/* Sizes in decimal units (the host form's copies) and binary ones (a
 * kernel's static data), three significant figures. */
static void test_bytes(void **state)
{
    (void)state;
    char out[GRADER_NUMBER_TEXT_MAX];
    assert_string_equal(grader_bytes_text(8, false, out), "8 bytes");
    assert_string_equal(grader_bytes_text(1600000000ull, false, out), "1.6 GB");
    assert_string_equal(grader_bytes_text(400012, false, out), "400 KB");
    assert_string_equal(grader_bytes_text(1ull << 31, true, out), "2 GiB");
    assert_string_equal(grader_bytes_text(640ull << 20, true, out), "640 MiB");
    assert_string_equal(grader_bytes_text(~0ull, true, out), "16 EiB");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_every_exponent_fits),
        cmocka_unit_test(test_no_small_ratio_reads_zero),
        cmocka_unit_test(test_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
