/*
 * Unit tests of what is stored of a grade JSON (server/result_compact.h):
 * a result under the cap stored as it is; a compile with a 64 KB log and a
 * hundred long warnings (what 1,200 warnings give) stored under the cap,
 * its verdict, message, first diagnostics, correctness and performance
 * kept, the log's start kept with a note of the cut, and "compacted"
 * saying so; a log of multi-byte characters cut at a character; and a
 * result with long texts everywhere, down to its summary.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/result_compact.h"
#include "server/service.h"

#include <stdlib.h>
#include <string.h>

#define CAP SERVICE_RESULT_STORED_MAX

/* `n` bytes of `unit` repeated (the last one cut: `n` a multiple of its
 * length when it holds multi-byte characters). */
static json_t *long_text(const char *unit, size_t n)
{
    size_t u = strlen(unit);
    char *text = malloc(n + 1);
    for (size_t i = 0; i < n; i += u)
        memcpy(text + i, unit, n - i < u ? n - i : u);
    text[n] = '\0';
    json_t *s = json_string(text);
    free(text);
    return s;
}

/* A passed grade JSON, its compile with `warnings` diagnostics of
 * `message_bytes` each and a log of `log_bytes`. */
static json_t *graded(int warnings, size_t message_bytes, size_t log_bytes)
{
    json_t *diagnostics = json_array();
    for (int i = 0; i < warnings; i++)
        json_array_append_new(
            diagnostics,
            json_pack("{s:i, s:i, s:s, s:o}", "line", i + 3, "column", 9, "severity", "warning",
                      "message", long_text("variable declared but never used ", message_bytes)));
    return json_pack("{s:s, s:s, s:s, s:b, s:{s:b, s:o, s:o}, s:{s:b, s:[{s:{s:i}, s:b}]},"
                     " s:{s:f, s:f, s:b, s:{s:s}}, s:[], s:s}",
                     "exercise", "tiny-add", "verdict", "passed", "message", "correct; 1.00x",
                     "assessment", 1, "compile", "ok", 1, "log",
                     long_text("kernel.cu(3): warning #177-D\n", log_bytes), "diagnostics",
                     diagnostics, "correctness", "passed", 1, "cases", "sizes", "n", 100, "passed",
                     1, "performance", "ratio", 1.0, "student_ms", 0.0032, "passed", 1, "counters",
                     "limiter", "latency", "diagnostics", "output", "");
}

static size_t stored_size(json_t *result, json_t **back)
{
    char *text = result_compact_text(result, CAP);
    assert_non_null(text);
    size_t n = strlen(text);
    *back = json_loads(text, 0, NULL);
    assert_non_null(*back);
    free(text);
    return n;
}

static void test_small_result_as_it_is(void **state)
{
    (void)state;
    json_t *result = graded(3, 66, 90), *back;
    char *whole = json_dumps(result, JSON_COMPACT);
    assert_int_equal(stored_size(result, &back), strlen(whole));
    assert_true(json_equal(back, result));
    assert_null(json_object_get(back, "compacted"));
    free(whole);
    json_decref(back);
    json_decref(result);
}

static void test_huge_log_compacted_under_the_cap(void **state)
{
    (void)state;
    json_t *result = graded(100, 500, 64 * 1024), *back;
    json_t *original = json_deep_copy(result);
    char *whole = json_dumps(original, JSON_COMPACT);
    assert_true(strlen(whole) > 80 * 1024);
    assert_true(stored_size(result, &back) <= CAP);
    assert_true(json_equal(result, original)); /* the caller's is left whole */
    assert_string_equal(json_string_value(json_object_get(back, "verdict")), "passed");
    assert_string_equal(json_string_value(json_object_get(back, "message")), "correct; 1.00x");
    assert_true(
        json_equal(json_object_get(back, "correctness"), json_object_get(original, "correctness")));
    assert_true(
        json_equal(json_object_get(back, "performance"), json_object_get(original, "performance")));
    json_t *list = json_object_get(json_object_get(back, "compile"), "diagnostics");
    assert_int_equal(json_array_size(list), RESULT_LIST_KEPT);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(list, 0), "line")), 3);
    const char *log = json_string_value(json_object_get(json_object_get(back, "compile"), "log"));
    assert_int_equal(strncmp(log, "kernel.cu(3): warning #177-D\n", 29), 0);
    assert_non_null(strstr(log, "more bytes not stored]"));
    assert_true(strlen(log) < RESULT_TEXT_KEPT + 64);
    const char *note = json_string_value(json_object_get(back, "compacted"));
    assert_non_null(strstr(note, "stored cut to 16384 bytes at most"));
    assert_non_null(strstr(note, "the compile log"));
    free(whole);
    json_decref(back);
    json_decref(original);
    json_decref(result);
}

static void test_cut_at_a_character(void **state)
{
    (void)state;
    json_t *result = graded(0, 0, 0), *back;
    json_object_set_new(json_object_get(result, "compile"), "log",
                        long_text("\xC3\xA9\xE2\x82\xAC", 40 * 1024)); /* é€ */
    assert_true(stored_size(result, &back) <= CAP);
    const char *log = json_string_value(json_object_get(json_object_get(back, "compile"), "log"));
    assert_non_null(log); /* still UTF-8: json_loads took it */
    assert_true(strlen(log) > RESULT_TEXT_KEPT - 5 && strlen(log) < RESULT_TEXT_KEPT + 64);
    json_decref(back);
    json_decref(result);
}

static void test_long_texts_everywhere_down_to_the_summary(void **state)
{
    (void)state;
    json_t *result = graded(10, 200, 100), *back;
    json_t *cases = json_object_get(json_object_get(result, "correctness"), "cases");
    for (int i = 0; i < 400; i++)
        json_array_append_new(cases, json_pack("{s:o}", "note", long_text("x", 200)));
    assert_true(stored_size(result, &back) <= CAP);
    assert_string_equal(json_string_value(json_object_get(back, "verdict")), "passed");
    assert_string_equal(json_string_value(json_object_get(back, "exercise")), "tiny-add");
    assert_true(json_is_true(json_object_get(json_object_get(back, "correctness"), "passed")));
    assert_null(json_object_get(json_object_get(back, "correctness"), "cases"));
    assert_true(json_real_value(json_object_get(json_object_get(back, "performance"), "ratio")) ==
                1.0);
    assert_null(json_object_get(json_object_get(back, "performance"), "counters"));
    assert_non_null(
        strstr(json_string_value(json_object_get(back, "compacted")), "then only the summary"));
    json_decref(back);
    json_decref(result);
}

static void test_last_resort_the_verdict_and_message(void **state)
{
    (void)state;
    json_t *result = graded(0, 0, 0), *back;
    json_object_set_new(result, "verdict", long_text("\x01", 6000));
    json_object_set_new(result, "message", long_text("\x02", 6000));
    json_object_set_new(result, "seed", long_text("\x03", 6000));
    char *text = result_compact_text(result, RESULT_CAP_MIN);
    assert_true(strlen(text) <= RESULT_CAP_MIN);
    back = json_loads(text, 0, NULL);
    assert_int_equal(json_object_size(back), 3); /* verdict, message, compacted */
    assert_non_null(strstr(json_string_value(json_object_get(back, "compacted")),
                           "then only the verdict and the message"));
    free(text);
    json_decref(back);
    json_decref(result);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_result_as_it_is),
        cmocka_unit_test(test_huge_log_compacted_under_the_cap),
        cmocka_unit_test(test_cut_at_a_character),
        cmocka_unit_test(test_long_texts_everywhere_down_to_the_summary),
        cmocka_unit_test(test_last_resort_the_verdict_and_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
