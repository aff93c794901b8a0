/*
 * Unit tests of the NVRTC log parser (grader_parse_log) on fixed log texts,
 * one shape of message per test, plus the texts a hostile or broken log can
 * hold (no caret, truncation, CRLF, huge numbers, too many messages).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/compile_output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parsed {
    struct grader_diagnostic *d;
    size_t n;
};

static struct parsed parse(const char *log)
{
    struct parsed p;
    assert_int_equal(grader_parse_log(log, strlen(log), "kernel.cu", &p.d, &p.n), 0);
    return p;
}

static void release(struct parsed p)
{
    grader_diagnostics_free(p.d, p.n);
}

static void error_with_caret_gets_line_and_column(void **state)
{
    (void)state;
    struct parsed p = parse("kernel.cu(4): error: identifier \"x\" is undefined\n"
                            "      a[i] = x + 1.0f;\n"
                            "             ^\n"
                            "\n"
                            "1 error detected in the compilation of \"kernel.cu\".\n");
    assert_int_equal(p.n, 1);
    assert_int_equal(p.d[0].line, 4);
    assert_int_equal(p.d[0].column, 12);
    assert_int_equal(p.d[0].severity, GRADER_SEVERITY_ERROR);
    assert_string_equal(p.d[0].message, "identifier \"x\" is undefined");
    release(p);
}

static void warning_number_is_dropped(void **state)
{
    (void)state;
    struct parsed p = parse("kernel.cu(5): warning #177-D: variable \"q\" was declared but never "
                            "referenced\n"
                            "    int q = 5;\n"
                            "        ^\n\n"
                            "Remark: The warnings can be suppressed with \"-diag-suppress "
                            "<warning-number>\"\n\n");
    assert_int_equal(p.n, 1);
    assert_int_equal(p.d[0].severity, GRADER_SEVERITY_WARNING);
    assert_int_equal(p.d[0].line, 5);
    assert_int_equal(p.d[0].column, 7);
    assert_string_equal(p.d[0].message, "variable \"q\" was declared but never referenced");
    release(p);
}

static void tabs_count_as_one_column(void **state)
{
    (void)state;
    struct parsed p = parse("kernel.cu(4): warning #63-D: shift count is too large\n"
                            "  \ta[0] = 1 << 40;\n"
                            "  \t            ^\n");
    assert_int_equal(p.n, 1);
    assert_int_equal(p.d[0].column, 14);
    release(p);
}

static void multibyte_characters_count_once(void **state)
{
    (void)state;
    /* zz follows `s = "é"; `: 10 bytes, but 9 characters, so column 10. */
    struct parsed p = parse("kernel.cu(1): error: identifier \"zz\" is undefined\n"
                            "  s = \"\xc3\xa9\"; zz\n"
                            "            ^\n");
    assert_int_equal(p.n, 1);
    assert_int_equal(p.d[0].column, 10);
    release(p);
}

static void caret_past_the_end_of_the_line_still_counts(void **state)
{
    (void)state;
    struct parsed p = parse("kernel.cu(1): catastrophic error: cannot open source file \"x.h\"\n"
                            "  #include \"x.h\"\n"
                            "                 ^\n\n"
                            "1 catastrophic error detected in the compilation of \"kernel.cu\".\n"
                            "Compilation terminated.\n");
    assert_int_equal(p.n, 1);
    assert_int_equal(p.d[0].severity, GRADER_SEVERITY_ERROR);
    assert_int_equal(p.d[0].column, 16);
    release(p);
}

static void continuation_lines_join_the_message(void **state)
{
    (void)state;
    struct parsed p = parse("kernel.cu(1): error: expression must have class type\n"
                            "  T f(T x) { return x.foo; }\n"
                            "                    ^\n"
                            "          detected during instantiation of \"T f(T) [with T=int]\" "
                            "at line 2\n"
                            "\n");
    assert_int_equal(p.n, 1);
    assert_string_equal(p.d[0].message, "expression must have class type\n"
                                        "detected during instantiation of \"T f(T) [with "
                                        "T=int]\" at line 2");
    release(p);
}

static void message_without_echo_has_no_column(void **state)
{
    (void)state;
    struct parsed p = parse("kernel.cu(9): error: expected a \"}\"\n"
                            "kernel.cu(12): warning: something\n");
    assert_int_equal(p.n, 2);
    assert_int_equal(p.d[0].line, 9);
    assert_int_equal(p.d[0].column, 0);
    assert_int_equal(p.d[1].line, 12);
    assert_int_equal(p.d[1].severity, GRADER_SEVERITY_WARNING);
    release(p);
}

static void other_files_get_no_line_but_say_where(void **state)
{
    (void)state;
    struct parsed p = parse("/usr/include/x.h(7): error: bad thing\n"
                            "  int y = ;\n"
                            "          ^\n");
    assert_int_equal(p.n, 1);
    assert_int_equal(p.d[0].line, 0);
    assert_int_equal(p.d[0].column, 0);
    assert_string_equal(p.d[0].message, "/usr/include/x.h(7): bad thing");
    release(p);
}

static void ptxas_and_nvrtc_messages_have_no_line(void **state)
{
    (void)state;
    struct parsed p = parse("ptxas info    : 0 bytes gmem\n"
                            "ptxas info    : Used 12 registers, used 0 barriers\n"
                            "ptxas         .     0 bytes stack frame\n"
                            "ptxas error   : Entry function 'k' uses too much shared data\n"
                            "ptxas warning : Stack size for entry function 'k' cannot be "
                            "statically determined\n"
                            "nvrtc: error: invalid value for --gpu-architecture (-arch)\n");
    assert_int_equal(p.n, 3);
    assert_int_equal(p.d[0].severity, GRADER_SEVERITY_ERROR);
    assert_int_equal(p.d[0].line, 0);
    assert_string_equal(p.d[0].message, "ptxas: Entry function 'k' uses too much shared data");
    assert_int_equal(p.d[1].severity, GRADER_SEVERITY_WARNING);
    assert_string_equal(p.d[2].message, "nvrtc: invalid value for --gpu-architecture (-arch)");
    release(p);
}

static void remarks_and_notes_are_notes(void **state)
{
    (void)state;
    struct parsed p = parse("kernel.cu(3): remark: loop unrolled\n"
                            "kernel.cu(4): note #3326-D: see declaration\n");
    assert_int_equal(p.n, 2);
    assert_int_equal(p.d[0].severity, GRADER_SEVERITY_NOTE);
    assert_int_equal(p.d[1].severity, GRADER_SEVERITY_NOTE);
    assert_string_equal(p.d[1].message, "see declaration");
    release(p);
}

static void crlf_line_ends_are_understood(void **state)
{
    (void)state;
    struct parsed p = parse("kernel.cu(2): error: oops\r\n  ab\r\n   ^\r\n");
    assert_int_equal(p.n, 1);
    assert_int_equal(p.d[0].column, 2);
    assert_string_equal(p.d[0].message, "oops");
    release(p);
}

static void text_that_is_not_a_diagnostic_is_ignored(void **state)
{
    (void)state;
    const char *noise[] = {
        "",
        "\n\n\n",
        "Remark: hello\n",
        "kernel.cu: error: no line number\n",
        "kernel.cu(): error: empty number\n",
        "kernel.cu(12) error: no colon\n",
        "kernel.cu(12): mistake: unknown severity\n",
        "(12): error: no file name\n",
        "kernel.cu(99999999999999999999): error: huge\n",
        "ptxas\n",
        "nvrtc: \n",
        "2 errors detected in the compilation of \"kernel.cu\".\n",
    };
    for (size_t i = 0; i < sizeof noise / sizeof noise[0]; i++) {
        struct parsed p = parse(noise[i]);
        assert_int_equal(p.n, 0);
        release(p);
    }
}

static void truncated_log_is_parsed_up_to_its_end(void **state)
{
    (void)state;
    const char *log = "kernel.cu(4): error: identifier \"x\" is undefined\n      a[i] = x";
    struct parsed p = parse(log);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.d[0].column, 0);
    release(p);
    /* The length is obeyed even when the text goes on. */
    struct grader_diagnostic *d;
    size_t n;
    assert_int_equal(grader_parse_log(log, 10, "kernel.cu", &d, &n), 0);
    assert_int_equal(n, 0);
    grader_diagnostics_free(d, n);
}

static void runaway_logs_are_capped(void **state)
{
    (void)state;
    const char *one = "kernel.cu(1): error: again\n";
    size_t len = strlen(one), count = GRADER_DIAGNOSTICS_MAX * 3;
    char *log = malloc(len * count + 1);
    assert_non_null(log);
    for (size_t i = 0; i < count; i++)
        memcpy(log + i * len, one, len);
    log[len * count] = '\0';
    struct parsed p = parse(log);
    assert_int_equal(p.n, GRADER_DIAGNOSTICS_MAX);
    release(p);
    free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(error_with_caret_gets_line_and_column),
        cmocka_unit_test(warning_number_is_dropped),
        cmocka_unit_test(tabs_count_as_one_column),
        cmocka_unit_test(multibyte_characters_count_once),
        cmocka_unit_test(caret_past_the_end_of_the_line_still_counts),
        cmocka_unit_test(continuation_lines_join_the_message),
        cmocka_unit_test(message_without_echo_has_no_column),
        cmocka_unit_test(other_files_get_no_line_but_say_where),
        cmocka_unit_test(ptxas_and_nvrtc_messages_have_no_line),
        cmocka_unit_test(remarks_and_notes_are_notes),
        cmocka_unit_test(crlf_line_ends_are_understood),
        cmocka_unit_test(text_that_is_not_a_diagnostic_is_ignored),
        cmocka_unit_test(truncated_log_is_parsed_up_to_its_end),
        cmocka_unit_test(runaway_logs_are_capped),
    };
    return cmocka_run_group_tests_name("nvrtc_log", tests, NULL, NULL);
}
