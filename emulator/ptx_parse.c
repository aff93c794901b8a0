/*
 * The PTX module parser: directives, variables, functions and their bodies.
 *
 * Reads what NVRTC emits (PTX ISA 9.0 and earlier): .version, .target,
 * .address_size, .file, .loc, .entry and .func (declarations and
 * definitions, with .param lists and return parameters), .global .const
 * .shared variables with initialisers, .reg .local .param declarations in
 * nested scopes, labels, and instructions (ptx_insn.c). Anything else stops
 * the load with the PTX line and what was not understood.
 */
#include "ptx_parser.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PTX_MAX_VERSION_MAJOR 9
#define PTX_DEFAULT_ALIGN     4

bool ptx_fail(struct ptx_parser *ps, int line, const char *format, ...)
{
    if (ps->failed)
        return false;
    ps->failed = true;
    int n = snprintf(ps->error, ps->error_size, "PTX line %d: ", line);
    if (n < 0 || (size_t)n >= ps->error_size)
        return false;
    va_list ap;
    va_start(ap, format);
    int m = vsnprintf(ps->error + n, ps->error_size - (size_t)n, format, ap);
    va_end(ap);
    if (m >= 0 && (size_t)(n + m) < ps->error_size && ps->loc_line > 0) /* from .loc */
        snprintf(ps->error + n + m, ps->error_size - (size_t)(n + m), " (source line %u)",
                 ps->loc_line);
    return false;
}

static bool grow(void **items, int *cap, int needed, size_t item_size)
{
    if (needed <= *cap)
        return true;
    int n = *cap ? *cap * 2 : 16;
    while (n < needed)
        n *= 2;
    void *p = realloc(*items, (size_t)n * item_size);
    if (!p)
        return false;
    *items = p;
    *cap = n;
    return true;
}

static char *dup_text(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* ---------------------------------------------------------------- symbols */

static bool add_symbol(struct ptx_parser *ps, struct ptx_symbol s)
{
    if (!grow((void **)&ps->symbols, &ps->cap_symbols, ps->n_symbols + 1, sizeof s))
        return ptx_fail(ps, ps->lx.line, "out of memory");
    s.depth = ps->depth;
    ps->symbols[ps->n_symbols++] = s;
    return true;
}

static bool range_match(const struct ptx_symbol *s, const char *name, size_t len, uint32_t *row)
{
    if (len <= s->len || memcmp(name, s->name, s->len) != 0)
        return false;
    uint32_t n = 0;
    for (size_t i = s->len; i < len; i++) {
        if (name[i] < '0' || name[i] > '9' || n > 100000000)
            return false;
        n = n * 10 + (uint32_t)(name[i] - '0');
    }
    if (n >= s->count || (len - s->len > 1 && name[s->len] == '0'))
        return false;
    *row = s->value + n;
    return true;
}

const struct ptx_symbol *ptx_lookup(struct ptx_parser *ps, const char *name, size_t len,
                                    uint32_t *row)
{
    for (int i = ps->n_symbols - 1; i >= 0; i--) {
        const struct ptx_symbol *s = &ps->symbols[i];
        if (s->count > 0 && (s->kind == PTX_SYM_REG || s->kind == PTX_SYM_PRED)) {
            if (range_match(s, name, len, row))
                return s;
        } else if (s->len == len && memcmp(s->name, name, len) == 0) {
            *row = s->value;
            return s;
        }
    }
    return NULL;
}

/* Leaves a scope: its symbols are forgotten (register rows are not reused). */
static void close_scope(struct ptx_parser *ps)
{
    while (ps->n_symbols > 0 && ps->symbols[ps->n_symbols - 1].depth >= ps->depth)
        ps->n_symbols--;
    ps->depth--;
}

/* ------------------------------------------------------------------ types */

enum ptx_type ptx_type_of(const char *word, size_t len)
{
    static const struct {
        const char *name;
        enum ptx_type type;
    } types[] = {
        {".b8", PTX_B8},         {".b16", PTX_B16}, {".b32", PTX_B32},     {".b64", PTX_B64},
        {".b128", PTX_B128},     {".u8", PTX_U8},   {".u16", PTX_U16},     {".u32", PTX_U32},
        {".u64", PTX_U64},       {".s8", PTX_S8},   {".s16", PTX_S16},     {".s32", PTX_S32},
        {".s64", PTX_S64},       {".f16", PTX_F16}, {".f16x2", PTX_F16X2}, {".bf16", PTX_BF16},
        {".bf16x2", PTX_BF16X2}, {".f32", PTX_F32}, {".f64", PTX_F64},     {".pred", PTX_PRED},
        {".tf32", PTX_TF32},     {".u4", PTX_U4},   {".s4", PTX_S4},       {".b1", PTX_B1},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strlen(types[i].name) == len && memcmp(types[i].name, word, len) == 0)
            return types[i].type;
    return PTX_TYPE_NONE;
}

static bool peek_is(struct ptx_parser *ps, char c)
{
    struct ptx_token t = ptx_peek(&ps->lx);
    return ptx_tok_is(&t, c);
}

static bool expect_punct(struct ptx_parser *ps, char c)
{
    struct ptx_token t = ptx_next(&ps->lx);
    if (!ptx_tok_is(&t, c))
        return ptx_fail(ps, t.line, "expected '%c', found '%.*s'", c, (int)t.len, t.text);
    return true;
}

static bool expect_int(struct ptx_parser *ps, uint64_t *value)
{
    struct ptx_token t = ptx_next(&ps->lx);
    if (t.kind != PTX_TOK_INT)
        return ptx_fail(ps, t.line, "expected a number, found '%.*s'", (int)t.len, t.text);
    *value = t.bits;
    return true;
}

/* -------------------------------------------------------- declarations */

/* What a declaration such as ".shared .align 4 .b8 name[4224] = {...}" says. */
struct declaration {
    enum ptx_type type;
    uint32_t align;
    uint32_t vec;
    struct ptx_token name;
    uint64_t elements; /* product of the array dimensions (1 for a scalar) */
    bool unsized;      /* name[] */
    uint32_t range;    /* %r<6>: 6 */
    bool has_range;
};

/* .texref, .surfref and .samplerref: the texture references CUDA 12
 * removed. Fails with what to use instead when `t` is one. */
static bool refuse_reference(struct ptx_parser *ps, const struct ptx_token *t)
{
    if (!ptx_tok_word(t, ".texref") && !ptx_tok_word(t, ".surfref") &&
        !ptx_tok_word(t, ".samplerref"))
        return true;
    return ptx_fail(ps, t->line,
                    "unsupported PTX construct '%.*s': texture and surface references were "
                    "removed in CUDA 12; the virtual GPU supports texture and surface objects "
                    "(cudaTextureObject_t, cudaSurfaceObject_t)",
                    (int)t->len, t->text);
}

/* Reads [.align N] [.vN] .type name [<N>] [[N]...] after the state space. */
static bool parse_declaration(struct ptx_parser *ps, struct declaration *d)
{
    memset(d, 0, sizeof *d);
    d->vec = 1;
    d->elements = 1;
    struct ptx_token t = ptx_next(&ps->lx);
    for (;; t = ptx_next(&ps->lx)) {
        uint64_t v;
        if (ptx_tok_word(&t, ".align")) {
            if (!expect_int(ps, &v))
                return false;
            d->align = (uint32_t)v;
        } else if (ptx_tok_word(&t, ".v2") || ptx_tok_word(&t, ".v4")) {
            d->vec = (uint32_t)(t.text[2] - '0');
        } else if (ptx_tok_word(&t, ".ptr") || ptx_tok_word(&t, ".global") ||
                   ptx_tok_word(&t, ".shared") || ptx_tok_word(&t, ".const") ||
                   ptx_tok_word(&t, ".local")) {
            /* .ptr.space.align attributes of kernel parameters: not needed */
        } else if (t.kind == PTX_TOK_IDENT && t.text[0] == '.' &&
                   ptx_type_of(t.text, t.len) != PTX_TYPE_NONE) {
            d->type = ptx_type_of(t.text, t.len);
        } else {
            break;
        }
    }
    if (!refuse_reference(ps, &t))
        return false;
    if (d->type == PTX_TYPE_NONE || t.kind != PTX_TOK_IDENT)
        return ptx_fail(ps, t.line, "expected a type and a name, found '%.*s'", (int)t.len, t.text);
    if (ptx_type_bytes(d->type) == 0) /* .u4 .s4 .b1: wmma's operand types only */
        return ptx_fail(ps, t.line, "'%.*s' cannot have a sub-byte type", (int)t.len, t.text);
    d->name = t;
    struct ptx_token n = ptx_peek(&ps->lx);
    if (ptx_tok_is(&n, '<')) {
        uint64_t count;
        ptx_next(&ps->lx);
        if (!expect_int(ps, &count) || !expect_punct(ps, '>'))
            return false;
        d->range = (uint32_t)count;
        d->has_range = true;
    }
    while (n = ptx_peek(&ps->lx), ptx_tok_is(&n, '[')) {
        ptx_next(&ps->lx);
        struct ptx_token size = ptx_next(&ps->lx);
        if (ptx_tok_is(&size, ']')) {
            d->unsized = true;
            continue;
        }
        if (size.kind != PTX_TOK_INT || size.bits > (1u << 30) || !expect_punct(ps, ']'))
            return ptx_fail(ps, size.line, "bad array size in the declaration of '%.*s'",
                            (int)d->name.len, d->name.text);
        d->elements *= size.bits;
        if (d->elements > (1u << 30))
            return ptx_fail(ps, size.line, "'%.*s' is too large", (int)d->name.len, d->name.text);
    }
    if (d->align == 0)
        d->align = ptx_type_bytes(d->type) * d->vec;
    if (d->align == 0 || (d->align & (d->align - 1)) != 0)
        return ptx_fail(ps, t.line, "bad alignment for '%.*s'", (int)d->name.len, d->name.text);
    return true;
}

static uint64_t declaration_bytes(const struct declaration *d)
{
    return (uint64_t)ptx_type_bytes(d->type) * d->vec * d->elements;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

/* Places `d` at the end of a space of `*bytes` (a function's parameters, a
 * frame's locals), whose total may not pass `limit`: its offset in
 * `offset`. In 64 bits, so no program can wrap the total and put an offset
 * outside the space. */
static bool place_in_space(struct ptx_parser *ps, const struct declaration *d, uint32_t *bytes,
                           uint64_t limit, const char *space, uint32_t *offset)
{
    uint64_t at = align_up(*bytes, d->align), end = at + declaration_bytes(d);
    if (end > limit)
        return ptx_fail(ps, d->name.line,
                        "'%.*s' takes the %s past %llu bytes, more than a GPU allows",
                        (int)d->name.len, d->name.text, space, (unsigned long long)limit);
    *offset = (uint32_t)at;
    *bytes = (uint32_t)end;
    return true;
}

/* An initializer element that names a function or a variable: a
 * function's address now, a variable's once it is placed (a relocation).
 * "name", "generic(name)", "name+N". */
static bool store_address(struct ptx_parser *ps, int variable, uint32_t offset, enum ptx_type type,
                          struct ptx_token t)
{
    struct ptx_module *m = ps->module;
    bool generic = ptx_tok_word(&t, "generic");
    if (generic) { /* generic(name): the name inside */
        if (!expect_punct(ps, '('))
            return false;
        t = ptx_next(&ps->lx);
    }
    uint32_t row;
    const struct ptx_symbol *s = ptx_lookup(ps, t.text, t.len, &row);
    if (!s || (s->kind != PTX_SYM_FUNC && s->kind != PTX_SYM_VAR))
        return ptx_fail(ps, t.line, "unknown name '%.*s' in an initializer", (int)t.len, t.text);
    if (ptx_type_bytes(type) != 8)
        return ptx_fail(ps, t.line, "the address of '%.*s' needs a 64-bit element", (int)t.len,
                        t.text);
    if (generic && !expect_punct(ps, ')'))
        return false;
    int64_t addend = 0;
    if (peek_is(ps, '+')) {
        uint64_t n;
        ptx_next(&ps->lx);
        if (!expect_int(ps, &n))
            return false;
        addend = (int64_t)n;
    }
    if (s->kind == PTX_SYM_FUNC) {
        m->functions[s->value].address_taken = true;
        uint64_t address = ptx_function_address((int)s->value) + (uint64_t)addend;
        memcpy(m->variables[variable].init + offset, &address, 8);
        return true;
    }
    if (m->variables[s->value].space == PTX_SPACE_SHARED)
        return ptx_fail(ps, t.line, "'%.*s' is shared: its address differs from block to block",
                        (int)t.len, t.text);
    if (!grow((void **)&m->relocs, &ps->cap_relocs, m->n_relocs + 1, sizeof *m->relocs))
        return ptx_fail(ps, t.line, "out of memory");
    m->relocs[m->n_relocs++] = (struct ptx_reloc){variable, offset, (int)s->value, addend};
    return true;
}

/* One element of an initializer, stored little-endian as the type says. */
static bool store_element(struct ptx_parser *ps, int variable, uint32_t offset, enum ptx_type type,
                          struct ptx_token t, bool negative)
{
    uint8_t *at = ps->module->variables[variable].init + offset;
    unsigned bytes = ptx_type_bytes(type);
    uint64_t bits = t.bits;
    if (t.kind == PTX_TOK_INT && negative)
        bits = 0 - bits;
    if (t.kind == PTX_TOK_FLOAT && type == PTX_F32 && t.is_double) {
        double d;
        memcpy(&d, &t.bits, 8);
        float f = (float)(negative ? -d : d);
        uint32_t u;
        memcpy(&u, &f, 4);
        bits = u;
    } else if (t.kind == PTX_TOK_FLOAT && negative) {
        bits ^= t.is_double ? 1ull << 63 : 1ull << 31;
    } else if (t.kind == PTX_TOK_IDENT && !negative) {
        return store_address(ps, variable, offset, type, t);
    } else if (t.kind != PTX_TOK_INT && t.kind != PTX_TOK_FLOAT) {
        return ptx_fail(ps, t.line, "unsupported initializer '%.*s'", (int)t.len, t.text);
    }
    for (unsigned i = 0; i < bytes; i++)
        at[i] = (uint8_t)(bits >> (8 * i));
    return true;
}

/* "= value" or "= {v, v, ...}" (nested braces flattened). */
static bool parse_initializer(struct ptx_parser *ps, struct ptx_variable *v, enum ptx_type type)
{
    v->init = calloc(1, v->size ? v->size : 1);
    if (!v->init)
        return ptx_fail(ps, ps->lx.line, "out of memory");
    unsigned step = ptx_type_bytes(type);
    uint32_t at = 0;
    int braces = 0;
    for (;;) {
        struct ptx_token t = ptx_next(&ps->lx);
        bool negative = false;
        if (ptx_tok_is(&t, '{')) {
            braces++;
            continue;
        }
        if (ptx_tok_is(&t, '}')) {
            if (--braces <= 0)
                break;
            continue;
        }
        if (ptx_tok_is(&t, ',') && braces > 0)
            continue;
        if (ptx_tok_is(&t, '-')) {
            negative = true;
            t = ptx_next(&ps->lx);
        }
        if (at + step > v->size)
            return ptx_fail(ps, t.line, "too many initializers for '%s'", v->name);
        if (!store_element(ps, (int)(v - ps->module->variables), at, type, t, negative))
            return false;
        at += step;
        if (braces == 0)
            break;
    }
    return true;
}

static bool add_variable(struct ptx_parser *ps, enum ptx_space space, const struct declaration *d,
                         bool is_extern)
{
    struct ptx_module *m = ps->module;
    struct ptx_variable *grown =
        realloc(m->variables, (size_t)(m->n_variables + 1) * sizeof *grown);
    if (!grown)
        return ptx_fail(ps, d->name.line, "out of memory");
    m->variables = grown;
    struct ptx_variable *v = &m->variables[m->n_variables];
    memset(v, 0, sizeof *v);
    v->space = space;
    if (declaration_bytes(d) >= PTX_VARIABLE_MAX)
        return ptx_fail(ps, d->name.line, "'%.*s' is too large", (int)d->name.len, d->name.text);
    v->size = (uint32_t)declaration_bytes(d);
    v->align = d->align;
    v->is_extern_shared = space == PTX_SPACE_SHARED && (d->unsized || is_extern);
    /* shared variables are laid out per kernel once all is read (ptx_shared.c) */
    if (space == PTX_SPACE_SHARED && v->size > PTX_SHARED_SPACE_MAX)
        return ptx_fail(ps, d->name.line, "'%.*s' takes shared memory past %u bytes",
                        (int)d->name.len, d->name.text, PTX_SHARED_SPACE_MAX);
    /* named last: a variable refused above is not counted, so the module
     * would never free its name */
    v->name = dup_text(d->name.text, d->name.len);
    if (!v->name)
        return ptx_fail(ps, d->name.line, "out of memory");
    m->n_variables++;
    struct ptx_symbol s = {v->name,
                           d->name.len,
                           PTX_SYM_VAR,
                           space,
                           (uint32_t)(m->n_variables - 1),
                           0,
                           (uint8_t)d->type,
                           0};
    return add_symbol(ps, s);
}

/* .global / .const / .shared at module or function level. */
static bool parse_variable(struct ptx_parser *ps, enum ptx_space space, bool is_extern)
{
    struct declaration d;
    if (!parse_declaration(ps, &d))
        return false;
    if (!add_variable(ps, space, &d, is_extern))
        return false;
    struct ptx_token t = ptx_next(&ps->lx);
    if (ptx_tok_is(&t, '=')) {
        if (!parse_initializer(ps, &ps->module->variables[ps->module->n_variables - 1], d.type))
            return false;
        t = ptx_next(&ps->lx);
    }
    if (!ptx_tok_is(&t, ';'))
        return ptx_fail(ps, t.line, "expected ';' after a variable, found '%.*s'", (int)t.len,
                        t.text);
    return true;
}

/* ----------------------------------------------------------- functions */

/* ".param .b32 name" in a parameter list. */
static bool parse_param(struct ptx_parser *ps, struct ptx_param **list, int *count, uint32_t *bytes)
{
    struct ptx_token t = ptx_next(&ps->lx);
    if (!ptx_tok_word(&t, ".param") && !ptx_tok_word(&t, ".reg"))
        return ptx_fail(ps, t.line, "expected .param, found '%.*s'", (int)t.len, t.text);
    struct declaration d;
    if (!parse_declaration(ps, &d))
        return false;
    struct ptx_param *grown = realloc(*list, (size_t)(*count + 1) * sizeof *grown);
    if (!grown)
        return ptx_fail(ps, t.line, "out of memory");
    *list = grown;
    struct ptx_param *p = &grown[*count];
    if (!place_in_space(ps, &d, bytes, PTX_PARAM_SPACE_MAX, "parameters", &p->offset))
        return false;
    p->name = dup_text(d.name.text, d.name.len);
    p->size = (uint32_t)declaration_bytes(&d);
    p->align = d.align;
    (*count)++;
    return p->name ? true : ptx_fail(ps, t.line, "out of memory");
}

/* "( .param ..., .param ... )", possibly empty. */
static bool parse_param_list(struct ptx_parser *ps, struct ptx_param **list, int *count,
                             uint32_t *bytes)
{
    if (!expect_punct(ps, '('))
        return false;
    struct ptx_token t = ptx_peek(&ps->lx);
    if (ptx_tok_is(&t, ')'))
        return ptx_next(&ps->lx), true;
    for (;;) {
        if (!parse_param(ps, list, count, bytes))
            return false;
        t = ptx_next(&ps->lx);
        if (ptx_tok_is(&t, ')'))
            return true;
        if (!ptx_tok_is(&t, ','))
            return ptx_fail(ps, t.line, "expected ',' or ')' in a parameter list");
    }
}

static const struct {
    const char *name;
    enum ptx_builtin builtin;
} builtins[] = {
    {"vprintf", PTX_BUILTIN_VPRINTF},
    {"malloc", PTX_BUILTIN_MALLOC},
    {"free", PTX_BUILTIN_FREE},
    {"__assertfail", PTX_BUILTIN_ASSERTFAIL},
};

static enum ptx_builtin builtin_of(const char *name)
{
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (strcmp(builtins[i].name, name) == 0)
            return builtins[i].builtin;
    return PTX_BUILTIN_NONE;
}

/* The function of that name, declared now if new. */
static int function_index(struct ptx_parser *ps, struct ptx_token name, bool *is_new)
{
    struct ptx_module *m = ps->module;
    for (int i = 0; i < m->n_functions; i++)
        if (strlen(m->functions[i].name) == name.len &&
            memcmp(m->functions[i].name, name.text, name.len) == 0) {
            *is_new = false;
            return i;
        }
    struct ptx_function *grown =
        realloc(m->functions, (size_t)(m->n_functions + 1) * sizeof *grown);
    if (!grown)
        return -1;
    m->functions = grown;
    struct ptx_function *f = &m->functions[m->n_functions];
    memset(f, 0, sizeof *f);
    f->name = dup_text(name.text, name.len);
    if (!f->name)
        return -1;
    *is_new = true;
    struct ptx_symbol s = {
        f->name, name.len, PTX_SYM_FUNC, PTX_SPACE_GENERIC, (uint32_t)m->n_functions, 0, 0, 0};
    m->n_functions++;
    return add_symbol(ps, s) ? m->n_functions - 1 : -1;
}

/* Declares a function's parameters as symbols of its body. */
static bool declare_params(struct ptx_parser *ps, struct ptx_function *f)
{
    enum ptx_space space = f->is_entry ? PTX_SPACE_PARAM : PTX_SPACE_CALL_PARAM;
    for (int i = 0; i < f->n_returns; i++) {
        struct ptx_symbol s = {f->returns[i].name,
                               strlen(f->returns[i].name),
                               PTX_SYM_PARAM,
                               space,
                               f->returns[i].offset,
                               0,
                               0,
                               0};
        if (!add_symbol(ps, s))
            return false;
    }
    for (int i = 0; i < f->n_params; i++) {
        struct ptx_symbol s = {f->params[i].name,
                               strlen(f->params[i].name),
                               PTX_SYM_PARAM,
                               space,
                               f->params[i].offset,
                               0,
                               0,
                               0};
        if (!add_symbol(ps, s))
            return false;
    }
    return true;
}

/* Remembers how many 32-bit registers rows [first, first + count) take. */
static bool record_row_units(struct ptx_parser *ps, uint32_t first, uint32_t count, uint8_t units)
{
    struct ptx_function *f = ps->fn;
    if (count > (1u << 24) || first + count > (1u << 24))
        return ptx_fail(ps, ps->lx.line, "too many registers");
    uint8_t *grown = realloc(f->row_units, first + count);
    if (!grown)
        return ptx_fail(ps, ps->lx.line, "out of memory");
    f->row_units = grown;
    memset(grown + first, units, count);
    return true;
}

/* .reg .type name<N> | name, name ... ; */
static bool parse_reg_declaration(struct ptx_parser *ps)
{
    struct declaration d;
    if (!parse_declaration(ps, &d))
        return false;
    for (;;) {
        bool pred = d.type == PTX_PRED;
        uint32_t count = d.has_range ? d.range : 1;
        uint32_t *next = pred ? &ps->fn->n_preds : &ps->fn->n_regs;
        struct ptx_symbol s = {d.name.text,       d.name.len, pred ? PTX_SYM_PRED : PTX_SYM_REG,
                               PTX_SPACE_GENERIC, *next,      d.has_range ? d.range : 0,
                               (uint8_t)d.type,   0};
        if (!pred && !record_row_units(ps, *next, count, ptx_type_bytes(d.type) > 4 ? 2 : 1))
            return false;
        *next += count;
        if (!pred)
            ps->fn->n_declared_regs += count * (ptx_type_bytes(d.type) > 4 ? 2 : 1);
        if (!add_symbol(ps, s))
            return false;
        struct ptx_token t = ptx_next(&ps->lx);
        if (ptx_tok_is(&t, ';'))
            return true;
        if (!ptx_tok_is(&t, ','))
            return ptx_fail(ps, t.line, "expected ';' after .reg, found '%.*s'", (int)t.len,
                            t.text);
        struct ptx_token name = ptx_next(&ps->lx);
        if (name.kind != PTX_TOK_IDENT)
            return ptx_fail(ps, name.line, "expected a register name");
        d.name = name;
        d.has_range = false;
        struct ptx_token n = ptx_peek(&ps->lx);
        if (ptx_tok_is(&n, '<')) {
            uint64_t c;
            ptx_next(&ps->lx);
            if (!expect_int(ps, &c) || !expect_punct(ps, '>'))
                return false;
            d.range = (uint32_t)c;
            d.has_range = true;
        }
    }
}

/* .local or .param inside a body: space in the frame. */
static bool parse_frame_declaration(struct ptx_parser *ps, bool is_local)
{
    struct declaration d;
    if (!parse_declaration(ps, &d) || !expect_punct(ps, ';'))
        return false;
    uint32_t *bytes = is_local ? &ps->fn->local_bytes : &ps->fn->call_param_bytes, offset;
    if (!place_in_space(ps, &d, bytes, is_local ? PTX_LOCAL_SPACE_MAX : PTX_PARAM_SPACE_MAX,
                        is_local ? "local memory" : "call parameters", &offset))
        return false;
    struct ptx_symbol s = {d.name.text,
                           d.name.len,
                           is_local ? PTX_SYM_LOCAL : PTX_SYM_PARAM,
                           is_local ? PTX_SPACE_LOCAL : PTX_SPACE_CALL_PARAM,
                           offset,
                           0,
                           (uint8_t)d.type,
                           0};
    return add_symbol(ps, s);
}

static bool add_label(struct ptx_parser *ps, struct ptx_token name)
{
    if (!grow((void **)&ps->labels, &ps->cap_labels, ps->n_labels + 1, sizeof *ps->labels))
        return ptx_fail(ps, name.line, "out of memory");
    struct ptx_symbol s = {name.text, name.len, PTX_SYM_FUNC, PTX_SPACE_GENERIC, ps->fn->n_code, 0,
                           0,         0};
    ps->labels[ps->n_labels++] = s;
    return true;
}

/* "name : .callprototype [(.param ret)] _ (.param a, ...);": the signature
 * of the indirect calls that name it, a symbol of the current scope. */
static bool parse_prototype(struct ptx_parser *ps, struct ptx_token name)
{
    struct ptx_module *m = ps->module;
    if (!grow((void **)&m->prototypes, &ps->cap_prototypes, m->n_prototypes + 1,
              sizeof *m->prototypes))
        return ptx_fail(ps, name.line, "out of memory");
    struct ptx_function *p = &m->prototypes[m->n_prototypes];
    memset(p, 0, sizeof *p);
    p->name = dup_text(name.text, name.len);
    if (!p->name)
        return ptx_fail(ps, name.line, "out of memory");
    m->n_prototypes++; /* counted now, so the module frees what is read */
    uint32_t bytes = 0;
    if (peek_is(ps, '(') && !parse_param_list(ps, &p->returns, &p->n_returns, &bytes))
        return false;
    struct ptx_token sink = ptx_next(&ps->lx);
    if (!ptx_tok_word(&sink, "_"))
        return ptx_fail(ps, sink.line, "expected '_' in a .callprototype");
    if (!parse_param_list(ps, &p->params, &p->n_params, &bytes) || !expect_punct(ps, ';'))
        return false;
    p->param_bytes = p->call_param_bytes = bytes;
    struct ptx_symbol s = {
        name.text, name.len, PTX_SYM_PROTO, PTX_SPACE_GENERIC, (uint32_t)(m->n_prototypes - 1),
        0,         0,        ps->depth};
    return add_symbol(ps, s);
}

/* ".loc file line column" (and "inlined_at" forms): keeps the line when
 * it is in the function's own file (its first .loc's, or the file that
 * .loc was inlined into). Code inlined from a header (tex2D, surf2Dwrite,
 * an intrinsic's body) keeps the line of the call in the student's source:
 * the line its inlined_at names in the function's own file, else (inlined
 * deeper, into another header function) the last line it had there. */
static bool parse_loc(struct ptx_parser *ps)
{
    uint64_t file, line, inlined_file = 0, inlined_line = 0;
    bool inlined = false;
    if (!expect_int(ps, &file) || !expect_int(ps, &line))
        return false;
    /* the rest: column, function_name, inlined_at F L C */
    int at = ps->lx.line;
    while (ptx_peek(&ps->lx).kind != PTX_TOK_END && ptx_peek(&ps->lx).line == at) {
        struct ptx_token t = ptx_next(&ps->lx);
        if (!inlined && ptx_tok_word(&t, "inlined_at")) {
            if (!expect_int(ps, &inlined_file) || !expect_int(ps, &inlined_line))
                return false;
            inlined = true;
        }
    }
    if (ps->loc_file == 0) /* the function's first .loc: its own code, or inlined into it */
        ps->loc_file = (uint32_t)(inlined ? inlined_file : file) + 1;
    if (file + 1 == ps->loc_file)
        ps->loc_line = (uint32_t)line;
    else if (inlined && inlined_file + 1 == ps->loc_file)
        ps->loc_line = (uint32_t)inlined_line;
    return true;
}

static bool parse_guarded_instruction(struct ptx_parser *ps)
{
    struct ptx_token p = ptx_next(&ps->lx);
    bool neg = false;
    if (ptx_tok_is(&p, '!')) {
        neg = true;
        p = ptx_next(&ps->lx);
    }
    uint32_t row;
    const struct ptx_symbol *s =
        p.kind == PTX_TOK_IDENT ? ptx_lookup(ps, p.text, p.len, &row) : NULL;
    if (!s || s->kind != PTX_SYM_PRED)
        return ptx_fail(ps, p.line, "'@%.*s' is not a predicate register", (int)p.len, p.text);
    return ptx_parse_instruction(ps, ptx_next(&ps->lx), row, neg);
}

/* One statement of a body; *done when the function's closing brace is read. */
static bool parse_statement(struct ptx_parser *ps, bool *done)
{
    struct ptx_token t = ptx_next(&ps->lx);
    if (ptx_tok_is(&t, '{')) {
        ps->depth++;
        return true;
    }
    if (ptx_tok_is(&t, '}')) {
        close_scope(ps);
        *done = ps->depth == 1; /* back to the parameters' scope */
        return true;
    }
    if (ptx_tok_is(&t, '@'))
        return parse_guarded_instruction(ps);
    if (t.kind != PTX_TOK_IDENT)
        return ptx_fail(ps, t.line, "unexpected '%.*s' in a function body", (int)t.len, t.text);
    if (ptx_tok_word(&t, ".reg"))
        return parse_reg_declaration(ps);
    if (ptx_tok_word(&t, ".local") || ptx_tok_word(&t, ".param"))
        return parse_frame_declaration(ps, t.text[1] == 'l');
    if (ptx_tok_word(&t, ".shared"))
        return parse_variable(ps, PTX_SPACE_SHARED, false);
    if (ptx_tok_word(&t, ".loc"))
        return parse_loc(ps);
    if (ptx_tok_word(&t, ".pragma")) {
        struct ptx_token s = ptx_next(&ps->lx);
        return s.kind == PTX_TOK_STRING && expect_punct(ps, ';');
    }
    struct ptx_token n = ptx_peek(&ps->lx);
    if (ptx_tok_is(&n, ':')) {
        ptx_next(&ps->lx);
        n = ptx_peek(&ps->lx);
        if (ptx_tok_word(&n, ".callprototype"))
            return ptx_next(&ps->lx), parse_prototype(ps, t);
        return add_label(ps, t);
    }
    if (t.text[0] == '.')
        return ptx_fail(ps, t.line, "unsupported directive '%.*s' in a function body", (int)t.len,
                        t.text);
    return ptx_parse_instruction(ps, t, PTX_NO_REG, false);
}

static bool resolve_labels(struct ptx_parser *ps)
{
    for (int u = 0; u < ps->n_label_uses; u++) {
        const struct ptx_label_use *use = &ps->label_uses[u];
        int found = -1;
        for (int l = 0; l < ps->n_labels && found < 0; l++)
            if (ps->labels[l].len == use->len &&
                memcmp(ps->labels[l].name, use->name, use->len) == 0)
                found = l;
        if (found < 0)
            return ptx_fail(ps, use->line, "unknown label '%.*s'", (int)use->len, use->name);
        struct ptx_insn *insn = &ps->fn->code[use->insn];
        insn->o[use->operand].imm = ps->labels[found].value;
        if (insn->op == PTX_OP_BRA)
            insn->target = ps->labels[found].value;
    }
    return true;
}

/* Performance directives between the signature and the body. */
static bool parse_performance_directives(struct ptx_parser *ps, struct ptx_function *f)
{
    for (;;) {
        struct ptx_token t = ptx_peek(&ps->lx);
        bool threads = ptx_tok_word(&t, ".maxntid") || ptx_tok_word(&t, ".reqntid");
        if (!threads && !ptx_tok_word(&t, ".minnctapersm") && !ptx_tok_word(&t, ".maxnreg") &&
            !ptx_tok_word(&t, ".maxnctapersm") && !ptx_tok_word(&t, ".noreturn") &&
            !ptx_tok_word(&t, ".pragma"))
            return true;
        ptx_next(&ps->lx);
        if (ptx_tok_word(&t, ".noreturn"))
            continue;
        if (ptx_tok_word(&t, ".pragma")) {
            struct ptx_token s = ptx_next(&ps->lx);
            if (s.kind != PTX_TOK_STRING || !expect_punct(ps, ';'))
                return ptx_fail(ps, t.line, "bad .pragma");
            continue;
        }
        uint64_t product = 1, v;
        do {
            if (!expect_int(ps, &v))
                return false;
            product *= v;
        } while (peek_is(ps, ',') && (ptx_next(&ps->lx), true));
        if (threads)
            f->max_threads = product > 1024 ? 1024 : (int)product;
    }
}

static bool parse_body(struct ptx_parser *ps, int index)
{
    struct ptx_function *f = &ps->module->functions[index];
    ps->fn = f;
    ps->fn_index = index;
    ps->code_cap = 0;
    ps->n_labels = 0;
    ps->n_label_uses = 0;
    ps->loc_line = 0;
    ps->loc_file = 0;
    f->n_regs = PTX_SREG_FIXED;
    ps->depth++; /* the parameters' scope */
    if (!declare_params(ps, f) || !expect_punct(ps, '{'))
        return false;
    ps->depth++;
    bool done = false;
    while (!done && !ps->failed) {
        if (ptx_peek(&ps->lx).kind == PTX_TOK_END)
            return ptx_fail(ps, ps->lx.line, "the body of '%s' has no closing '}'", f->name);
        if (!parse_statement(ps, &done))
            return ptx_fail(ps, ps->lx.line, "cannot read this statement");
    }
    close_scope(ps);
    ps->depth = 0;
    ps->loc_line = 0; /* what follows the body has no source line */
    /* Falling off the end of a body (or branching to a label there) returns. */
    struct ptx_token ret = {PTX_TOK_IDENT, "ret", 3, 0, false, ps->lx.line};
    if (!ptx_parse_implicit_ret(ps, ret))
        return false;
    if (!resolve_labels(ps))
        return false;
    if (ptx_compute_reconvergence(f) != 0 || ptx_find_uninitialized(f) != 0 ||
        ptx_estimate_registers(f) != 0 || ptx_find_dependencies(f) != 0)
        return ptx_fail(ps, ps->lx.line, "out of memory");
    ptx_merge_shared_loads(f);
    return true;
}

static void free_params(struct ptx_param *list, int count)
{
    for (int i = 0; i < count; i++)
        free(list[i].name);
    free(list);
}

/* [.visible|.extern|.weak] (.entry|.func) ... */
static bool parse_function(struct ptx_parser *ps, bool is_entry, bool is_extern)
{
    struct ptx_param *returns = NULL;
    int n_returns = 0;
    uint32_t bytes = 0;
    struct ptx_token t = ptx_peek(&ps->lx);
    if (!is_entry && ptx_tok_is(&t, '(') && !parse_param_list(ps, &returns, &n_returns, &bytes)) {
        free_params(returns, n_returns);
        return false;
    }
    struct ptx_token name = ptx_next(&ps->lx);
    bool is_new = false;
    int index = name.kind == PTX_TOK_IDENT ? function_index(ps, name, &is_new) : -1;
    if (index < 0) {
        free_params(returns, n_returns);
        return ptx_fail(ps, name.line, "expected a function name");
    }
    struct ptx_function *f = &ps->module->functions[index];
    if (is_new) {
        f->is_entry = is_entry;
        f->returns = returns;
        f->n_returns = n_returns;
        f->builtin = is_extern ? builtin_of(f->name) : PTX_BUILTIN_NONE;
        t = ptx_peek(&ps->lx);
        if (ptx_tok_is(&t, '(') && !parse_param_list(ps, &f->params, &f->n_params, &bytes))
            return false;
        f->param_bytes = bytes;
        f->call_param_bytes = is_entry ? 0 : bytes;
    } else {
        /* a definition after a prototype: skip the repeated parameter list */
        free_params(returns, n_returns);
        t = ptx_peek(&ps->lx);
        if (ptx_tok_is(&t, '(')) {
            struct ptx_param *again = NULL;
            int n_again = 0;
            uint32_t b = 0;
            bool ok = parse_param_list(ps, &again, &n_again, &b);
            free_params(again, n_again);
            if (!ok)
                return false;
        }
    }
    f->is_extern = is_extern;
    if (!parse_performance_directives(ps, f))
        return false;
    t = ptx_peek(&ps->lx);
    if (ptx_tok_is(&t, ';'))
        return ptx_next(&ps->lx), true;
    f->is_extern = false;
    if (f->n_code > 0)
        return ptx_fail(ps, name.line, "'%s' is defined twice", f->name);
    return parse_body(ps, index);
}

/* ---------------------------------------------------------------- module */

static bool parse_version(struct ptx_parser *ps)
{
    struct ptx_token t = ptx_next(&ps->lx);
    if (t.kind != PTX_TOK_FLOAT || !t.is_double)
        return ptx_fail(ps, t.line, "bad .version");
    double v;
    memcpy(&v, &t.bits, 8);
    if (!(v >= 1.0 && v < 100.0))
        return ptx_fail(ps, t.line, "bad .version");
    ps->module->version_major = (int)v;
    ps->module->version_minor = (int)((v - (int)v) * 10 + 0.5);
    if (ps->module->version_major > PTX_MAX_VERSION_MAJOR) {
        ps->version_unsupported = true;
        return ptx_fail(
            ps, t.line, "PTX version %d.%d is newer than the virtual GPU reads (up to %d.x)",
            ps->module->version_major, ps->module->version_minor, PTX_MAX_VERSION_MAJOR);
    }
    return true;
}

static bool parse_target(struct ptx_parser *ps)
{
    for (;;) {
        struct ptx_token t = ptx_next(&ps->lx);
        if (t.kind != PTX_TOK_IDENT)
            return ptx_fail(ps, t.line, "bad .target");
        if (t.len > 3 && memcmp(t.text, "sm_", 3) == 0) {
            int sm = 0;
            for (size_t i = 3; i < t.len && t.text[i] >= '0' && t.text[i] <= '9' && sm < 10000; i++)
                sm = sm * 10 + (t.text[i] - '0');
            ps->module->target_sm = sm;
        }
        if (!peek_is(ps, ','))
            return true;
        ptx_next(&ps->lx);
    }
}

static bool parse_file(struct ptx_parser *ps)
{
    uint64_t index;
    if (!expect_int(ps, &index))
        return false;
    struct ptx_token name = ptx_next(&ps->lx);
    if (name.kind != PTX_TOK_STRING)
        return ptx_fail(ps, name.line, "bad .file");
    /* optional ", timestamp, size" */
    while (peek_is(ps, ',')) {
        ptx_next(&ps->lx);
        ptx_next(&ps->lx);
    }
    return true;
}

/* ".section .debug_str { ... }": debugging data NVRTC emits with -lineinfo
 * when it inlines functions; nothing the virtual GPU needs. */
static bool skip_section(struct ptx_parser *ps)
{
    struct ptx_token name = ptx_next(&ps->lx);
    if (name.kind != PTX_TOK_IDENT || !expect_punct(ps, '{'))
        return ptx_fail(ps, name.line, "bad .section");
    for (int depth = 1; depth > 0;) {
        struct ptx_token t = ptx_next(&ps->lx);
        if (t.kind == PTX_TOK_END)
            return ptx_fail(ps, name.line, ".section has no closing '}'");
        depth += ptx_tok_is(&t, '{') - ptx_tok_is(&t, '}');
    }
    return true;
}

static bool parse_module_directive(struct ptx_parser *ps, struct ptx_token t)
{
    bool is_extern = false;
    /* linkage: .common (numba's environment pointer) is a zero-filled
     * definition, as .weak and .visible ones are in a module of its own */
    while (ptx_tok_word(&t, ".visible") || ptx_tok_word(&t, ".extern") ||
           ptx_tok_word(&t, ".weak") || ptx_tok_word(&t, ".common")) {
        is_extern |= ptx_tok_word(&t, ".extern");
        t = ptx_next(&ps->lx);
    }
    if (ptx_tok_word(&t, ".version"))
        return parse_version(ps);
    if (ptx_tok_word(&t, ".target"))
        return parse_target(ps);
    if (ptx_tok_word(&t, ".address_size")) {
        uint64_t size;
        if (!expect_int(ps, &size))
            return false;
        return size == 64 ? true : ptx_fail(ps, t.line, "only .address_size 64 is supported");
    }
    if (ptx_tok_word(&t, ".file"))
        return parse_file(ps);
    if (ptx_tok_word(&t, ".section"))
        return skip_section(ps);
    if (ptx_tok_word(&t, ".entry"))
        return parse_function(ps, true, is_extern);
    if (ptx_tok_word(&t, ".func"))
        return parse_function(ps, false, is_extern);
    if (ptx_tok_word(&t, ".global"))
        return parse_variable(ps, PTX_SPACE_GLOBAL, is_extern);
    if (ptx_tok_word(&t, ".const"))
        return parse_variable(ps, PTX_SPACE_CONST, is_extern);
    if (ptx_tok_word(&t, ".shared"))
        return parse_variable(ps, PTX_SPACE_SHARED, is_extern);
    if (!refuse_reference(ps, &t))
        return false;
    return ptx_fail(ps, t.line, "unsupported PTX construct '%.*s'", (int)t.len, t.text);
}

/* Which fixed special registers the module reads, so a warp fills only those. */
static uint32_t used_special_registers(const struct ptx_module *m)
{
    uint32_t used = 0;
    for (int i = 0; i < m->n_functions; i++)
        for (uint32_t k = 0; k < m->functions[i].n_code; k++)
            for (int o = 0; o < PTX_MAX_OPERANDS; o++) {
                const struct ptx_operand *op = &m->functions[i].code[k].o[o];
                if ((op->kind == PTX_OPD_REG || op->kind == PTX_OPD_ADDR) &&
                    op->reg < PTX_SREG_FIXED)
                    used |= 1u << op->reg;
                for (unsigned v = 0; op->kind == PTX_OPD_VEC && v < op->count; v++)
                    if (op->vec[v] < PTX_SREG_FIXED)
                        used |= 1u << op->vec[v];
            }
    return used;
}

static bool finish_module(struct ptx_parser *ps)
{
    struct ptx_module *m = ps->module;
    m->used_sregs = used_special_registers(m);
    const char *too_large;
    int laid_out = ptx_layout_shared(m, &too_large);
    if (laid_out < 0)
        return ptx_fail(ps, ps->lx.line,
                        "a kernel's shared variables, with '%s', take more than %u bytes",
                        too_large, PTX_SHARED_SPACE_MAX);
    return laid_out > 0 || ptx_fail(ps, ps->lx.line, "out of memory");
}

struct ptx_module *ptx_parse(const char *text, size_t length, char *error, size_t error_size,
                             bool *version_unsupported)
{
    *version_unsupported = false;
    struct ptx_parser ps;
    memset(&ps, 0, sizeof ps);
    ps.error = error;
    ps.error_size = error_size;
    ps.module = calloc(1, sizeof *ps.module);
    if (!ps.module) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    ptx_lexer_init(&ps.lx, text, length);
    for (;;) {
        struct ptx_token t = ptx_next(&ps.lx);
        if (t.kind == PTX_TOK_END)
            break;
        if (t.kind != PTX_TOK_IDENT || !parse_module_directive(&ps, t)) {
            ptx_fail(&ps, t.line, "unexpected '%.*s'", (int)t.len, t.text);
            break;
        }
    }
    if (!ps.failed && ps.module->version_major == 0)
        ptx_fail(&ps, 1, "no .version directive: this is not PTX");
    if (!ps.failed)
        finish_module(&ps);
    *version_unsupported = ps.version_unsupported;
    free(ps.symbols);
    free(ps.labels);
    free(ps.label_uses);
    if (ps.failed) {
        ptx_module_free(ps.module);
        return NULL;
    }
    return ps.module;
}

void ptx_module_free(struct ptx_module *module)
{
    if (!module)
        return;
    for (int i = 0; i < module->n_functions; i++) {
        struct ptx_function *f = &module->functions[i];
        free_params(f->params, f->n_params);
        free_params(f->returns, f->n_returns);
        free(f->code);
        free(f->call_args);
        free(f->zero_rows);
        free(f->row_units);
        free(f->dep_start);
        free(f->deps);
        free(f->rows_read);
        free(f->name);
    }
    for (int i = 0; i < module->n_prototypes; i++) {
        free_params(module->prototypes[i].params, module->prototypes[i].n_params);
        free_params(module->prototypes[i].returns, module->prototypes[i].n_returns);
        free(module->prototypes[i].name);
    }
    for (int i = 0; i < module->n_variables; i++) {
        free(module->variables[i].name);
        free(module->variables[i].init);
    }
    free(module->functions);
    free(module->prototypes);
    free(module->relocs);
    free(module->variables);
    free(module);
}

const char *ptx_op_name(enum ptx_op op)
{
    static const char *const names[] = {
#define PTX_OP_NAME(name, text) text,
        PTX_OPS(PTX_OP_NAME)
#undef PTX_OP_NAME
    };
    return op < PTX_OP_COUNT ? names[op] : "?";
}
