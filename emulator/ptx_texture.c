/*
 * The PTX decoder's part for textures and surfaces: tex, tld4, txq, suld,
 * sust, sured and suq with a texture or surface object (a .u64 register).
 *
 * Their operands bracket an object and a coordinate vector, "[a, {x, y}]",
 * which the ordinary operand reader does not take, so they are read here
 * into a fixed layout:
 *
 *   tex   o[0] d (4 registers), o[1] a, o[2] coordinates, o[3] lod (.level)
 *         or dPdx (.grad), o[4] dPdy (.grad), o[5] the residency predicate p
 *         of "d|p" (always true here)
 *   tld4  o[0] d, o[1] a, o[2] coordinates, o[5] p
 *   txq   o[0] d, o[1] a [, o[2] lod of txq.level]
 *   suq   o[0] d, o[1] a
 *   suld  o[0] d (a register or a vector), o[1] a, o[2] coordinates
 *   sust  o[0] a, o[1] coordinates, o[2] the value (a register or a vector)
 *   sured o[0] a, o[1] coordinates, o[2] the value
 *
 * Coordinates are always a vector (a scalar 1d coordinate becomes one of
 * one element). What CUDA C++ cannot produce is refused with the PTX line
 * and the reason: texture references (.texref, removed in CUDA 12), an
 * explicit sampler, texel offsets, depth comparison, multisample textures,
 * half-precision results and formatted surface access (sust.p, suld.p).
 */
#include "ptx_parser.h"

#include <string.h>

static const struct word_value geometries[] = {
    {"1d", PTX_GEOM_1D},       {"2d", PTX_GEOM_2D},     {"3d", PTX_GEOM_3D},
    {"a1d", PTX_GEOM_A1D},     {"a2d", PTX_GEOM_A2D},   {"cube", PTX_GEOM_CUBE},
    {"acube", PTX_GEOM_ACUBE}, {"2dms", PTX_GEOM_2DMS}, {"a2dms", PTX_GEOM_A2DMS},
};

static const struct word_value queries[] = {
    {"width", PTX_TXQ_WIDTH},
    {"height", PTX_TXQ_HEIGHT},
    {"depth", PTX_TXQ_DEPTH},
    {"channel_data_type", PTX_TXQ_CHANNEL_DATA_TYPE},
    {"channel_order", PTX_TXQ_CHANNEL_ORDER},
    {"normalized_coords", PTX_TXQ_NORMALIZED_COORDS},
    {"array_size", PTX_TXQ_ARRAY_SIZE},
    {"num_mipmap_levels", PTX_TXQ_NUM_MIPMAP_LEVELS},
    {"num_samples", PTX_TXQ_NUM_SAMPLES},
    {"force_unnormalized_coords", PTX_TXQ_FORCE_UNNORMALIZED_COORDS},
    {"filter_mode", PTX_TXQ_FILTER_MODE},
    {"addr_mode_0", PTX_TXQ_ADDR_MODE_0},
    {"addr_mode_1", PTX_TXQ_ADDR_MODE_1},
    {"addr_mode_2", PTX_TXQ_ADDR_MODE_2},
    {"memory_layout", PTX_TXQ_MEMORY_LAYOUT},
};

static const struct word_value clamps[] = {
    {"trap", PTX_SU_TRAP}, {"clamp", PTX_SU_CLAMP}, {"zero", PTX_SU_ZERO}};

static const struct word_value lods[] = {
    {"base", PTX_TEX_BASE}, {"level", PTX_TEX_LEVEL}, {"grad", PTX_TEX_GRAD}};

static const struct word_value components[] = {{"r", 0}, {"g", 1}, {"b", 2}, {"a", 3}};

static const struct word_value reductions[] = {{"add", PTX_ATOM_ADD},
                                               {"min", PTX_ATOM_MIN},
                                               {"max", PTX_ATOM_MAX},
                                               {"and", PTX_ATOM_AND},
                                               {"or", PTX_ATOM_OR}};

/* Cache operations: hints with no effect here. */
static const char *const cache_hints[] = {"ca", "cg", "cs", "cv", "wb", "wt", "nc"};

bool ptx_is_texture_op(enum ptx_op op)
{
    return op == PTX_OP_TEX || op == PTX_OP_TLD4 || op == PTX_OP_TXQ || op == PTX_OP_SULD ||
           op == PTX_OP_SUST || op == PTX_OP_SURED || op == PTX_OP_SUQ;
}

static bool is_surface_access(enum ptx_op op)
{
    return op == PTX_OP_SULD || op == PTX_OP_SUST || op == PTX_OP_SURED;
}

static bool is_cache_hint(const char *word)
{
    for (size_t i = 0; i < sizeof cache_hints / sizeof cache_hints[0]; i++)
        if (strcmp(cache_hints[i], word) == 0)
            return true;
    return false;
}

bool ptx_texture_modifier(struct ptx_insn *insn, const char *word)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    int v;
    bool queries_object = op == PTX_OP_TXQ || op == PTX_OP_SUQ;
    if (!queries_object && LOOKUP(geometries, word, &v))
        return insn->geom = (uint8_t)v, true;
    if (queries_object && LOOKUP(queries, word, &v))
        return insn->bool_op = (uint8_t)v, true;
    if (op == PTX_OP_TXQ && strcmp(word, "level") == 0)
        return true; /* txq.level: the lod operand says it */
    if (op == PTX_OP_TEX && LOOKUP(lods, word, &v))
        return insn->bool_op = (uint8_t)v, true;
    if (op == PTX_OP_TLD4 && LOOKUP(components, word, &v))
        return insn->bool_op = (uint8_t)v, true;
    if (is_surface_access(op) && LOOKUP(clamps, word, &v))
        return insn->bool_op = (uint8_t)v, true;
    if (is_surface_access(op) && strcmp(word, "b") == 0)
        return true; /* unformatted: the only kind there is here */
    if (op == PTX_OP_SURED && LOOKUP(reductions, word, &v))
        return insn->cmp = (uint8_t)v, true;
    if (strcmp(word, "v2") == 0 || strcmp(word, "v4") == 0)
        return insn->vec = (uint8_t)(word[1] - '0'), true;
    return is_surface_access(op) && is_cache_hint(word);
}

/* ------------------------------------------------------------- operands */

static bool expect(struct ptx_parser *ps, char c, const char *what)
{
    struct ptx_token t = ptx_next(&ps->lx);
    if (ptx_tok_is(&t, c))
        return true;
    return ptx_fail(ps, t.line, "expected '%c' %s, found '%.*s'", c, what, (int)t.len, t.text);
}

/* A register, a vector or an immediate. */
static bool operand(struct ptx_parser *ps, struct ptx_insn *insn, int i, enum ptx_type type)
{
    struct ptx_token t = ptx_next(&ps->lx);
    return ptx_read_operand(ps, t, &insn->o[i], type, ps->fn->n_code);
}

/* The object of "[a, ...]": a .u64 register. */
static bool object_operand(struct ptx_parser *ps, struct ptx_insn *insn, int i)
{
    if (!expect(ps, '[', "before a texture or surface object") || !operand(ps, insn, i, PTX_U64))
        return false;
    const struct ptx_operand *o = &insn->o[i];
    if (o->kind == PTX_OPD_REG || o->kind == PTX_OPD_IMM)
        return true;
    return ptx_fail(ps, ps->lx.line,
                    "'%s' needs a texture or surface object in a .u64 register; texture and "
                    "surface references (.texref, .surfref) were removed in CUDA 12 and are not "
                    "supported",
                    ptx_op_name((enum ptx_op)insn->op));
}

/* The coordinates after the object, then ']': always made a vector. */
static bool coordinates(struct ptx_parser *ps, struct ptx_insn *insn, int i)
{
    if (!expect(ps, ',', "after the object") || !operand(ps, insn, i, PTX_S32))
        return false;
    struct ptx_operand *o = &insn->o[i];
    if (o->kind == PTX_OPD_REG) {
        uint32_t row = o->reg;
        o->kind = PTX_OPD_VEC;
        o->count = 1;
        o->vec[0] = row;
    }
    if (o->kind != PTX_OPD_VEC)
        return ptx_fail(ps, ps->lx.line, "the coordinates of '%s' must be registers",
                        ptx_op_name((enum ptx_op)insn->op));
    struct ptx_token t = ptx_next(&ps->lx);
    if (ptx_tok_is(&t, ','))
        return ptx_fail(ps, t.line,
                        "an explicit sampler (independent texturing mode, .samplerref) is not "
                        "supported: CUDA's texture objects carry their sampler");
    return ptx_tok_is(&t, ']') ? true : ptx_fail(ps, t.line, "expected ']' after coordinates");
}

/* d[|p], … of tex and tld4: p goes to o[5]. */
static bool fetch_destination(struct ptx_parser *ps, struct ptx_insn *insn)
{
    if (!operand(ps, insn, 0, (enum ptx_type)insn->type))
        return false;
    struct ptx_token t = ptx_peek(&ps->lx);
    if (ptx_tok_is(&t, '|')) {
        ptx_next(&ps->lx);
        if (!operand(ps, insn, 5, PTX_PRED) || insn->o[5].kind != PTX_OPD_PRED)
            return ptx_fail(ps, t.line, "expected a predicate after '|'");
    }
    return expect(ps, ',', "after the destination");
}

/* ", x" operands after the brackets into o[first..], up to ';'. */
static bool trailing(struct ptx_parser *ps, struct ptx_insn *insn, int first, int *count)
{
    *count = 0;
    for (;;) {
        struct ptx_token t = ptx_next(&ps->lx);
        if (ptx_tok_is(&t, ';'))
            return true;
        if (!ptx_tok_is(&t, ','))
            return ptx_fail(ps, t.line, "expected ',' or ';', found '%.*s'", (int)t.len, t.text);
        if (first + *count >= 5)
            return ptx_fail(ps, t.line, "too many operands");
        if (!operand(ps, insn, first + (*count)++, PTX_F32))
            return false;
    }
}

static bool fetch_operands(struct ptx_parser *ps, struct ptx_insn *insn, int *extra)
{
    return fetch_destination(ps, insn) && object_operand(ps, insn, 1) && coordinates(ps, insn, 2) &&
           trailing(ps, insn, 3, extra);
}

/* The trailing operands of tex and tld4 must be those of their form. */
static bool check_trailing(struct ptx_parser *ps, const struct ptx_insn *insn, int extra)
{
    int wanted = insn->op == PTX_OP_TEX && insn->bool_op == PTX_TEX_LEVEL  ? 1
                 : insn->op == PTX_OP_TEX && insn->bool_op == PTX_TEX_GRAD ? 2
                                                                           : 0;
    if (extra == wanted)
        return true;
    return ptx_fail(ps, ps->lx.line,
                    "texel offsets and depth comparison ('%s' with %d more operands) are not "
                    "supported by the virtual GPU; CUDA C++'s texture functions do not use them",
                    ptx_op_name((enum ptx_op)insn->op), extra);
}

bool ptx_texture_operands(struct ptx_parser *ps, struct ptx_insn *insn)
{
    int extra = 0;
    bool ok;
    switch ((enum ptx_op)insn->op) {
    case PTX_OP_TEX:
    case PTX_OP_TLD4:
        ok = fetch_operands(ps, insn, &extra) && check_trailing(ps, insn, extra);
        insn->n_operands = insn->o[5].kind == PTX_OPD_PRED ? 6 : (uint8_t)(3 + extra);
        return ok;
    case PTX_OP_TXQ:
    case PTX_OP_SUQ:
        ok = operand(ps, insn, 0, PTX_B32) && expect(ps, ',', "after the destination") &&
             object_operand(ps, insn, 1) && expect(ps, ']', "after the object") &&
             trailing(ps, insn, 2, &extra);
        insn->n_operands = (uint8_t)(2 + extra);
        return ok;
    case PTX_OP_SULD:
        ok = operand(ps, insn, 0, (enum ptx_type)insn->type) &&
             expect(ps, ',', "after the destination") && object_operand(ps, insn, 1) &&
             coordinates(ps, insn, 2) && expect(ps, ';', "after the coordinates");
        insn->n_operands = 3;
        return ok;
    default: /* sust, sured */
        ok = object_operand(ps, insn, 0) && coordinates(ps, insn, 1) &&
             expect(ps, ',', "before the value") &&
             operand(ps, insn, 2, (enum ptx_type)insn->type) && expect(ps, ';', "after the value");
        insn->n_operands = 3;
        return ok;
    }
}

/* ------------------------------------------------------------ validation */

/* How many coordinates a geometry takes (a layer index included). */
static unsigned coordinates_needed(enum ptx_geom geom)
{
    switch (geom) {
    case PTX_GEOM_1D:
        return 1;
    case PTX_GEOM_2D:
    case PTX_GEOM_A1D:
        return 2;
    case PTX_GEOM_3D:
    case PTX_GEOM_A2D:
    case PTX_GEOM_CUBE:
        return 3;
    default:
        return 4;
    }
}

static bool geometry_allowed(enum ptx_op op, enum ptx_geom geom)
{
    switch (op) {
    case PTX_OP_TEX:
        return geom >= PTX_GEOM_1D && geom <= PTX_GEOM_ACUBE;
    case PTX_OP_TLD4:
        return geom == PTX_GEOM_2D || geom == PTX_GEOM_A2D || geom == PTX_GEOM_CUBE ||
               geom == PTX_GEOM_ACUBE;
    case PTX_OP_SURED:
        return geom >= PTX_GEOM_1D && geom <= PTX_GEOM_3D;
    default:
        return geom >= PTX_GEOM_1D && geom <= PTX_GEOM_A2D;
    }
}

/* How many registers the value of a surface access has. */
static bool value_shape(const struct ptx_operand *o, unsigned vec)
{
    if (vec == 1)
        return o->kind == PTX_OPD_REG || o->kind == PTX_OPD_IMM ||
               (o->kind == PTX_OPD_VEC && o->count == 1);
    return o->kind == PTX_OPD_VEC && o->count == vec;
}

static bool fetch_types(const struct ptx_insn *insn)
{
    enum ptx_type d = (enum ptx_type)insn->type, c = (enum ptx_type)insn->type2;
    bool cube = insn->geom == PTX_GEOM_CUBE || insn->geom == PTX_GEOM_ACUBE;
    return (d == PTX_U32 || d == PTX_S32 || d == PTX_F32) && (c == PTX_F32 || c == PTX_S32) &&
           (c == PTX_F32 || (!cube && insn->op == PTX_OP_TEX));
}

static bool validate_fetch(struct ptx_parser *ps, const struct ptx_insn *insn, int line,
                           const char *name)
{
    if (!fetch_types(insn))
        return ptx_fail(ps, line,
                        "the virtual GPU supports '%s' with .u32, .s32 or .f32 results and .s32 "
                        "or .f32 coordinates (no half-precision results)",
                        name);
    if (insn->vec != 4 || insn->o[0].kind != PTX_OPD_VEC || insn->o[0].count != 4)
        return ptx_fail(ps, line, "'%s' writes a vector of four registers", name);
    if (insn->o[2].count < coordinates_needed((enum ptx_geom)insn->geom))
        return ptx_fail(ps, line, "'%s' has too few coordinates for its geometry", name);
    return true;
}

static bool validate_surface(struct ptx_parser *ps, const struct ptx_insn *insn, int line,
                             const char *name)
{
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    const struct ptx_operand *value = &insn->o[insn->op == PTX_OP_SULD ? 0 : 2];
    if (insn->op == PTX_OP_SURED) {
        enum ptx_type t = (enum ptx_type)insn->type;
        if (t != PTX_U32 && t != PTX_S32 && t != PTX_B32 && t != PTX_U64 && t != PTX_S64)
            return ptx_fail(ps, line, "sured takes .u32, .s32, .b32, .u64 or .s64");
    } else if (bytes == 0 || bytes > 8 || ptx_type_is_float((enum ptx_type)insn->type)) {
        return ptx_fail(ps, line, "'%s' takes .b8, .b16, .b32 or .b64", name);
    }
    if (!value_shape(value, insn->vec))
        return ptx_fail(ps, line, "the value of '%s' must be %u register%s", name, insn->vec,
                        insn->vec == 1 ? "" : "s in braces");
    if (insn->o[insn->op == PTX_OP_SULD ? 2 : 1].count <
        coordinates_needed((enum ptx_geom)insn->geom))
        return ptx_fail(ps, line, "'%s' has too few coordinates for its geometry", name);
    return true;
}

static bool validate_query(struct ptx_parser *ps, const struct ptx_insn *insn, int line,
                           const char *name)
{
    enum ptx_texture_query q = (enum ptx_texture_query)insn->bool_op;
    bool surface_query = q == PTX_TXQ_WIDTH || q == PTX_TXQ_HEIGHT || q == PTX_TXQ_DEPTH ||
                         q == PTX_TXQ_CHANNEL_DATA_TYPE || q == PTX_TXQ_CHANNEL_ORDER ||
                         q == PTX_TXQ_ARRAY_SIZE || q == PTX_TXQ_MEMORY_LAYOUT;
    if (insn->op == PTX_OP_SUQ ? !surface_query : q == PTX_TXQ_MEMORY_LAYOUT)
        return ptx_fail(ps, line, "'%s' cannot ask that", name);
    if (insn->n_operands > (insn->op == PTX_OP_TXQ && q <= PTX_TXQ_DEPTH ? 3 : 2))
        return ptx_fail(ps, line, "too many operands for '%s'", name);
    if (insn->o[0].kind != PTX_OPD_REG && insn->o[0].kind != PTX_OPD_SINK)
        return ptx_fail(ps, line, "the first operand of '%s' must be a register", name);
    return true;
}

bool ptx_texture_validate(struct ptx_parser *ps, const struct ptx_insn *insn, int line)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    const char *name = ptx_op_name(op);
    if (op == PTX_OP_TXQ || op == PTX_OP_SUQ)
        return validate_query(ps, insn, line, name);
    if (insn->geom == PTX_GEOM_2DMS || insn->geom == PTX_GEOM_A2DMS)
        return ptx_fail(ps, line, "multisample textures are not supported (CUDA has none)");
    if (!geometry_allowed(op, (enum ptx_geom)insn->geom))
        return ptx_fail(ps, line, "'%s' needs a geometry it supports (.1d, .2d, …)", name);
    if (op == PTX_OP_TEX || op == PTX_OP_TLD4)
        return validate_fetch(ps, insn, line, name);
    return validate_surface(ps, insn, line, name);
}
