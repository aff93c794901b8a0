/*
 * Internal to emulator/: PTX text → tokens.
 *
 * Identifiers keep their dots, so an opcode with its modifiers
 * ("ld.global.nc.v2.f64"), a directive (".entry") and a special register
 * ("%tid.x") are each one token. Comments and white space are skipped; line
 * numbers are kept for messages.
 */
#ifndef KGRADE_EMULATOR_PTX_LEXER_H
#define KGRADE_EMULATOR_PTX_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ptx_token_kind {
    PTX_TOK_END,
    PTX_TOK_IDENT,  /* names, directives, opcodes, registers, labels */
    PTX_TOK_INT,    /* value in `bits` (two's complement for negatives after a '-') */
    PTX_TOK_FLOAT,  /* 0fXXXXXXXX (f32 bits), 0dXXXX… (f64 bits), or a decimal */
    PTX_TOK_STRING, /* "..." (text between the quotes) */
    PTX_TOK_PUNCT,  /* one character of , ; : [ ] { } ( ) < > + - = @ ! | */
    PTX_TOK_ERROR,
};

struct ptx_token {
    enum ptx_token_kind kind;
    const char *text; /* into the source; not NUL-terminated */
    size_t len;
    uint64_t bits;  /* INT: the value; FLOAT: the IEEE bits */
    bool is_double; /* FLOAT: 0d or decimal (f64) rather than 0f (f32) */
    int line;
};

struct ptx_lexer {
    const char *p;
    const char *end;
    int line;
    struct ptx_token peeked;
    bool has_peeked;
};

void ptx_lexer_init(struct ptx_lexer *lx, const char *text, size_t length);
struct ptx_token ptx_next(struct ptx_lexer *lx);
struct ptx_token ptx_peek(struct ptx_lexer *lx);

/* True when the token is the punctuation `c`, or the identifier `word`. */
bool ptx_tok_is(const struct ptx_token *t, char c);
bool ptx_tok_word(const struct ptx_token *t, const char *word);

#endif
