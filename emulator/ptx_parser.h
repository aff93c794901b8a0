/*
 * Internal to the PTX loader: the state the module parser (ptx_parse.c) and
 * the instruction decoder (ptx_insn.c) share while reading one PTX text.
 */
#ifndef KGRADE_EMULATOR_PTX_PARSER_H
#define KGRADE_EMULATOR_PTX_PARSER_H

#include "ptx.h"
#include "ptx_lexer.h"

enum ptx_symbol_kind {
    PTX_SYM_REG,   /* value: first row; count: how many (%r<6>) */
    PTX_SYM_PRED,  /* value: first predicate; count */
    PTX_SYM_VAR,   /* value: the variable's index in the module */
    PTX_SYM_PARAM, /* value: offset; space: PTX_SPACE_PARAM or PTX_SPACE_CALL_PARAM */
    PTX_SYM_LOCAL, /* value: offset in the frame's .local depot */
    PTX_SYM_FUNC,  /* value: function index */
    PTX_SYM_PROTO, /* value: the .callprototype's index in the module's prototypes */
};

struct ptx_symbol {
    const char *name; /* into the PTX text */
    size_t len;
    enum ptx_symbol_kind kind;
    enum ptx_space space;
    uint32_t value;
    uint32_t count; /* registers: a range %name<count>; 0 for a single name */
    uint8_t type;   /* registers: enum ptx_type */
    int depth;      /* scope depth it was declared at */
};

struct ptx_label_use {
    const char *name;
    size_t len;
    uint32_t insn;
    int operand;
    int line;
};

struct ptx_parser {
    struct ptx_lexer lx;
    struct ptx_module *module;
    char *error;
    size_t error_size;
    bool failed;
    bool version_unsupported;
    /* symbols visible now: module-level first, then the function's scopes */
    struct ptx_symbol *symbols;
    int n_symbols, cap_symbols;
    int depth;
    /* the function being read */
    struct ptx_function *fn;
    int fn_index;
    int code_cap;
    struct ptx_symbol *labels; /* value: instruction index */
    int n_labels, cap_labels;
    int cap_prototypes, cap_relocs; /* of the module's arrays */
    struct ptx_label_use *label_uses;
    int n_label_uses, cap_label_uses;
    uint32_t loc_line; /* the current .loc line of the source */
    uint32_t loc_file; /* the function's own file (its first .loc's) + 1; 0 before it */
};

/* Records an error "line N: ..." (the first one wins) and returns false. */
bool ptx_fail(struct ptx_parser *ps, int line, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* The most recent symbol of that name, or NULL. For a register range, a name
 * such as "%r57" finds "%r<100>" and `*row` gets the row. */
const struct ptx_symbol *ptx_lookup(struct ptx_parser *ps, const char *name, size_t len,
                                    uint32_t *row);

/* Reads one instruction whose opcode token is `opcode` (a guard already
 * read), up to and including its ';', and appends it to the function. */
bool ptx_parse_instruction(struct ptx_parser *ps, struct ptx_token opcode, uint32_t guard,
                           bool guard_neg);

/* Appends a `ret` with no operands (the end of a body). */
bool ptx_parse_implicit_ret(struct ptx_parser *ps, struct ptx_token ret);

/* A modifier word and what it means, in the decoders' tables. */
struct word_value {
    const char *word;
    int value;
};

/* True when `word` is in the table; *value gets its meaning. */
bool ptx_word_lookup(const struct word_value *table, size_t n, const char *word, int *value);
#define LOOKUP(table, word, value)                                                                 \
    ptx_word_lookup(table, sizeof table / sizeof table[0], word, value)

/* One operand of an instruction, from its first token `t`: a register, a
 * vector, an immediate of `type`, an [address], a name (ptx_insn.c). */
bool ptx_read_operand(struct ptx_parser *ps, struct ptx_token t, struct ptx_operand *o,
                      enum ptx_type type, uint32_t insn_index);

/* ptx_texture.c: tex, tld4, txq, suld, sust, sured and suq. */
bool ptx_is_texture_op(enum ptx_op op);
/* Classifies one modifier of a texture or surface instruction. */
bool ptx_texture_modifier(struct ptx_insn *insn, const char *word);
/* Reads the operands up to and including ';' into ptx_texture.c's layout. */
bool ptx_texture_operands(struct ptx_parser *ps, struct ptx_insn *insn);
/* Checks what the interpreter relies on (interp_texture.c). */
bool ptx_texture_validate(struct ptx_parser *ps, const struct ptx_insn *insn, int line);

/* ptx_wmma.c: classifies one modifier of a wmma instruction (false: not a
 * wmma word, for the decoder's general rules), and checks the whole once its
 * operands are read, normalizing its types and layouts. */
bool ptx_wmma_modifier(struct ptx_insn *insn, const char *word);
bool ptx_wmma_validate(struct ptx_parser *ps, struct ptx_insn *insn, int line);

/* ptx_video.c: the SIMD video instructions (vadd2 … vset4): one modifier,
 * the operands with their lane selectors and mask, and the checks after
 * the general ones (which put vset's two types where video.c reads them). */
bool ptx_video_modifier(struct ptx_insn *insn, const char *word);
bool ptx_video_operands(struct ptx_parser *ps, struct ptx_insn *insn);
bool ptx_video_validate(struct ptx_parser *ps, struct ptx_insn *insn, int line);

/* The fundamental type a ".u32"-like word names, or PTX_TYPE_NONE. */
enum ptx_type ptx_type_of(const char *word, size_t len);

#endif
