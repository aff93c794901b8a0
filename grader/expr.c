/*
 * Size expressions of exercise.json ("ceil_div(n, 256)", "rows * cols"): a
 * lexer with one token of lookahead and a recursive-descent parser that
 * evaluates as it parses, so there is no tree to allocate or free.
 *
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/' | '%') unary)*
 *   unary   := '-'* primary
 *   primary := NUMBER | NAME | FUNCTION '(' expr ',' expr ')' | '(' expr ')'
 *
 * Numbers are decimal digits without a leading zero (C would read "010" as
 * octal, so it is refused rather than silently read as ten) and without a
 * suffix. Names are [A-Za-z_][A-Za-z0-9_]*; the function names are reserved,
 * so a binding called "min" can never be used. "--" is two minus signs, not
 * C's decrement. Columns count bytes from 1; every byte before an error is
 * ASCII (any other byte is itself the error), so they are also characters.
 *
 * Recursion only happens through '(' (parentheses and calls), so
 * EXPR_DEPTH_MAX bounds the stack; a run of unary minus signs is a loop.
 */
#include "expr.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A name or number longer than this is quoted cut short, with "...". */
#define EXPR_SHOWN_MAX 32
/* Room for a quoted token: quotes, EXPR_SHOWN_MAX bytes, "..." and NUL. */
#define EXPR_SHOWN_SIZE (EXPR_SHOWN_MAX + 8)
/* Every function takes this many arguments. */
#define EXPR_ARGS 2

enum token_kind {
    TOKEN_END,    /* the end of the text */
    TOKEN_NUMBER, /* decimal digits; value holds them */
    TOKEN_NAME,   /* [A-Za-z_][A-Za-z0-9_]* */
    TOKEN_PUNCT,  /* one of + - * / % ( ) , */
};

struct token {
    enum token_kind kind;
    size_t start; /* byte offset in the text */
    size_t len;
    int64_t value;
};

/* The error text being written: never more than `size` bytes, NUL included. */
struct message {
    char *buf;
    size_t size;
    size_t len;
};

struct parser {
    const char *text;
    size_t pos; /* where the lexer reads next */
    struct token tok;
    int depth; /* parentheses and calls open around `tok` */
    const struct expr_env *env;
    struct message msg;
};

/* The arguments of one call, with where each starts (for errors). */
struct call {
    size_t offset;
    int64_t args[EXPR_ARGS];
    size_t arg_offsets[EXPR_ARGS];
};

struct function {
    const char *name;
    const char *usage;
    bool (*apply)(struct parser *p, const struct call *c, int64_t *out);
};

static bool parse_expr(struct parser *p, int64_t *out);

/* ---- messages ---------------------------------------------------------- */

static void message_vadd(struct message *m, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
static void message_add(struct message *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static bool fail(struct parser *p, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void message_vadd(struct message *m, const char *fmt, va_list ap)
{
    if (!m->buf || m->size == 0 || m->len + 1 >= m->size)
        return;
    int n = vsnprintf(m->buf + m->len, m->size - m->len, fmt, ap);
    if (n < 0) {
        m->buf[m->len] = '\0';
        return;
    }
    size_t room = m->size - m->len - 1;
    m->len += (size_t)n < room ? (size_t)n : room;
}

static void message_add(struct message *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    message_vadd(m, fmt, ap);
    va_end(ap);
}

/* Replaces the message with "column N: " + the formatted text; returns
 * false so that callers can `return fail(...)`. */
static bool fail(struct parser *p, size_t offset, const char *fmt, ...)
{
    p->msg.len = 0;
    message_add(&p->msg, "column %zu: ", offset + 1);
    va_list ap;
    va_start(ap, fmt);
    message_vadd(&p->msg, fmt, ap);
    va_end(ap);
    return false;
}

/* `len` bytes of text in quotes, cut to EXPR_SHOWN_MAX. */
static void quote(const char *text, size_t len, char out[EXPR_SHOWN_SIZE])
{
    int shown = (int)(len < EXPR_SHOWN_MAX ? len : EXPR_SHOWN_MAX);
    snprintf(out, EXPR_SHOWN_SIZE, "'%.*s%s'", shown, text, len > EXPR_SHOWN_MAX ? "..." : "");
}

/* The current token as a message shows it: "'rows'", "')'", "the end". */
static void describe(const struct parser *p, char out[EXPR_SHOWN_SIZE])
{
    if (p->tok.kind == TOKEN_END)
        snprintf(out, EXPR_SHOWN_SIZE, "the end of the text");
    else
        quote(p->text + p->tok.start, p->tok.len, out);
}

/* ---- lexer ------------------------------------------------------------- */

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(char c)
{
    return is_name_start(c) || is_digit(c);
}

/* Reads decimal digits at p->pos; refuses a suffix ("1e6", "0x10"), a
 * leading zero and a value beyond INT64_MAX. */
static bool lex_number(struct parser *p)
{
    struct token *t = &p->tok;
    const char *s = p->text;
    bool overflow = false;
    t->kind = TOKEN_NUMBER;
    t->value = 0;
    while (is_digit(s[p->pos])) {
        overflow |= __builtin_mul_overflow(t->value, 10, &t->value);
        overflow |= __builtin_add_overflow(t->value, s[p->pos] - '0', &t->value);
        p->pos++;
    }
    bool suffix = is_name_char(s[p->pos]);
    while (is_name_char(s[p->pos]))
        p->pos++;
    t->len = p->pos - t->start;
    char shown[EXPR_SHOWN_SIZE];
    quote(s + t->start, t->len, shown);
    if (suffix)
        return fail(p, t->start, "%s is not a number; write integers as decimal digits", shown);
    if (t->len > 1 && s[t->start] == '0')
        return fail(p, t->start, "%s starts with 0; write integers without leading zeros", shown);
    if (overflow)
        return fail(p, t->start,
                    "the number %s does not fit in 64 bits (the largest is %" PRId64 ")", shown,
                    INT64_MAX);
    return true;
}

static bool lex_bad_byte(struct parser *p)
{
    unsigned char c = (unsigned char)p->text[p->pos];
    if (c > ' ' && c < 0x7f)
        return fail(p, p->pos, "unexpected character '%c'", c);
    return fail(p, p->pos, "unexpected byte 0x%02X", c);
}

/* Reads the next token into p->tok. */
static bool advance(struct parser *p)
{
    const char *s = p->text;
    while (is_space(s[p->pos]))
        p->pos++;
    struct token *t = &p->tok;
    t->start = p->pos;
    t->len = 0;
    if (s[p->pos] == '\0') {
        t->kind = TOKEN_END;
        return true;
    }
    if (is_digit(s[p->pos]))
        return lex_number(p);
    if (is_name_start(s[p->pos])) {
        while (is_name_char(s[p->pos]))
            p->pos++;
        t->kind = TOKEN_NAME;
        t->len = p->pos - t->start;
        return true;
    }
    if (!strchr("+-*/%(),", s[p->pos]))
        return lex_bad_byte(p);
    t->kind = TOKEN_PUNCT;
    t->len = 1;
    p->pos++;
    return true;
}

static bool at_punct(const struct parser *p, char c)
{
    return p->tok.kind == TOKEN_PUNCT && p->text[p->tok.start] == c;
}

/* ---- arithmetic -------------------------------------------------------- */

/* ceil_div(a, b) := the ceiling of a / b, for b > 0. C's a / b truncates
 * toward zero, which is already the ceiling for a < 0, and one more than it
 * is the ceiling when a > 0 leaves a remainder: ceil_div(7, 2) = 4,
 * ceil_div(-7, 2) = -3, ceil_div(-6, 4) = -1. This never overflows, unlike
 * the usual (a + b - 1) / b, which is also wrong for negative a
 * ((-6 + 3) / 4 = 0). b <= 0 is an error. */
static bool call_ceil_div(struct parser *p, const struct call *c, int64_t *out)
{
    int64_t a = c->args[0], b = c->args[1];
    if (b <= 0)
        return fail(p, c->arg_offsets[1], "ceil_div needs a divisor above 0 but got %" PRId64, b);
    *out = a / b + (a % b > 0);
    return true;
}

static bool call_min(struct parser *p, const struct call *c, int64_t *out)
{
    (void)p;
    *out = c->args[0] < c->args[1] ? c->args[0] : c->args[1];
    return true;
}

static bool call_max(struct parser *p, const struct call *c, int64_t *out)
{
    (void)p;
    *out = c->args[0] > c->args[1] ? c->args[0] : c->args[1];
    return true;
}

static const struct function functions[] = {
    {"ceil_div", "ceil_div(a, b)", call_ceil_div}, /* the ceiling of a / b, b > 0 */
    {"min", "min(a, b)", call_min},                /* a < b ? a : b */
    {"max", "max(a, b)", call_max},                /* a > b ? a : b */
};

/* a OP b for the binary operators, C's semantics with every undefined case
 * an error: overflow, division or modulo by zero, INT64_MIN / -1. Only
 * INT64_MIN % -1 is defined here, as 0 (the true remainder; C leaves it
 * undefined because the quotient overflows). */
static bool binary(struct parser *p, char op, size_t offset, int64_t a, int64_t b, int64_t *out)
{
    bool overflow = false;
    if ((op == '/' || op == '%') && b == 0)
        return fail(p, offset, "%s by zero in %" PRId64 " %c 0", op == '/' ? "division" : "modulo",
                    a, op);
    switch (op) {
    case '+':
        overflow = __builtin_add_overflow(a, b, out);
        break;
    case '-':
        overflow = __builtin_sub_overflow(a, b, out);
        break;
    case '*':
        overflow = __builtin_mul_overflow(a, b, out);
        break;
    case '/':
        overflow = a == INT64_MIN && b == -1;
        *out = overflow ? 0 : a / b;
        break;
    default: /* '%' */
        *out = b == -1 ? 0 : a % b;
        break;
    }
    if (overflow)
        return fail(p, offset, "%" PRId64 " %c %" PRId64 " overflows a 64-bit integer", a, op, b);
    return true;
}

/* ---- parser ------------------------------------------------------------ */

/* Opens a parenthesis or a call at the current '(' and reads past it. */
static bool enter(struct parser *p)
{
    if (++p->depth > EXPR_DEPTH_MAX)
        return fail(p, p->tok.start, "parentheses and calls nest deeper than %d", EXPR_DEPTH_MAX);
    return advance(p);
}

static bool unknown_name(struct parser *p)
{
    char shown[EXPR_SHOWN_SIZE];
    quote(p->text + p->tok.start, p->tok.len, shown);
    fail(p, p->tok.start, "unknown name %s ", shown);
    size_t count = p->env && p->env->bindings ? p->env->count : 0;
    if (count == 0) {
        message_add(&p->msg, "(no names are defined)");
        return false;
    }
    message_add(&p->msg, "(known: ");
    for (size_t i = 0; i < count; i++) {
        const char *name = p->env->bindings[i].name;
        message_add(&p->msg, "%s%s", i ? ", " : "", name ? name : "(null)");
    }
    message_add(&p->msg, ")");
    return false;
}

static bool lookup_name(struct parser *p, int64_t *out)
{
    const char *name = p->text + p->tok.start;
    size_t count = p->env && p->env->bindings ? p->env->count : 0;
    for (size_t i = 0; i < count; i++) {
        const char *bound = p->env->bindings[i].name;
        if (bound && strlen(bound) == p->tok.len && memcmp(bound, name, p->tok.len) == 0) {
            *out = p->env->bindings[i].value;
            return advance(p);
        }
    }
    return unknown_name(p);
}

static const struct function *find_function(const struct parser *p)
{
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
        const char *name = functions[i].name;
        if (strlen(name) == p->tok.len && memcmp(name, p->text + p->tok.start, p->tok.len) == 0)
            return &functions[i];
    }
    return NULL;
}

/* Reads "a, b, ..." up to the closing ')', keeping the first EXPR_ARGS
 * values and counting them all, so that a wrong count is said as such. */
static bool parse_arguments(struct parser *p, struct call *c, size_t *count)
{
    *count = 0;
    if (at_punct(p, ')'))
        return true;
    for (;;) {
        size_t offset = p->tok.start;
        int64_t v;
        if (!parse_expr(p, &v))
            return false;
        if (*count < EXPR_ARGS) {
            c->args[*count] = v;
            c->arg_offsets[*count] = offset;
        }
        ++*count;
        if (!at_punct(p, ','))
            return true;
        if (!advance(p))
            return false;
    }
}

/* FUNCTION '(' args ')', with the current token the function's name. */
static bool parse_call(struct parser *p, const struct function *f, int64_t *out)
{
    struct call c = {.offset = p->tok.start};
    if (!advance(p))
        return false;
    if (!at_punct(p, '('))
        return fail(p, c.offset, "'%s' is a function; call it as %s", f->name, f->usage);
    size_t count;
    if (!enter(p) || !parse_arguments(p, &c, &count))
        return false;
    if (!at_punct(p, ')')) {
        char found[EXPR_SHOWN_SIZE];
        describe(p, found);
        return fail(p, p->tok.start,
                    "expected ',' or ')' in the call to %s at column %zu but found %s", f->name,
                    c.offset + 1, found);
    }
    if (count != EXPR_ARGS)
        return fail(p, c.offset, "%s takes %d arguments (%s) but was given %zu", f->name, EXPR_ARGS,
                    f->usage, count);
    p->depth--;
    return advance(p) && f->apply(p, &c, out);
}

/* '(' expr ')', with the current token the '('. */
static bool parse_parenthesis(struct parser *p, int64_t *out)
{
    size_t open = p->tok.start;
    if (!enter(p) || !parse_expr(p, out))
        return false;
    if (!at_punct(p, ')')) {
        char found[EXPR_SHOWN_SIZE];
        describe(p, found);
        return fail(p, p->tok.start, "expected ')' to close the '(' at column %zu but found %s",
                    open + 1, found);
    }
    p->depth--;
    return advance(p);
}

static bool parse_primary(struct parser *p, int64_t *out)
{
    if (p->tok.kind == TOKEN_NUMBER) {
        *out = p->tok.value;
        return advance(p);
    }
    if (p->tok.kind == TOKEN_NAME) {
        const struct function *f = find_function(p);
        return f ? parse_call(p, f, out) : lookup_name(p, out);
    }
    if (at_punct(p, '('))
        return parse_parenthesis(p, out);
    char found[EXPR_SHOWN_SIZE];
    describe(p, found);
    return fail(p, p->tok.start, "expected a number, a name or '(' but found %s", found);
}

/* '-'* primary. Only the innermost minus can overflow (-INT64_MIN): any
 * other value negates to something that negates again. */
static bool parse_unary(struct parser *p, int64_t *out)
{
    size_t minuses = 0, innermost = 0;
    while (at_punct(p, '-')) {
        minuses++;
        innermost = p->tok.start;
        if (!advance(p))
            return false;
    }
    if (!parse_primary(p, out))
        return false;
    for (size_t i = 0; i < minuses; i++) {
        int64_t operand = *out;
        if (__builtin_sub_overflow((int64_t)0, operand, out))
            return fail(p, innermost, "-(%" PRId64 ") overflows a 64-bit integer", operand);
    }
    return true;
}

/* One level of left-associative binary operators, `ops` among them, whose
 * operands `operand` reads. */
static bool parse_binary(struct parser *p, const char *ops,
                         bool (*operand)(struct parser *, int64_t *), int64_t *out)
{
    if (!operand(p, out))
        return false;
    while (p->tok.kind == TOKEN_PUNCT && strchr(ops, p->text[p->tok.start])) {
        char op = p->text[p->tok.start];
        size_t offset = p->tok.start;
        int64_t right;
        if (!advance(p) || !operand(p, &right) || !binary(p, op, offset, *out, right, out))
            return false;
    }
    return true;
}

static bool parse_term(struct parser *p, int64_t *out)
{
    return parse_binary(p, "*/%", parse_unary, out);
}

static bool parse_expr(struct parser *p, int64_t *out)
{
    return parse_binary(p, "+-", parse_term, out);
}

/* After the whole expression only the end may follow. */
static bool expect_end(struct parser *p)
{
    if (p->tok.kind == TOKEN_END)
        return true;
    if (at_punct(p, ')'))
        return fail(p, p->tok.start, "')' without a matching '('");
    char found[EXPR_SHOWN_SIZE];
    describe(p, found);
    return fail(p, p->tok.start, "expected an operator or the end of the text but found %s", found);
}

bool expr_eval(const char *text, const struct expr_env *env, int64_t *value, char *error,
               size_t error_size)
{
    struct parser p = {.text = text, .env = env, .msg = {error, error_size, 0}};
    if (error && error_size)
        error[0] = '\0';
    if (!text)
        return fail(&p, 0, "no expression was given");
    if (strnlen(text, EXPR_TEXT_MAX + 1) > EXPR_TEXT_MAX)
        return fail(&p, EXPR_TEXT_MAX, "the expression is longer than %d characters",
                    EXPR_TEXT_MAX);
    if (!advance(&p))
        return false;
    if (p.tok.kind == TOKEN_END)
        return fail(&p, 0, "the expression is empty");
    int64_t v;
    if (!parse_expr(&p, &v) || !expect_end(&p))
        return false;
    *value = v;
    return true;
}

int64_t expr_value(const char *text, const struct expr_env *env)
{
    int64_t v = 0;
    expr_eval(text, env, &v, NULL, 0);
    return v;
}
