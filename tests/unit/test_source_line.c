/*
 * Unit tests of source_file_print_line: the student's line under a
 * diagnostic, the caret at a column counted in characters (UTF-8, tabs
 * kept), CRLF line ends, lines the file does not have, a last line without
 * a newline.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/source_file.h"

#include <stdlib.h>
#include <string.h>

static char *printed(const char *text, long line, long column)
{
    char *buffer = NULL;
    size_t size = 0;
    struct source_file file = {(char *)text, strlen(text)};
    FILE *out = open_memstream(&buffer, &size);
    assert_non_null(out);
    source_file_print_line(&file, line, column, out);
    fclose(out);
    return buffer;
}

static void check(const char *text, long line, long column, const char *want)
{
    char *got = printed(text, line, column);
    assert_string_equal(got, want);
    free(got);
}

static void test_line_without_column(void **state)
{
    (void)state;
    check("a\nbb\nccc\n", 2, 0, "      2 | bb\n");
}

static void test_caret_at_column(void **state)
{
    (void)state;
    check("int x = y;\n", 1, 9, "      1 | int x = y;\n        |         ^\n");
}

static void test_tabs_are_kept_under_the_caret(void **state)
{
    (void)state;
    check("\tx = 1;\n", 1, 2, "      1 | \tx = 1;\n        | \t^\n");
}

static void test_utf8_counts_characters(void **state)
{
    (void)state;
    /* "é" is two bytes and one character: the caret under x is 2 spaces in */
    check("é x\n", 1, 3, "      1 | é x\n        |   ^\n");
}

static void test_crlf_and_missing_final_newline(void **state)
{
    (void)state;
    check("one\r\ntwo", 1, 0, "      1 | one\n");
    check("one\r\ntwo", 2, 0, "      2 | two\n");
}

static void test_lines_the_file_does_not_have(void **state)
{
    (void)state;
    check("one\n", 2, 0, "");
    check("one\n", 0, 0, "");
    check("", 1, 0, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_without_column),
        cmocka_unit_test(test_caret_at_column),
        cmocka_unit_test(test_tabs_are_kept_under_the_caret),
        cmocka_unit_test(test_utf8_counts_characters),
        cmocka_unit_test(test_crlf_and_missing_final_newline),
        cmocka_unit_test(test_lines_the_file_does_not_have),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
