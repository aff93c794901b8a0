/*
 * Unit tests of the size expressions of exercise.json (grader/expr.c): the
 * values of every operator and function, C's precedence, associativity and
 * truncation, and each error with the column its message names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/expr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERROR_SIZE 512

static const struct expr_binding bindings[] = {
    {"n", 1000},        {"rows", 30},         {"cols", 7},  {"neg", -9},
    {"big", INT64_MAX}, {"small", INT64_MIN}, {"_x1_Y", 5}, {"zero", 0},
};
static const struct expr_env env = {bindings, sizeof bindings / sizeof bindings[0]};

/* The value of `text`, failing the test (with the message) if it is refused. */
static int64_t value_of(const char *text)
{
    int64_t value = 0;
    char error[ERROR_SIZE];
    if (!expr_eval(text, &env, &value, error, sizeof error))
        fail_msg("\"%s\" was refused: %s", text, error);
    assert_string_equal(error, "");
    return value;
}

/* `text` must be refused with exactly `expected`, leaving the value alone. */
static void assert_refused_in(const char *text, const struct expr_env *e, const char *expected)
{
    int64_t value = 77;
    char error[ERROR_SIZE];
    if (expr_eval(text, e, &value, error, sizeof error))
        fail_msg("\"%s\" was accepted as %lld", text, (long long)value);
    assert_int_equal(value, 77);
    assert_string_equal(error, expected);
}

static void assert_refused(const char *text, const char *expected)
{
    assert_refused_in(text, &env, expected);
}

/* A text of `count` copies of `open`, then "1", then `count` copies of
 * `close`; the caller frees it. */
static char *nested(size_t count, const char *open, const char *close)
{
    size_t size = count * (strlen(open) + strlen(close)) + 2;
    char *text = malloc(size);
    assert_non_null(text);
    text[0] = '\0';
    for (size_t i = 0; i < count; i++)
        strcat(text, open);
    strcat(text, "1");
    for (size_t i = 0; i < count; i++)
        strcat(text, close);
    return text;
}

static void numbers_and_names(void **state)
{
    (void)state;
    assert_int_equal(value_of("0"), 0);
    assert_int_equal(value_of("42"), 42);
    assert_int_equal(value_of("9223372036854775807"), INT64_MAX);
    assert_int_equal(value_of("n"), 1000);
    assert_int_equal(value_of("rows"), 30);
    assert_int_equal(value_of("_x1_Y"), 5);
    assert_int_equal(value_of("small"), INT64_MIN);
}

static void precedence_is_c(void **state)
{
    (void)state;
    assert_int_equal(value_of("1 + 2 * 3"), 7);
    assert_int_equal(value_of("(1 + 2) * 3"), 9);
    assert_int_equal(value_of("2 * 3 + 4 * 5"), 26);
    assert_int_equal(value_of("10 - 4 / 2"), 8);
    assert_int_equal(value_of("7 + 10 % 4"), 9);
    assert_int_equal(value_of("-2 * 3"), -6);
    assert_int_equal(value_of("-2 + 3"), 1);
    assert_int_equal(value_of("-(2 + 3)"), -5);
    assert_int_equal(value_of("rows * cols + n"), 1210);
    assert_int_equal(value_of("min(n, 1024) * 2"), 2000);
}

static void operators_associate_left(void **state)
{
    (void)state;
    assert_int_equal(value_of("10 - 4 - 3"), 3);
    assert_int_equal(value_of("7 - 2 + 1"), 6);
    assert_int_equal(value_of("100 / 10 / 5"), 2);
    assert_int_equal(value_of("8 / 2 * 4"), 16);
    assert_int_equal(value_of("2 * 3 % 4"), 2);
    assert_int_equal(value_of("17 % 10 % 4"), 3);
    assert_int_equal(value_of("20 % 7 * 3"), 18);
}

static void division_and_modulo_truncate_like_c(void **state)
{
    (void)state;
    assert_int_equal(value_of("7 / 2"), 3);
    assert_int_equal(value_of("-7 / 2"), -3);
    assert_int_equal(value_of("7 / -2"), -3);
    assert_int_equal(value_of("-7 / -2"), 3);
    assert_int_equal(value_of("7 % 3"), 1);
    assert_int_equal(value_of("-7 % 3"), -1);
    assert_int_equal(value_of("7 % -3"), 1);
    assert_int_equal(value_of("-7 % -3"), -1);
    assert_int_equal(value_of("neg / 2"), -4);
    assert_int_equal(value_of("neg % 2"), -1);
    assert_int_equal(value_of("small / 1"), INT64_MIN);
    assert_int_equal(value_of("big / -1"), -INT64_MAX);
    assert_int_equal(value_of("small / 2"), INT64_MIN / 2);
    /* The true remainder, though C leaves it undefined. */
    assert_int_equal(value_of("small % -1"), 0);
    assert_int_equal(value_of("small % big"), -1);
}

static void unary_minus(void **state)
{
    (void)state;
    assert_int_equal(value_of("-5"), -5);
    assert_int_equal(value_of("--5"), 5);
    assert_int_equal(value_of("- - -5"), -5);
    assert_int_equal(value_of("-neg"), 9);
    assert_int_equal(value_of("1 - -1"), 2);
    assert_int_equal(value_of("1--1"), 2);
    assert_int_equal(value_of("-big"), -INT64_MAX);
    assert_int_equal(value_of("-9223372036854775807 - 1"), INT64_MIN);
    assert_int_equal(value_of("-(-(-(3)))"), -3);
}

static void edges_of_the_range(void **state)
{
    (void)state;
    assert_int_equal(value_of("big - 1 + 1"), INT64_MAX);
    assert_int_equal(value_of("small + 1 - 1"), INT64_MIN);
    assert_int_equal(value_of("big + small"), -1);
    assert_int_equal(value_of("4611686018427387904 * -2"), INT64_MIN);
    assert_int_equal(value_of("small * 1"), INT64_MIN);
    assert_int_equal(value_of("big * -1"), -INT64_MAX);
}

static void ceil_div_is_the_ceiling(void **state)
{
    (void)state;
    assert_int_equal(value_of("ceil_div(7, 2)"), 4);
    assert_int_equal(value_of("ceil_div(8, 2)"), 4);
    assert_int_equal(value_of("ceil_div(0, 5)"), 0);
    assert_int_equal(value_of("ceil_div(1, 256)"), 1);
    assert_int_equal(value_of("ceil_div(n, 256)"), 4);
    assert_int_equal(value_of("ceil_div(1024, 256)"), 4);
    assert_int_equal(value_of("ceil_div(1025, 256)"), 5);
    assert_int_equal(value_of("ceil_div(5, 1)"), 5);
    /* Negative dividends: the true ceiling, not (a + b - 1) / b. */
    assert_int_equal(value_of("ceil_div(-7, 2)"), -3);
    assert_int_equal(value_of("ceil_div(-6, 4)"), -1);
    assert_int_equal(value_of("ceil_div(-8, 4)"), -2);
    assert_int_equal(value_of("ceil_div(-1, 256)"), 0);
    /* No overflow at the edges. */
    assert_int_equal(value_of("ceil_div(big, 1)"), INT64_MAX);
    assert_int_equal(value_of("ceil_div(big, 2)"), INT64_MAX / 2 + 1);
    assert_int_equal(value_of("ceil_div(big, big)"), 1);
    assert_int_equal(value_of("ceil_div(1, big)"), 1);
    assert_int_equal(value_of("ceil_div(small, 1)"), INT64_MIN);
    assert_int_equal(value_of("ceil_div(small, 2)"), INT64_MIN / 2);
    assert_int_equal(value_of("ceil_div(small, big)"), -1);
}

static void min_and_max(void **state)
{
    (void)state;
    assert_int_equal(value_of("min(1, 2)"), 1);
    assert_int_equal(value_of("min(2, 1)"), 1);
    assert_int_equal(value_of("max(1, 2)"), 2);
    assert_int_equal(value_of("max(2, 1)"), 2);
    assert_int_equal(value_of("min(-3, neg)"), -9);
    assert_int_equal(value_of("max(-3, neg)"), -3);
    assert_int_equal(value_of("min(4, 4)"), 4);
    assert_int_equal(value_of("min(small, big)"), INT64_MIN);
    assert_int_equal(value_of("max(small, big)"), INT64_MAX);
    assert_int_equal(value_of("max(min(1, 2), ceil_div(9, 4))"), 3);
    assert_int_equal(value_of("min(n - 1, rows * cols) + max(0, -1)"), 210);
}

static void white_space_anywhere(void **state)
{
    (void)state;
    assert_int_equal(value_of("  n  "), 1000);
    assert_int_equal(value_of("n+1"), 1001);
    assert_int_equal(value_of("\t( n\n+ 1 )\r\n*2\v\f"), 2002);
    assert_int_equal(value_of("min ( 1 , 2 )"), 1);
    assert_int_equal(value_of("ceil_div(\n n,\t256\n)"), 4);
    assert_int_equal(value_of("- \t 5"), -5);
}

static void nesting_up_to_the_limit(void **state)
{
    (void)state;
    char *text = nested(EXPR_DEPTH_MAX, "(", ")");
    assert_int_equal(value_of(text), 1);
    free(text);
    text = nested(EXPR_DEPTH_MAX, "min(2, ", ")");
    assert_int_equal(value_of(text), 1);
    free(text);
    text = nested(EXPR_DEPTH_MAX / 2, "(max(0, ", "))");
    assert_int_equal(value_of(text), 1);
    free(text);
}

static void nesting_beyond_the_limit(void **state)
{
    (void)state;
    char expected[ERROR_SIZE];
    char *text = nested(EXPR_DEPTH_MAX + 1, "(", ")");
    snprintf(expected, sizeof expected, "column %d: parentheses and calls nest deeper than %d",
             EXPR_DEPTH_MAX + 1, EXPR_DEPTH_MAX);
    assert_refused(text, expected);
    free(text);
    text = nested(EXPR_DEPTH_MAX + 1, "min(2, ", ")");
    snprintf(expected, sizeof expected, "column %d: parentheses and calls nest deeper than %d",
             EXPR_DEPTH_MAX * 7 + 4, EXPR_DEPTH_MAX);
    assert_refused(text, expected);
    free(text);
    /* Far deeper texts are refused the same way, without a deep stack. */
    text = nested(EXPR_TEXT_MAX / 2 - 1, "(", ")");
    assert_false(expr_eval(text, &env, &(int64_t){0}, expected, sizeof expected));
    free(text);
}

static void text_length_limit_is_exact(void **state)
{
    (void)state;
    char *text = malloc(EXPR_TEXT_MAX + 2);
    assert_non_null(text);
    memset(text, ' ', EXPR_TEXT_MAX + 1);
    text[0] = '7';
    text[EXPR_TEXT_MAX] = '\0';
    assert_int_equal(value_of(text), 7);
    text[EXPR_TEXT_MAX] = ' ';
    text[EXPR_TEXT_MAX + 1] = '\0';
    char expected[ERROR_SIZE];
    snprintf(expected, sizeof expected, "column %d: the expression is longer than %d characters",
             EXPR_TEXT_MAX + 1, EXPR_TEXT_MAX);
    assert_refused(text, expected);
    free(text);
}

static void unknown_names_list_the_known(void **state)
{
    (void)state;
    const struct expr_binding two[] = {{"n", 1}, {"rows", 2}};
    const struct expr_env small_env = {two, 2};
    assert_refused_in("n + 1 + m", &small_env, "column 9: unknown name 'm' (known: n, rows)");
    assert_refused_in("N", &small_env, "column 1: unknown name 'N' (known: n, rows)");
    assert_refused_in("rows2", &small_env, "column 1: unknown name 'rows2' (known: n, rows)");
    assert_refused_in("x", NULL, "column 1: unknown name 'x' (no names are defined)");
    const struct expr_env empty = {NULL, 0};
    assert_refused_in("(x)", &empty, "column 2: unknown name 'x' (no names are defined)");
    /* A very long name is quoted cut short. */
    assert_refused_in("1 + abcdefghijklmnopqrstuvwxyzABCDEFGHIJ", &small_env,
                      "column 5: unknown name 'abcdefghijklmnopqrstuvwxyzABCDEF...' "
                      "(known: n, rows)");
}

static void function_names_are_reserved(void **state)
{
    (void)state;
    const struct expr_binding named_min[] = {{"min", 3}};
    const struct expr_env e = {named_min, 1};
    assert_refused_in("min", &e, "column 1: 'min' is a function; call it as min(a, b)");
    assert_refused("n + max * 2", "column 5: 'max' is a function; call it as max(a, b)");
    assert_refused("ceil_div", "column 1: 'ceil_div' is a function; call it as ceil_div(a, b)");
    assert_refused("-min", "column 2: 'min' is a function; call it as min(a, b)");
    assert_refused("minimum(1, 2)", "column 1: unknown name 'minimum' (known: n, rows, cols, neg, "
                                    "big, small, _x1_Y, zero)");
}

static void wrong_argument_counts(void **state)
{
    (void)state;
    assert_refused("min(1)", "column 1: min takes 2 arguments (min(a, b)) but was given 1");
    assert_refused("2 * max(1, 2, 3)",
                   "column 5: max takes 2 arguments (max(a, b)) but was given 3");
    assert_refused("ceil_div()",
                   "column 1: ceil_div takes 2 arguments (ceil_div(a, b)) but was given 0");
    assert_refused("min(1 2)",
                   "column 7: expected ',' or ')' in the call to min at column 1 but found '2'");
    assert_refused("min(1, 2",
                   "column 9: expected ',' or ')' in the call to min at column 1 but found the "
                   "end of the text");
    assert_refused("min(1,)", "column 7: expected a number, a name or '(' but found ')'");
    assert_refused("min(,1)", "column 5: expected a number, a name or '(' but found ','");
    assert_refused("min 1", "column 1: 'min' is a function; call it as min(a, b)");
}

static void bad_syntax_names_its_column(void **state)
{
    (void)state;
    assert_refused("1 +",
                   "column 4: expected a number, a name or '(' but found the end of the text");
    assert_refused("* 2", "column 1: expected a number, a name or '(' but found '*'");
    assert_refused("1 + * 2", "column 5: expected a number, a name or '(' but found '*'");
    assert_refused("+1", "column 1: expected a number, a name or '(' but found '+'");
    assert_refused("1 ** 2", "column 4: expected a number, a name or '(' but found '*'");
    assert_refused("()", "column 2: expected a number, a name or '(' but found ')'");
    assert_refused("1, 2", "column 2: expected an operator or the end of the text but found ','");
    assert_refused("1 $ 2", "column 3: unexpected character '$'");
    assert_refused("n + \xc3\xa9", "column 5: unexpected byte 0xC3");
    assert_refused("n\x01", "column 2: unexpected byte 0x01");
}

static void missing_parentheses(void **state)
{
    (void)state;
    assert_refused(
        "(1 + 2",
        "column 7: expected ')' to close the '(' at column 1 but found the end of the text");
    assert_refused("((1)", "column 5: expected ')' to close the '(' at column 1 but found the end "
                           "of the text");
    assert_refused("(1 2)", "column 4: expected ')' to close the '(' at column 1 but found '2'");
    assert_refused("1 + 2)", "column 6: ')' without a matching '('");
    assert_refused("(n))", "column 4: ')' without a matching '('");
}

static void trailing_text(void **state)
{
    (void)state;
    assert_refused("1 2", "column 3: expected an operator or the end of the text but found '2'");
    assert_refused("n rows",
                   "column 3: expected an operator or the end of the text but found 'rows'");
    assert_refused("min(1, 2) (3)",
                   "column 11: expected an operator or the end of the text but found '('");
}

static void empty_text(void **state)
{
    (void)state;
    assert_refused("", "column 1: the expression is empty");
    assert_refused(" \t\n ", "column 1: the expression is empty");
    assert_refused(NULL, "column 1: no expression was given");
}

static void malformed_numbers(void **state)
{
    (void)state;
    assert_refused("010", "column 1: '010' starts with 0; write integers without leading zeros");
    assert_refused("1 + 00", "column 5: '00' starts with 0; write integers without leading zeros");
    assert_refused("0x10", "column 1: '0x10' is not a number; write integers as decimal digits");
    assert_refused("2 * 1e6", "column 5: '1e6' is not a number; write integers as decimal digits");
    assert_refused("12abc", "column 1: '12abc' is not a number; write integers as decimal digits");
    assert_refused("9223372036854775808", "column 1: the number '9223372036854775808' does not "
                                          "fit in 64 bits (the largest is 9223372036854775807)");
    assert_refused("-9223372036854775808", "column 2: the number '9223372036854775808' does not "
                                           "fit in 64 bits (the largest is 9223372036854775807)");
    assert_refused("99999999999999999999999999", "column 1: the number "
                                                 "'99999999999999999999999999' does not fit in "
                                                 "64 bits (the largest is 9223372036854775807)");
}

static void division_and_modulo_by_zero(void **state)
{
    (void)state;
    assert_refused("1 / 0", "column 3: division by zero in 1 / 0");
    assert_refused("n % (rows - 30)", "column 3: modulo by zero in 1000 % 0");
    assert_refused("neg / zero", "column 5: division by zero in -9 / 0");
    assert_refused("0 % 0", "column 3: modulo by zero in 0 % 0");
    assert_refused("min(1, 1 / 0)", "column 10: division by zero in 1 / 0");
}

static void overflow_is_an_error(void **state)
{
    (void)state;
    assert_refused("big + 1", "column 5: 9223372036854775807 + 1 overflows a 64-bit integer");
    assert_refused("small - 1", "column 7: -9223372036854775808 - 1 overflows a 64-bit integer");
    assert_refused("1 - small", "column 3: 1 - -9223372036854775808 overflows a 64-bit integer");
    assert_refused("big * 2", "column 5: 9223372036854775807 * 2 overflows a 64-bit integer");
    assert_refused("small * -1", "column 7: -9223372036854775808 * -1 overflows a 64-bit integer");
    assert_refused("4611686018427387904 * 2",
                   "column 21: 4611686018427387904 * 2 overflows a 64-bit integer");
    assert_refused("small / -1", "column 7: -9223372036854775808 / -1 overflows a 64-bit integer");
    assert_refused("-small", "column 1: -(-9223372036854775808) overflows a 64-bit integer");
    assert_refused("- - small", "column 3: -(-9223372036854775808) overflows a 64-bit integer");
    assert_refused("-(-9223372036854775807 - 1)",
                   "column 1: -(-9223372036854775808) overflows a 64-bit integer");
    assert_refused("ceil_div(big + 1, 2)",
                   "column 14: 9223372036854775807 + 1 overflows a 64-bit integer");
}

static void ceil_div_refuses_divisors_below_one(void **state)
{
    (void)state;
    assert_refused("ceil_div(n, 0)", "column 13: ceil_div needs a divisor above 0 but got 0");
    assert_refused("ceil_div(n, -256)", "column 13: ceil_div needs a divisor above 0 but got -256");
    assert_refused("ceil_div(7,small)",
                   "column 12: ceil_div needs a divisor above 0 but got -9223372036854775808");
}

/* Every buffer size gets a NUL-terminated prefix of the full message. */
static void messages_fit_the_buffer(void **state)
{
    (void)state;
    const char *text = "n + 1 + m";
    char full[ERROR_SIZE];
    int64_t value;
    assert_false(expr_eval(text, &env, &value, full, sizeof full));
    size_t len = strlen(full);
    for (size_t size = 1; size <= len + 2; size++) {
        char *error = malloc(size);
        assert_non_null(error);
        assert_false(expr_eval(text, &env, &value, error, size));
        size_t kept = size - 1 < len ? size - 1 : len;
        assert_int_equal(strlen(error), kept);
        assert_memory_equal(error, full, kept);
        free(error);
    }
    char untouched = 'x';
    assert_false(expr_eval(text, &env, &value, &untouched, 0));
    assert_int_equal(untouched, 'x');
    assert_false(expr_eval(text, &env, &value, NULL, 0));
}

static void success_clears_the_error(void **state)
{
    (void)state;
    char error[ERROR_SIZE] = "stale";
    int64_t value = 0;
    assert_true(expr_eval("rows * cols", &env, &value, error, sizeof error));
    assert_int_equal(value, 210);
    assert_string_equal(error, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numbers_and_names),
        cmocka_unit_test(precedence_is_c),
        cmocka_unit_test(operators_associate_left),
        cmocka_unit_test(division_and_modulo_truncate_like_c),
        cmocka_unit_test(unary_minus),
        cmocka_unit_test(edges_of_the_range),
        cmocka_unit_test(ceil_div_is_the_ceiling),
        cmocka_unit_test(min_and_max),
        cmocka_unit_test(white_space_anywhere),
        cmocka_unit_test(nesting_up_to_the_limit),
        cmocka_unit_test(nesting_beyond_the_limit),
        cmocka_unit_test(text_length_limit_is_exact),
        cmocka_unit_test(unknown_names_list_the_known),
        cmocka_unit_test(function_names_are_reserved),
        cmocka_unit_test(wrong_argument_counts),
        cmocka_unit_test(bad_syntax_names_its_column),
        cmocka_unit_test(missing_parentheses),
        cmocka_unit_test(trailing_text),
        cmocka_unit_test(empty_text),
        cmocka_unit_test(malformed_numbers),
        cmocka_unit_test(division_and_modulo_by_zero),
        cmocka_unit_test(overflow_is_an_error),
        cmocka_unit_test(ceil_div_refuses_divisors_below_one),
        cmocka_unit_test(messages_fit_the_buffer),
        cmocka_unit_test(success_clears_the_error),
    };
    return cmocka_run_group_tests_name("expr", tests, NULL, NULL);
}
