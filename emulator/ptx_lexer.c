/*
 * PTX tokenizer (see ptx_lexer.h). Reads at most `length` bytes; a NUL byte
 * or any character PTX does not use is an error token, never a crash.
 */
#include "ptx_lexer.h"

#include <stdlib.h>
#include <string.h>

void ptx_lexer_init(struct ptx_lexer *lx, const char *text, size_t length)
{
    lx->p = text;
    lx->end = text + length;
    lx->line = 1;
    lx->has_peeked = false;
}

static bool is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%' ||
           c == '.';
}

static bool is_ident_char(char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

/* "::" inside a word, as in the modifiers "shared::cta" and "L2::128B" (a
 * label's single ':' ends the word). */
static bool is_double_colon(const struct ptx_lexer *lx)
{
    return lx->end - lx->p > 2 && lx->p[0] == ':' && lx->p[1] == ':' && is_ident_char(lx->p[2]);
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Skips blanks, newlines and both kinds of comments. */
static void skip_space(struct ptx_lexer *lx)
{
    while (lx->p < lx->end) {
        char c = *lx->p;
        if (c == '\n') {
            lx->line++;
            lx->p++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            lx->p++;
        } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
            while (lx->p < lx->end && *lx->p != '\n')
                lx->p++;
        } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
            lx->p += 2;
            while (lx->p + 1 < lx->end && !(lx->p[0] == '*' && lx->p[1] == '/')) {
                lx->line += *lx->p == '\n';
                lx->p++;
            }
            lx->p = lx->p + 1 < lx->end ? lx->p + 2 : lx->end;
        } else {
            return;
        }
    }
}

/* 0f/0F + 8 hex digits, 0d/0D + 16 hex digits. */
static bool lex_hex_float(struct ptx_lexer *lx, struct ptx_token *t)
{
    const char *s = lx->p;
    if (lx->end - s < 3 || s[0] != '0')
        return false;
    bool is_double = s[1] == 'd' || s[1] == 'D';
    if (!is_double && s[1] != 'f' && s[1] != 'F')
        return false;
    int digits = is_double ? 16 : 8;
    if (lx->end - s < 2 + digits)
        return false;
    uint64_t bits = 0;
    for (int i = 0; i < digits; i++) {
        int v = hex_value(s[2 + i]);
        if (v < 0)
            return false;
        bits = bits << 4 | (uint64_t)v;
    }
    t->kind = PTX_TOK_FLOAT;
    t->bits = bits;
    t->is_double = is_double;
    lx->p = s + 2 + digits;
    return true;
}

/* Decimal, 0x hex, 0b binary or 0 octal integers (an optional U suffix),
 * or a decimal float with a '.' or an exponent. */
static void lex_number(struct ptx_lexer *lx, struct ptx_token *t)
{
    if (lex_hex_float(lx, t))
        return;
    const char *s = lx->p;
    const char *e = s;
    while (e < lx->end && (is_ident_char(*e) && *e != '%' && *e != '$'))
        e++;
    /* A decimal float: digits '.' digits [e[+-]digits]. */
    const char *f = s;
    while (f < lx->end && *f >= '0' && *f <= '9')
        f++;
    if (f < lx->end && (*f == '.' || *f == 'e' || *f == 'E') &&
        !(s[0] == '0' && e - s > 1 && (s[1] == 'x' || s[1] == 'X'))) {
        char buf[64];
        size_t n = (size_t)(lx->end - s) < sizeof buf - 1 ? (size_t)(lx->end - s) : sizeof buf - 1;
        memcpy(buf, s, n);
        buf[n] = '\0';
        char *stop;
        double d = strtod(buf, &stop);
        memcpy(&t->bits, &d, sizeof d);
        t->kind = PTX_TOK_FLOAT;
        t->is_double = true;
        lx->p = s + (stop - buf);
        return;
    }
    int base = 10;
    const char *d = s;
    if (e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        base = 16, d = s + 2;
    else if (e - s > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
        base = 2, d = s + 2;
    else if (e - s > 1 && s[0] == '0')
        base = 8, d = s + 1;
    uint64_t v = 0;
    t->kind = PTX_TOK_INT;
    for (; d < e; d++) {
        int digit = hex_value(*d);
        if ((*d == 'U' || *d == 'u') && d + 1 == e)
            break;
        if (digit < 0 || digit >= base) {
            t->kind = PTX_TOK_ERROR;
            break;
        }
        v = v * (uint64_t)base + (uint64_t)digit;
    }
    t->bits = v;
    lx->p = e;
}

static void lex_string(struct ptx_lexer *lx, struct ptx_token *t)
{
    const char *s = ++lx->p;
    while (lx->p < lx->end && *lx->p != '"' && *lx->p != '\n')
        lx->p++;
    t->kind = lx->p < lx->end && *lx->p == '"' ? PTX_TOK_STRING : PTX_TOK_ERROR;
    t->text = s;
    t->len = (size_t)(lx->p - s);
    if (t->kind == PTX_TOK_STRING)
        lx->p++;
}

static struct ptx_token lex(struct ptx_lexer *lx)
{
    struct ptx_token t = {PTX_TOK_END, NULL, 0, 0, false, 0};
    skip_space(lx);
    t.line = lx->line;
    t.text = lx->p;
    if (lx->p >= lx->end)
        return t;
    char c = *lx->p;
    if (c >= '0' && c <= '9') {
        lex_number(lx, &t);
    } else if (is_ident_start(c)) {
        /* a directive is one word: ".reg.b32", as inline assembly may write
         * it, is ".reg" then ".b32" */
        bool directive = c == '.';
        t.kind = PTX_TOK_IDENT;
        lx->p++;
        while (lx->p < lx->end && (is_ident_char(*lx->p) || is_double_colon(lx)) &&
               !(directive && *lx->p == '.'))
            lx->p += *lx->p == ':' ? 2 : 1;
    } else if (c == '"') {
        lex_string(lx, &t);
        return t;
    } else if (strchr(",;:[]{}()<>+-=@!|", c) && c != '\0') {
        t.kind = PTX_TOK_PUNCT;
        lx->p++;
    } else {
        t.kind = PTX_TOK_ERROR;
        lx->p++;
    }
    t.len = (size_t)(lx->p - t.text);
    return t;
}

struct ptx_token ptx_next(struct ptx_lexer *lx)
{
    if (lx->has_peeked) {
        lx->has_peeked = false;
        return lx->peeked;
    }
    return lex(lx);
}

struct ptx_token ptx_peek(struct ptx_lexer *lx)
{
    if (!lx->has_peeked) {
        lx->peeked = lex(lx);
        lx->has_peeked = true;
    }
    return lx->peeked;
}

bool ptx_tok_is(const struct ptx_token *t, char c)
{
    return t->kind == PTX_TOK_PUNCT && t->text[0] == c;
}

bool ptx_tok_word(const struct ptx_token *t, const char *word)
{
    size_t n = strlen(word);
    return t->kind == PTX_TOK_IDENT && t->len == n && memcmp(t->text, word, n) == 0;
}
