/*
 * Fuzz target (libFuzzer): the size expressions of exercise.json. Any text
 * must evaluate or be refused without a crash, undefined behaviour or a read
 * past its NUL, and every refusal must read "column N: ..." with N inside
 * the text (or just past its end), in printable ASCII, fitting its buffer.
 */
#include "fuzz_input.h"
#include "grader/expr.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_ERROR_SIZE 512
/* A buffer too small for most messages, to exercise truncation. */
#define FUZZ_SHORT_SIZE 12

static const struct expr_binding fuzz_bindings[] = {
    {"n", 1000}, {"rows", 30}, {"cols", 7}, {"big", INT64_MAX}, {"small", INT64_MIN}, {"zero", 0},
};

/* "column N: " + a non-empty sentence of printable ASCII, N in [1, len + 1]. */
static void check_error(const char *error, size_t len)
{
    if (strncmp(error, "column ", 7) != 0)
        abort();
    const char *s = error + 7;
    size_t column = 0;
    if (*s < '1' || *s > '9')
        abort();
    while (*s >= '0' && *s <= '9' && column <= len + 1)
        column = column * 10 + (size_t)(*s++ - '0');
    if (column < 1 || column > len + 1 || strncmp(s, ": ", 2) != 0 || s[2] == '\0')
        abort();
    for (; *s; s++) {
        if (*s < ' ' || *s > '~')
            abort();
    }
}

/* The same text with a short buffer: the same verdict and a prefix of the
 * full message. */
static void check_short_buffer(const char *text, const struct expr_env *env, bool ok, int64_t value,
                               const char *error)
{
    char short_error[FUZZ_SHORT_SIZE];
    int64_t again = 0;
    if (expr_eval(text, env, &again, short_error, sizeof short_error) != ok)
        abort();
    if (ok && again != value)
        abort();
    size_t kept = strlen(short_error);
    if (kept >= sizeof short_error || strncmp(short_error, error, kept) != 0 ||
        (kept < sizeof short_error - 1 && kept != strlen(error)))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Exactly size + 1 bytes, so a read past the NUL is caught. */
    char *copy = fuzz_exact_copy(data, size);
    char *text = copy ? realloc(copy, size + 1) : NULL;
    if (!text) {
        free(copy);
        return 0;
    }
    text[size] = '\0';
    const struct expr_env env = {fuzz_bindings, sizeof fuzz_bindings / sizeof fuzz_bindings[0]};
    char error[FUZZ_ERROR_SIZE];
    int64_t value = 0;
    bool ok = expr_eval(text, &env, &value, error, sizeof error);
    if (ok && error[0] != '\0')
        abort();
    if (!ok)
        check_error(error, strlen(text));
    check_short_buffer(text, &env, ok, value, error);
    free(text);
    return 0;
}
