/*
 * Unit tests of the capture of the kernels' printf output: what reaches
 * file descriptor 1 between _begin and _end is kept (across captures),
 * standard output works as before afterwards, the text is cut at
 * OUTPUT_CAPTURE_MAX with a note, and bytes that are not UTF-8 become
 * U+FFFD so the grade JSON stays valid.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/output_capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes straight to descriptor 1, as a driver flushing printf does. */
static void device_print(const char *text, size_t n)
{
    assert_int_equal(write(STDOUT_FILENO, text, n), (ssize_t)n);
}

static void kept_across_captures_and_stdout_restored(void **state)
{
    (void)state;
    struct stat before, after;
    assert_int_equal(fstat(STDOUT_FILENO, &before), 0);
    struct output_capture c;
    output_capture_init(&c);
    assert_true(output_capture_begin(&c));
    device_print("thread 0\n", 9);
    printf("buffered ");
    output_capture_end(&c);
    assert_int_equal(fstat(STDOUT_FILENO, &after), 0);
    assert_true(before.st_ino == after.st_ino && before.st_dev == after.st_dev);
    assert_true(output_capture_begin(&c));
    device_print("thread 1\n", 9);
    output_capture_end(&c);
    char *text = output_capture_text(&c);
    assert_string_equal(text, "thread 0\nbuffered thread 1\n");
    free(text);
    output_capture_release(&c);
}

static void cut_at_the_limit_with_a_note(void **state)
{
    (void)state;
    static char big[OUTPUT_CAPTURE_MAX + 1000];
    memset(big, 'x', sizeof big);
    struct output_capture c;
    output_capture_init(&c);
    assert_true(output_capture_begin(&c));
    device_print(big, sizeof big);
    output_capture_end(&c);
    assert_true(c.truncated);
    assert_int_equal(c.used, OUTPUT_CAPTURE_MAX);
    char *text = output_capture_text(&c);
    assert_non_null(strstr(text, "[kgrade: output truncated]"));
    assert_int_equal(strspn(text, "x"), OUTPUT_CAPTURE_MAX);
    free(text);
    output_capture_release(&c);
}

static void bytes_that_are_not_utf8_are_replaced(void **state)
{
    (void)state;
    struct output_capture c;
    output_capture_init(&c);
    assert_true(output_capture_begin(&c));
    device_print("a\xff"
                 "b\0c",
                 5);
    output_capture_end(&c);
    char *text = output_capture_text(&c);
    assert_string_equal(text, "a\xEF\xBF\xBD"
                              "b\xEF\xBF\xBD"
                              "c");
    free(text);
    output_capture_release(&c);
}

static void nothing_printed_is_empty(void **state)
{
    (void)state;
    struct output_capture c;
    output_capture_init(&c);
    output_capture_end(&c); /* never begun: harmless */
    char *text = output_capture_text(&c);
    assert_string_equal(text, "");
    free(text);
    output_capture_release(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kept_across_captures_and_stdout_restored),
        cmocka_unit_test(cut_at_the_limit_with_a_note),
        cmocka_unit_test(bytes_that_are_not_utf8_are_replaced),
        cmocka_unit_test(nothing_printed_is_empty),
    };
    return cmocka_run_group_tests_name("output_capture", tests, NULL, NULL);
}
