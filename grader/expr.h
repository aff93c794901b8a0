/*
 * Internal to grader/: the size expressions of exercise.json, such as
 * "ceil_div(n, 256)", "rows * cols" or "min(n, 1024) * 2".
 *
 * Grammar: integers, names bound in an environment, + - * / % (C's
 * precedence and left associativity, / and % truncating toward zero as in
 * C), unary minus, parentheses, and the functions ceil_div(a, b), min(a, b),
 * max(a, b) (ceil_div is the true ceiling for negative a; b <= 0 is an error;
 * the function names are reserved). Values are 64-bit signed integers; overflow, division by zero,
 * unknown names, bad syntax and texts longer than EXPR_TEXT_MAX are errors
 * whose message names the column and what is wrong, never a crash.
 */
#ifndef KGRADE_GRADER_EXPR_H
#define KGRADE_GRADER_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXPR_TEXT_MAX  1024
#define EXPR_DEPTH_MAX 64 /* nesting of parentheses and calls */

struct expr_binding {
    const char *name;
    int64_t value;
};

struct expr_env {
    const struct expr_binding *bindings;
    size_t count;
};

/* Evaluates `text`. On success stores the value and returns true (and
 * empties `error`); otherwise writes a sentence that starts with "column N: ",
 * such as "column 9: unknown name 'm' (known: n, rows)", to `error`, leaves
 * *value untouched and returns false. */
bool expr_eval(const char *text, const struct expr_env *env, int64_t *value, char *error,
               size_t error_size);

/* The value of `text`, an expression already checked with expr_eval
 * against bindings of the same names (an exercise's, at load): 0 should
 * it fail after all. */
int64_t expr_value(const char *text, const struct expr_env *env);

#endif
