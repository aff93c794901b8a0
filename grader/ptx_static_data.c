/*
 * PTX → how much global and constant memory its module-scope variables
 * take (`__device__` and `__constant__` in the source).
 *
 * A declaration outside every function body, such as
 * `.visible .global .align 1 .b8 scratch[2147483648];` or
 * `.const .align 4 .v4 .f32 table[16] = {…};`, takes its element size
 * (the type's bits, times the vector width) times every dimension.
 * `.extern` declarations take nothing (they are defined elsewhere). Sizes
 * saturate at UINT64_MAX instead of wrapping, so no declaration can make
 * a large total look small.
 */
#include "compile_output.h"
#include "text_lines.h"

#include <stdio.h>
#include <string.h>

static bool is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

static uint64_t saturating_mul(uint64_t a, uint64_t b)
{
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* The next blank-separated token of `*rest`, which moves past it. */
static struct text_line next_token(struct text_line *rest)
{
    *rest = line_trim(*rest);
    size_t n = 0;
    while (n < rest->len && !is_blank(rest->start[n]) && rest->start[n] != '[' &&
           rest->start[n] != ';' && rest->start[n] != '=')
        n++;
    struct text_line token = {rest->start, n};
    *rest = line_after(*rest, n);
    return token;
}

static bool token_is(struct text_line t, const char *word)
{
    return t.len == strlen(word) && memcmp(t.start, word, t.len) == 0;
}

/* Bytes of one element of a type such as .b8, .f32, .u64, .f16x2 (0 when
 * it is not a data type). */
static uint64_t type_bytes(struct text_line t)
{
    if (t.len < 3 || t.start[0] != '.' || !strchr("bfsu", t.start[1]))
        return 0;
    uint64_t bits = 0;
    size_t i = 2;
    for (; i < t.len && t.start[i] >= '0' && t.start[i] <= '9' && bits < 1024; i++)
        bits = bits * 10 + (uint64_t)(t.start[i] - '0');
    if (i + 2 == t.len && t.start[i] == 'x' && t.start[i + 1] == '2')
        bits *= 2;
    else if (i != t.len)
        return 0;
    return bits % 8 == 0 ? bits / 8 : 0;
}

/* The product of the `[N]` dimensions at the start of `rest`. */
static uint64_t dimensions(struct text_line rest)
{
    uint64_t product = 1;
    rest = line_trim(rest);
    while (rest.len > 0 && rest.start[0] == '[') {
        uint64_t n = 0;
        size_t i = 1;
        for (; i < rest.len && rest.start[i] >= '0' && rest.start[i] <= '9'; i++) {
            uint64_t digit = (uint64_t)(rest.start[i] - '0');
            n = n > (UINT64_MAX - digit) / 10 ? UINT64_MAX : n * 10 + digit;
        }
        if (i >= rest.len || rest.start[i] != ']')
            return product;
        product = saturating_mul(product, n);
        rest = line_trim(line_after(rest, i + 1));
    }
    return product;
}

/* One module-scope line: its bytes in global or constant memory, and its
 * variable's name. */
static uint64_t declaration_bytes(struct text_line line, struct text_line *name)
{
    struct text_line rest = line, token;
    bool data_space = false;
    uint64_t element = 0, vector = 1;
    while ((token = next_token(&rest)).len > 0 && token.start[0] == '.') {
        if (token_is(token, ".extern"))
            return 0;
        if (token_is(token, ".global") || token_is(token, ".const"))
            data_space = true;
        else if (token_is(token, ".v2") || token_is(token, ".v4") || token_is(token, ".v8"))
            vector = (uint64_t)(token.start[2] - '0');
        else if (type_bytes(token) > 0)
            element = type_bytes(token);
        else if (token_is(token, ".align"))
            next_token(&rest); /* its number */
    }
    if (!data_space || element == 0 || token.len == 0)
        return 0;
    *name = token;
    return saturating_mul(element * vector, dimensions(rest));
}

/* The braces of a line, outside nothing smarter: PTX has no strings. */
static int brace_balance(struct text_line line)
{
    int depth = 0;
    for (size_t i = 0; i < line.len; i++)
        depth += line.start[i] == '{' ? 1 : line.start[i] == '}' ? -1 : 0;
    return depth;
}

static uint64_t saturating_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void grader_ptx_static_data(const char *ptx, size_t len, struct ptx_static_data *data)
{
    memset(data, 0, sizeof *data);
    struct line_cursor cursor = line_cursor_of(ptx, len);
    struct text_line line;
    long depth = 0;
    while (line_next(&cursor, &line)) {
        if (depth == 0) {
            struct text_line name = {line.start, 0};
            uint64_t bytes = declaration_bytes(line, &name);
            data->total_bytes = saturating_add(data->total_bytes, bytes);
            if (bytes > data->largest_bytes) {
                data->largest_bytes = bytes;
                snprintf(data->largest, sizeof data->largest, "%.*s", (int)name.len, name.start);
            }
        }
        depth += brace_balance(line);
        if (depth < 0)
            depth = 0;
    }
}
