/*
 * The PTX instruction decoder: one instruction's text → a struct ptx_insn.
 *
 * An opcode token such as "setp.ne.and.s32" is split at its dots: the base
 * names the operation, and each modifier is classified (type, rounding,
 * comparison, state space, …) by what the operation accepts, since the same
 * word means different things in different places ("lo" is a comparison in
 * setp and the low half in mul; "and" a boolean in setp and an operation in
 * atom). A modifier the decoder does not know stops the load: it never
 * guesses at semantics. Modifiers that only carry hints (caching, memory
 * ordering and scope, which lockstep execution makes moot) are accepted.
 */
#include "ptx_parser.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORD_MAX 32

static const struct word_value roundings[] = {
    {"rn", ARITH_RN},  {"rz", ARITH_RZ},  {"rm", ARITH_RM},  {"rp", ARITH_RP},   {"rni", ARITH_RN},
    {"rzi", ARITH_RZ}, {"rmi", ARITH_RM}, {"rpi", ARITH_RP}, {"rna", ARITH_RNA},
};

static const struct word_value comparisons[] = {
    {"eq", PTX_CMP_EQ},   {"ne", PTX_CMP_NE},   {"lt", PTX_CMP_LT},   {"le", PTX_CMP_LE},
    {"gt", PTX_CMP_GT},   {"ge", PTX_CMP_GE},   {"lo", PTX_CMP_LO},   {"ls", PTX_CMP_LS},
    {"hi", PTX_CMP_HI},   {"hs", PTX_CMP_HS},   {"equ", PTX_CMP_EQU}, {"neu", PTX_CMP_NEU},
    {"ltu", PTX_CMP_LTU}, {"leu", PTX_CMP_LEU}, {"gtu", PTX_CMP_GTU}, {"geu", PTX_CMP_GEU},
    {"num", PTX_CMP_NUM}, {"nan", PTX_CMP_NAN},
};

static const struct word_value bool_ops[] = {
    {"and", PTX_BOOL_AND}, {"or", PTX_BOOL_OR}, {"xor", PTX_BOOL_XOR}};

static const struct word_value atom_ops[] = {
    {"add", PTX_ATOM_ADD},   {"min", PTX_ATOM_MIN}, {"max", PTX_ATOM_MAX},   {"inc", PTX_ATOM_INC},
    {"dec", PTX_ATOM_DEC},   {"and", PTX_ATOM_AND}, {"or", PTX_ATOM_OR},     {"xor", PTX_ATOM_XOR},
    {"exch", PTX_ATOM_EXCH}, {"cas", PTX_ATOM_CAS}, {"popc", PTX_ATOM_POPC},
};

static const struct word_value spaces[] = {
    {"global", PTX_SPACE_GLOBAL}, {"shared", PTX_SPACE_SHARED}, {"local", PTX_SPACE_LOCAL},
    {"param", PTX_SPACE_PARAM},   {"const", PTX_SPACE_CONST},   {"generic", PTX_SPACE_GENERIC},
};

static const struct word_value shfl_modes[] = {
    {"up", PTX_SHFL_UP}, {"down", PTX_SHFL_DOWN}, {"bfly", PTX_SHFL_BFLY}, {"idx", PTX_SHFL_IDX}};

static const struct word_value vote_modes[] = {{"all", PTX_VOTE_ALL},
                                               {"any", PTX_VOTE_ANY},
                                               {"uni", PTX_VOTE_UNI},
                                               {"ballot", PTX_VOTE_BALLOT}};

static const struct word_value testp_ops[] = {
    {"finite", ARITH_TESTP_FINITE}, {"infinite", ARITH_TESTP_INFINITE},
    {"number", ARITH_TESTP_NUMBER}, {"notanumber", ARITH_TESTP_NOTANUMBER},
    {"normal", ARITH_TESTP_NORMAL}, {"subnormal", ARITH_TESTP_SUBNORMAL},
};

static const struct word_value cp_modes[] = {
    {"commit_group", PTX_CP_COMMIT}, {"wait_group", PTX_CP_WAIT}, {"wait_all", PTX_CP_WAIT},
    {"mbarrier", PTX_CP_ARRIVE},     {"bulk", PTX_CP_BULK},
};

static const struct word_value mbarrier_modes[] = {
    {"init", PTX_MBAR_INIT},
    {"arrive", PTX_MBAR_ARRIVE},
    {"arrive_drop", PTX_MBAR_ARRIVE_DROP},
    {"test_wait", PTX_MBAR_TEST_WAIT},
    {"try_wait", PTX_MBAR_TRY_WAIT},
    {"pending_count", PTX_MBAR_PENDING},
    {"inval", PTX_MBAR_INVAL},
    {"expect_tx", PTX_MBAR_EXPECT_TX},
    {"complete_tx", PTX_MBAR_COMPLETE_TX},
};

static const struct word_value flag_words[] = {
    {"ftz", PTX_F_FTZ},         {"sat", PTX_F_SAT},
    {"approx", PTX_F_APPROX},   {"full", PTX_F_FULL},
    {"wide", PTX_F_WIDE},       {"cc", PTX_F_CC},
    {"to", PTX_F_TO},           {"clamp", PTX_F_CLAMP},
    {"arrive", PTX_F_ARRIVE},   {"shiftamt", PTX_F_SHIFTAMT},
    {"relu", PTX_F_RELU},       {"satfinite", PTX_F_SATFINITE},
    {"NaN", PTX_F_NAN},         {"xorsign", PTX_F_XORSIGN_ABS},
    {"abs", PTX_F_XORSIGN_ABS}, {"release", PTX_F_ORDERED},
    {"acquire", PTX_F_ORDERED}, {"acq_rel", PTX_F_ORDERED},
    {"sc", PTX_F_ORDERED},
};

/* Hints with no effect on what a lockstep interpreter computes. */
static const char *const hint_words[] = {
    "uni", "sync",    "aligned", "nc",      "volatile", "relaxed", "weak", "mmio",
    "gpu", "cta",     "sys",     "cluster", "ca",       "cg",      "cs",   "lu",
    "cv",  "wb",      "wt",      "gl",      "noftz",    "wrap",    "L1",   "L2",
    "reg", "cta_pol", "level",   "proxy",   "async",    "warp",    "b",
};

bool ptx_word_lookup(const struct word_value *table, size_t n, const char *word, int *value)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(table[i].word, word) == 0) {
            *value = table[i].value;
            return true;
        }
    return false;
}

static bool is_hint(const char *word)
{
    for (size_t i = 0; i < sizeof hint_words / sizeof hint_words[0]; i++)
        if (strcmp(hint_words[i], word) == 0)
            return true;
    return false;
}

static int base_op(const char *word)
{
    static const char *const names[] = {
#define PTX_OP_TEXT(name, text) text,
        PTX_OPS(PTX_OP_TEXT)
#undef PTX_OP_TEXT
    };
    for (int i = 0; i < PTX_OP_COUNT; i++)
        if (strcmp(names[i], word) == 0)
            return i;
    return -1;
}

static void set_type(struct ptx_insn *insn, enum ptx_type t)
{
    if (insn->type == PTX_TYPE_NONE)
        insn->type = (uint8_t)t;
    else
        insn->type2 = (uint8_t)t;
}

/* A modifier with a "::" qualifier: shared::cta and shared::cluster name
 * the block's shared memory (a cluster here is one block); L1:: and L2::
 * are cache hints. False for others. */
static bool apply_qualified(struct ptx_insn *insn, const char *word)
{
    if (strcmp(word, "shared::cta") == 0 || strcmp(word, "shared::cluster") == 0)
        return insn->space = PTX_SPACE_SHARED, true;
    return strncmp(word, "L1::", 4) == 0 ||
           (strncmp(word, "L2::", 4) == 0 && strcmp(word, "L2::cache_hint") != 0);
}

/* The words of cp.async.bulk: its two spaces, destination first (the
 * first one read is kept), how it completes, or its group's commit_group
 * and wait_group. Every word of
 * cp.async.bulk.tensor is taken, to refuse the instruction by name. */
static bool bulk_modifier(struct ptx_insn *insn, const char *word)
{
    int v;
    if (insn->cmp == PTX_CP_BULK_TENSOR)
        return true;
    if (LOOKUP(cp_modes, word, &v) && (v == PTX_CP_COMMIT || v == PTX_CP_WAIT))
        return insn->cmp = (uint8_t)v, true; /* cp.async.bulk.commit_group, .wait_group */
    if (strcmp(word, "tensor") == 0)
        return insn->cmp = PTX_CP_BULK_TENSOR, true;
    if (strcmp(word, "mbarrier::complete_tx::bytes") == 0)
        return insn->bool_op = PTX_BULK_MBARRIER, true;
    if (strcmp(word, "bulk_group") == 0)
        return insn->bool_op = PTX_BULK_GROUP, true;
    bool shared = strcmp(word, "shared::cluster") == 0 || strcmp(word, "shared::cta") == 0 ||
                  strcmp(word, "shared") == 0;
    if (!shared && !(LOOKUP(spaces, word, &v) && v == PTX_SPACE_GLOBAL))
        return false;
    enum ptx_space space = shared ? PTX_SPACE_SHARED : PTX_SPACE_GLOBAL;
    if (insn->space == PTX_SPACE_GENERIC)
        return insn->space = (uint8_t)space, true;
    return insn->space != space; /* from one space to the other */
}

/* Classifies one modifier of `insn` (whose op is known). */
static bool apply_modifier(struct ptx_insn *insn, const char *word)
{
    int v;
    if (insn->op == PTX_OP_CP && insn->cmp >= PTX_CP_BULK)
        return bulk_modifier(insn, word);
    if (strstr(word, "::"))
        return apply_qualified(insn, word);
    enum ptx_op op = (enum ptx_op)insn->op;
    char dotted[WORD_MAX + 2];
    snprintf(dotted, sizeof dotted, ".%s", word);
    if (op == PTX_OP_WMMA && ptx_wmma_modifier(insn, word))
        return true;
    if (ptx_is_video_op(op))
        return ptx_video_modifier(insn, word);
    enum ptx_type t = ptx_type_of(dotted, strlen(dotted));
    if (t != PTX_TYPE_NONE) {
        set_type(insn, t);
        return true;
    }
    if (ptx_is_texture_op(op))
        return ptx_texture_modifier(insn, word);
    bool compares = op == PTX_OP_SETP || op == PTX_OP_SET;
    bool atomic = op == PTX_OP_ATOM || op == PTX_OP_RED;
    if (compares && LOOKUP(comparisons, word, &v))
        return insn->cmp = (uint8_t)v, true;
    if (compares && LOOKUP(bool_ops, word, &v))
        return insn->bool_op = (uint8_t)v, true;
    if (atomic && LOOKUP(atom_ops, word, &v))
        return insn->cmp = (uint8_t)v, true;
    if (op == PTX_OP_BAR || op == PTX_OP_BARRIER) {
        if (strcmp(word, "red") == 0)
            return true;
        if (strcmp(word, "warp") == 0)
            return insn->flags |= PTX_F_WARP_SYNC, true;
        if (strcmp(word, "popc") == 0)
            return insn->flags |= PTX_F_RED_POPC, true;
        if (strcmp(word, "and") == 0)
            return insn->flags |= PTX_F_RED_AND, true;
        if (strcmp(word, "or") == 0)
            return insn->flags |= PTX_F_RED_OR, true;
    }
    if (op == PTX_OP_SHFL && LOOKUP(shfl_modes, word, &v))
        return insn->cmp = (uint8_t)v, true;
    if (op == PTX_OP_VOTE && LOOKUP(vote_modes, word, &v))
        return insn->cmp = (uint8_t)v, true;
    if (op == PTX_OP_REDUX && LOOKUP(atom_ops, word, &v))
        return insn->cmp = (uint8_t)v, true;
    if (op == PTX_OP_MATCH && (strcmp(word, "any") == 0 || strcmp(word, "all") == 0))
        return insn->cmp = word[1] == 'l', true; /* 1: .all */
    if (op == PTX_OP_TESTP && LOOKUP(testp_ops, word, &v))
        return insn->bool_op = (uint8_t)v, true;
    if (op == PTX_OP_CP && strcmp(word, "async") == 0) /* the copy, unless a mode follows */
        return insn->cmp = insn->cmp ? insn->cmp : PTX_CP_COPY, true;
    if (op == PTX_OP_CP && LOOKUP(cp_modes, word, &v))
        return insn->cmp = (uint8_t)v, true;
    if (op == PTX_OP_CP && insn->cmp == PTX_CP_ARRIVE && strcmp(word, "arrive") == 0)
        return true;
    if (op == PTX_OP_CP && insn->cmp == PTX_CP_WAIT && strcmp(word, "read") == 0)
        return true; /* cp.async.bulk.wait_group.read: the copies are done */
    if ((op == PTX_OP_CP || op == PTX_OP_MBARRIER) && strcmp(word, "noinc") == 0)
        return insn->flags |= PTX_F_NOINC, true;
    if (op == PTX_OP_MBARRIER && LOOKUP(mbarrier_modes, word, &v)) {
        if (insn->cmp == PTX_MBAR_ARRIVE && v == PTX_MBAR_EXPECT_TX)
            v = PTX_MBAR_ARRIVE_EXPECT_TX;
        else if (insn->cmp != 0) /* two forms in one: arrive_drop.expect_tx, ... */
            return false;
        return insn->cmp = (uint8_t)v, true;
    }
    if (op == PTX_OP_MBARRIER && strcmp(word, "parity") == 0)
        return insn->flags |= PTX_F_PARITY, true;
    if (op == PTX_OP_GRIDDEPCONTROL &&
        (strcmp(word, "wait") == 0 || strcmp(word, "launch_dependents") == 0))
        return true;
    if (op == PTX_OP_SHF && (strcmp(word, "l") == 0 || strcmp(word, "r") == 0))
        return insn->flags |= word[0] == 'l' ? PTX_F_SHIFT_LEFT : 0, true;
    if (!compares && (strcmp(word, "hi") == 0 || strcmp(word, "lo") == 0))
        return insn->flags |= word[0] == 'h' ? PTX_F_HI : PTX_F_LO, true;
    if (LOOKUP(roundings, word, &v))
        return insn->rnd = (uint8_t)v, insn->flags |= PTX_F_HAS_RND, true;
    if (LOOKUP(spaces, word, &v))
        return insn->space = (uint8_t)v, true;
    if (strcmp(word, "v2") == 0 || strcmp(word, "v4") == 0)
        return insn->vec = (uint8_t)(word[1] - '0'), true;
    if (LOOKUP(flag_words, word, &v))
        return insn->flags |= (uint32_t)v, true;
    return is_hint(word);
}

/* Splits "setp.ne.and.s32" and fills op, types and modifiers. */
static bool decode_opcode(struct ptx_parser *ps, struct ptx_token t, struct ptx_insn *insn)
{
    char word[WORD_MAX + 1];
    size_t i = 0;
    int index = 0;
    while (i <= t.len) {
        size_t start = i;
        while (i < t.len && t.text[i] != '.')
            i++;
        size_t n = i - start;
        if (n == 0 || n > WORD_MAX)
            return ptx_fail(ps, t.line, "cannot read the instruction '%.*s'", (int)t.len, t.text);
        memcpy(word, t.text + start, n);
        word[n] = '\0';
        if (index++ == 0) {
            int op = base_op(word);
            if (op < 0)
                return ptx_fail(ps, t.line, "unsupported instruction '%.*s'", (int)t.len, t.text);
            insn->op = (uint8_t)op;
        } else if (!apply_modifier(insn, word)) {
            return ptx_fail(ps, t.line, "unsupported modifier '.%s' in '%.*s'", word, (int)t.len,
                            t.text);
        }
        i++;
    }
    if (insn->vec == 0)
        insn->vec = 1;
    /* In cvt and set the first type is the destination's. */
    return true;
}

/* ------------------------------------------------------------- operands */

/* An immediate converted to the bits `type` wants. */
static int64_t immediate_bits(struct ptx_token t, bool negative, enum ptx_type type)
{
    if (t.kind == PTX_TOK_INT) {
        int64_t v = negative ? (int64_t)(0 - t.bits) : (int64_t)t.bits;
        if (type == PTX_F32) {
            float f = (float)v;
            uint32_t u;
            memcpy(&u, &f, 4);
            return u;
        }
        if (type == PTX_F64) {
            double d = (double)v;
            int64_t u;
            memcpy(&u, &d, 8);
            return u;
        }
        return v;
    }
    double d;
    float f;
    if (t.is_double) {
        memcpy(&d, &t.bits, 8);
    } else {
        uint32_t u = (uint32_t)t.bits;
        memcpy(&f, &u, 4);
        d = f;
    }
    if (negative)
        d = -d;
    if (type == PTX_F64) {
        int64_t u;
        memcpy(&u, &d, 8);
        return u;
    }
    if (!t.is_double && !negative)
        return (int64_t)(uint32_t)t.bits; /* keep the exact f32 bits, NaN payloads included */
    f = (float)d;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static const struct word_value special_registers[] = {
    {"%tid.x", PTX_SREG_TID_X},
    {"%tid.y", PTX_SREG_TID_Y},
    {"%tid.z", PTX_SREG_TID_Z},
    {"%ntid.x", PTX_SREG_NTID_X},
    {"%ntid.y", PTX_SREG_NTID_Y},
    {"%ntid.z", PTX_SREG_NTID_Z},
    {"%ctaid.x", PTX_SREG_CTAID_X},
    {"%ctaid.y", PTX_SREG_CTAID_Y},
    {"%ctaid.z", PTX_SREG_CTAID_Z},
    {"%nctaid.x", PTX_SREG_NCTAID_X},
    {"%nctaid.y", PTX_SREG_NCTAID_Y},
    {"%nctaid.z", PTX_SREG_NCTAID_Z},
    {"%laneid", PTX_SREG_LANEID},
    {"%warpid", PTX_SREG_WARPID},
    {"%nwarpid", PTX_SREG_NWARPID},
    {"%smid", PTX_SREG_SMID},
    {"%nsmid", PTX_SREG_NSMID},
    {"%gridid", PTX_SREG_GRIDID},
    {"%lanemask_eq", PTX_SREG_LANEMASK_EQ},
    {"%lanemask_lt", PTX_SREG_LANEMASK_LT},
    {"%lanemask_le", PTX_SREG_LANEMASK_LE},
    {"%lanemask_gt", PTX_SREG_LANEMASK_GT},
    {"%lanemask_ge", PTX_SREG_LANEMASK_GE},
    {"%dynamic_smem_size", PTX_SREG_DYNAMIC_SMEM},
    {"%total_smem_size", PTX_SREG_TOTAL_SMEM},
    {"%clock", PTX_SREG_CLOCK},
    {"%clock64", PTX_SREG_CLOCK64},
    {"%globaltimer", PTX_SREG_GLOBALTIMER},
    /* a cluster of one block: launches here have no clusters */
    {"%clusterid.x", PTX_SREG_CTAID_X},
    {"%clusterid.y", PTX_SREG_CTAID_Y},
    {"%clusterid.z", PTX_SREG_CTAID_Z},
    {"%nclusterid.x", PTX_SREG_NCTAID_X},
    {"%nclusterid.y", PTX_SREG_NCTAID_Y},
    {"%nclusterid.z", PTX_SREG_NCTAID_Z},
};

/* Special registers whose value is the same for every thread of every
 * launch here: no clusters (one block each), no reserved shared memory, and
 * no driver environment (%envreg0..31, which a cooperative launch's grid
 * sync would read its workspace from). */
static const struct word_value constant_registers[] = {
    {"%cluster_ctarank", 0},          {"%cluster_nctarank", 1},
    {"%cluster_ctaid.x", 0},          {"%cluster_ctaid.y", 0},
    {"%cluster_ctaid.z", 0},          {"%cluster_nctaid.x", 1},
    {"%cluster_nctaid.y", 1},         {"%cluster_nctaid.z", 1},
    {"%is_explicit_cluster", 0},      {"%reserved_smem_offset_begin", 0},
    {"%reserved_smem_offset_end", 0}, {"%reserved_smem_offset_cap", 0},
    {"%reserved_smem_offset_0", 0},   {"%reserved_smem_offset_1", 0},
};

/* The value of a constant special register or of WARP_SZ (what warpSize
 * compiles to); false for other names. */
static bool constant_register(const char *word, int64_t *value)
{
    int v;
    unsigned n;
    char end;
    if (strcmp(word, "WARP_SZ") == 0)
        return *value = PTX_WARP_SZ, true;
    if (sscanf(word, "%%envreg%u%c", &n, &end) == 1 && n < 32)
        return *value = 0, true;
    if (LOOKUP(constant_registers, word, &v))
        return *value = v, true;
    return false;
}

/* A name: register, special register, variable, parameter, depot, function,
 * or (for a branch's operand, operand >= 0) a label to resolve at the end of
 * the function. */
static bool name_operand(struct ptx_parser *ps, struct ptx_token t, struct ptx_operand *o,
                         uint32_t insn_index, int operand)
{
    char word[WORD_MAX + 1];
    int v;
    if (t.len <= WORD_MAX) {
        memcpy(word, t.text, t.len);
        word[t.len] = '\0';
        if (LOOKUP(special_registers, word, &v)) {
            o->kind = v < PTX_SREG_FIXED ? PTX_OPD_REG : PTX_OPD_SREG;
            o->reg = (uint32_t)v;
            return true;
        }
        if (strcmp(word, "_") == 0)
            return o->kind = PTX_OPD_SINK, true;
        if (constant_register(word, &o->imm))
            return o->kind = PTX_OPD_IMM, true;
    }
    uint32_t row;
    const struct ptx_symbol *s = ptx_lookup(ps, t.text, t.len, &row);
    if (!s && operand < 0)
        return ptx_fail(ps, t.line, "unknown name '%.*s'", (int)t.len, t.text);
    if (!s) {
        /* a label, known once the function is read */
        struct ptx_label_use use = {t.text, t.len, insn_index, operand, t.line};
        int need = ps->n_label_uses + 1;
        if (need > ps->cap_label_uses) {
            int cap = ps->cap_label_uses ? ps->cap_label_uses * 2 : 16;
            void *p = realloc(ps->label_uses, (size_t)cap * sizeof use);
            if (!p)
                return ptx_fail(ps, t.line, "out of memory");
            ps->label_uses = p;
            ps->cap_label_uses = cap;
        }
        ps->label_uses[ps->n_label_uses++] = use;
        o->kind = PTX_OPD_LABEL;
        return true;
    }
    switch (s->kind) {
    case PTX_SYM_REG:
        o->kind = PTX_OPD_REG;
        o->reg = row;
        return true;
    case PTX_SYM_PRED:
        o->kind = PTX_OPD_PRED;
        o->reg = row;
        return true;
    case PTX_SYM_VAR:
        o->kind = PTX_OPD_SYMBOL;
        o->space = (uint8_t)s->space;
        o->var = (int32_t)s->value;
        return true;
    case PTX_SYM_PARAM:
    case PTX_SYM_LOCAL:
        o->kind = PTX_OPD_SYMBOL;
        o->space = (uint8_t)s->space;
        o->imm = s->value;
        return true;
    case PTX_SYM_FUNC: /* its address: a function pointer */
        ps->module->functions[s->value].address_taken = true;
        o->kind = PTX_OPD_IMM;
        o->imm = (int64_t)ptx_function_address((int)s->value);
        return true;
    case PTX_SYM_PROTO:
        break;
    }
    return ptx_fail(ps, t.line, "cannot use '%.*s' here", (int)t.len, t.text);
}

/* [reg], [reg+imm], [reg+-imm], [symbol+imm], [imm]. */
static bool address_operand(struct ptx_parser *ps, struct ptx_operand *o, uint32_t index)
{
    struct ptx_token t = ptx_next(&ps->lx);
    struct ptx_operand base;
    memset(&base, 0, sizeof base);
    base.var = -1;
    o->kind = PTX_OPD_ADDR;
    o->reg = PTX_NO_REG;
    if (t.kind == PTX_TOK_IDENT) {
        if (!name_operand(ps, t, &base, index, -1))
            return false;
        if (base.kind == PTX_OPD_REG) {
            o->reg = base.reg;
        } else if (base.kind == PTX_OPD_SYMBOL) {
            o->space = base.space;
            o->var = base.var;
            o->imm = base.imm;
            o->count = 1; /* marks a symbol base: the space is the symbol's */
        } else {
            return ptx_fail(ps, t.line, "cannot take '%.*s' as an address", (int)t.len, t.text);
        }
        t = ptx_next(&ps->lx);
    } else if (t.kind == PTX_TOK_INT) {
        o->imm = (int64_t)t.bits;
        t = ptx_next(&ps->lx);
    }
    while (ptx_tok_is(&t, '+') || ptx_tok_is(&t, '-')) {
        bool negative = ptx_tok_is(&t, '-');
        struct ptx_token n = ptx_next(&ps->lx);
        if (ptx_tok_is(&n, '-')) {
            negative = !negative;
            n = ptx_next(&ps->lx);
        }
        if (n.kind != PTX_TOK_INT)
            return ptx_fail(ps, n.line, "expected an offset in an address");
        o->imm += negative ? (int64_t)(0 - n.bits) : (int64_t)n.bits;
        t = ptx_next(&ps->lx);
    }
    if (!ptx_tok_is(&t, ']'))
        return ptx_fail(ps, t.line, "expected ']' in an address, found '%.*s'", (int)t.len, t.text);
    return true;
}

static bool vector_operand(struct ptx_parser *ps, struct ptx_operand *o, uint32_t index)
{
    o->kind = PTX_OPD_VEC;
    for (;;) {
        struct ptx_token t = ptx_next(&ps->lx);
        struct ptx_operand element;
        memset(&element, 0, sizeof element);
        if (t.kind == PTX_TOK_INT && t.bits == 0) /* {0, %h}: reads as zero, as "_" does */
            element.kind = PTX_OPD_SINK;
        else if (t.kind != PTX_TOK_IDENT || !name_operand(ps, t, &element, index, -1) ||
                 (element.kind != PTX_OPD_REG && element.kind != PTX_OPD_SINK))
            return ptx_fail(ps, t.line, "expected a register, '_' or 0 in a vector");
        if (o->count >= PTX_MAX_VEC)
            return ptx_fail(ps, t.line, "a vector has at most %d elements", PTX_MAX_VEC);
        o->vec[o->count++] = element.kind == PTX_OPD_SINK ? PTX_NO_REG : element.reg;
        t = ptx_next(&ps->lx);
        if (ptx_tok_is(&t, '}'))
            return true;
        if (!ptx_tok_is(&t, ','))
            return ptx_fail(ps, t.line, "expected ',' or '}' in a vector");
    }
}

/* Label operands are for branches only; elsewhere an unknown name is an error. */
static int label_slot(const struct ptx_insn *insn, int operand)
{
    return insn->op == PTX_OP_BRA ? operand : -1;
}

/* One operand, from its first token. `type` types the immediates. */
static bool parse_operand(struct ptx_parser *ps, struct ptx_token t, struct ptx_operand *o,
                          enum ptx_type type, uint32_t index, int operand)
{
    memset(o, 0, sizeof *o);
    o->var = -1;
    o->reg = PTX_NO_REG;
    if (ptx_tok_is(&t, '['))
        return address_operand(ps, o, index);
    if (ptx_tok_is(&t, '{'))
        return vector_operand(ps, o, index);
    bool negative = false;
    if (ptx_tok_is(&t, '!')) {
        t = ptx_next(&ps->lx);
        if (!name_operand(ps, t, o, index, operand) || o->kind != PTX_OPD_PRED)
            return ptx_fail(ps, t.line, "'!' needs a predicate register");
        o->neg = 1;
        return true;
    }
    if (ptx_tok_is(&t, '-')) {
        negative = true;
        t = ptx_next(&ps->lx);
    }
    if (t.kind == PTX_TOK_INT || t.kind == PTX_TOK_FLOAT) {
        o->kind = PTX_OPD_IMM;
        o->imm = immediate_bits(t, negative, type);
        return true;
    }
    if (t.kind == PTX_TOK_IDENT && !negative)
        return name_operand(ps, t, o, index, operand);
    return ptx_fail(ps, t.line, "cannot read the operand '%.*s'", (int)t.len, t.text);
}

bool ptx_read_operand(struct ptx_parser *ps, struct ptx_token t, struct ptx_operand *o,
                      enum ptx_type type, uint32_t insn_index)
{
    return parse_operand(ps, t, o, type, insn_index, -1);
}

/* The type immediates of operand `i` take: cvt's source is the second type;
 * shifts and bfe/bfi positions, shfl lanes, selp's predicate, wmma's stride
 * are 32-bit. */
static enum ptx_type operand_type(const struct ptx_insn *insn, int i)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    if ((op == PTX_OP_CVT || op == PTX_OP_SET) && i > 0)
        return (enum ptx_type)insn->type2;
    if ((op == PTX_OP_SHL || op == PTX_OP_SHR) && i == 2)
        return PTX_U32;
    if ((op == PTX_OP_BFE && i >= 2) || (op == PTX_OP_BFI && i >= 3) ||
        (op == PTX_OP_SHFL && i >= 2) || op == PTX_OP_WMMA) /* wmma: the stride */
        return PTX_U32;
    return (enum ptx_type)insn->type;
}

/* ------------------------------------------------------------------ call */

static bool append_call_arg(struct ptx_parser *ps, uint32_t offset)
{
    struct ptx_function *f = ps->fn;
    uint32_t *p = realloc(f->call_args, (f->n_call_args + 1) * sizeof *p);
    if (!p)
        return ptx_fail(ps, ps->lx.line, "out of memory");
    f->call_args = p;
    f->call_args[f->n_call_args++] = offset;
    return true;
}

static bool expect_open(struct ptx_parser *ps)
{
    struct ptx_token t = ptx_next(&ps->lx);
    return ptx_tok_is(&t, '(') ? true : ptx_fail(ps, t.line, "expected '(' in a call");
}

/* "(name, name)" of .param symbols of the caller. */
static bool call_param_list(struct ptx_parser *ps, uint32_t *count)
{
    *count = 0;
    for (;;) {
        struct ptx_token t = ptx_next(&ps->lx);
        if (ptx_tok_is(&t, ')') && *count == 0)
            return true;
        uint32_t row;
        const struct ptx_symbol *s =
            t.kind == PTX_TOK_IDENT ? ptx_lookup(ps, t.text, t.len, &row) : NULL;
        if (!s || s->kind != PTX_SYM_PARAM || s->space != PTX_SPACE_CALL_PARAM)
            return ptx_fail(ps, t.line, "a call's arguments must be .param variables, not '%.*s'",
                            (int)t.len, t.text);
        if (!append_call_arg(ps, s->value))
            return false;
        (*count)++;
        t = ptx_next(&ps->lx);
        if (ptx_tok_is(&t, ')'))
            return true;
        if (!ptx_tok_is(&t, ','))
            return ptx_fail(ps, t.line, "expected ',' or ')' in a call");
    }
}

/* What kgrade's built-in functions read of their arguments and write of
 * their return value (builtins.c), whatever the program declares. */
static const struct {
    uint8_t n_args;
    uint8_t arg_bytes[3];
    uint8_t return_bytes;
} builtin_abi[] = {
    [PTX_BUILTIN_VPRINTF] = {2, {8, 8}, 4},
    [PTX_BUILTIN_MALLOC] = {1, {8}, 8},
    [PTX_BUILTIN_FREE] = {1, {8}, 0},
    [PTX_BUILTIN_ASSERTFAIL] = {3, {8, 8, 4}, 0},
};

/* Whether `bytes` at `offset` lie inside the caller's call parameters. */
static bool inside_call_space(const struct ptx_function *caller, uint32_t offset, uint32_t bytes)
{
    return (uint64_t)offset + bytes <= caller->call_param_bytes;
}

/* Every argument a call passes and the return value it takes lie inside
 * the caller's call parameters, and a built-in gets the arguments it
 * reads: the interpreter copies them without checks of its own. */
static bool call_fits(struct ptx_parser *ps, const struct ptx_insn *insn,
                      const struct ptx_function *callee, int line)
{
    const struct ptx_function *caller = ps->fn;
    const uint32_t *args = &caller->call_args[insn->o[1].imm];
    bool builtin = callee->builtin != PTX_BUILTIN_NONE;
    uint32_t n_args = insn->o[1].count;
    if (builtin && n_args < builtin_abi[callee->builtin].n_args)
        return ptx_fail(ps, line, "%s takes %u arguments, not %u", callee->name,
                        builtin_abi[callee->builtin].n_args, n_args);
    for (uint32_t i = 0; i < n_args; i++) {
        uint32_t bytes = builtin                          ? (i < builtin_abi[callee->builtin].n_args
                                                                 ? builtin_abi[callee->builtin].arg_bytes[i]
                                                                 : 0)
                         : i < (uint32_t)callee->n_params ? callee->params[i].size
                                                          : 0;
        if (!inside_call_space(caller, args[i], bytes))
            return ptx_fail(ps, line, "argument %u of the call to %s does not fit its .param",
                            i + 1, callee->name);
    }
    if (insn->o[2].count == 1) {
        uint32_t bytes = builtin                 ? builtin_abi[callee->builtin].return_bytes
                         : callee->n_returns > 0 ? callee->returns[0].size
                                                 : 0;
        if (!inside_call_space(caller, caller->call_args[insn->o[2].imm], bytes))
            return ptx_fail(ps, line, "the return value of the call to %s does not fit its .param",
                            callee->name);
    }
    return true;
}

/* An indirect call's ", prototype" after its arguments (`t` the token
 * after them, then the one after the prototype): its index in target. */
static bool call_prototype(struct ptx_parser *ps, struct ptx_insn *insn, struct ptx_token *t)
{
    if (!ptx_tok_is(t, ','))
        return ptx_fail(ps, t->line, "a call through a register needs a .callprototype");
    struct ptx_token name = ptx_next(&ps->lx);
    uint32_t row;
    const struct ptx_symbol *s =
        name.kind == PTX_TOK_IDENT ? ptx_lookup(ps, name.text, name.len, &row) : NULL;
    if (!s || s->kind != PTX_SYM_PROTO)
        return ptx_fail(ps, name.line, "'%.*s' is not a .callprototype", (int)name.len, name.text);
    insn->target = s->value;
    insn->flags |= PTX_F_INDIRECT;
    *t = ptx_next(&ps->lx);
    return true;
}

/* call[.uni] [(ret),] func [, (args)] ; — o[0] the function, o[1] the
 * arguments (imm: first index in call_args, count), o[2] the return
 * (imm: its offset in call_args, count 0 or 1). */
static bool parse_call(struct ptx_parser *ps, struct ptx_insn *insn)
{
    struct ptx_token t = ptx_next(&ps->lx);
    for (int i = 0; i < 3; i++) {
        memset(&insn->o[i], 0, sizeof insn->o[i]);
        insn->o[i].var = -1;
    }
    if (ptx_tok_is(&t, '(')) {
        uint32_t n;
        insn->o[2].imm = ps->fn->n_call_args;
        if (!call_param_list(ps, &n) || n > 1)
            return n > 1 ? ptx_fail(ps, t.line, "a call returns at most one parameter") : false;
        insn->o[2].count = (uint8_t)n;
        t = ptx_next(&ps->lx);
        if (!ptx_tok_is(&t, ','))
            return ptx_fail(ps, t.line, "expected ',' after a call's return");
        t = ptx_next(&ps->lx);
    }
    uint32_t row;
    const struct ptx_symbol *s =
        t.kind == PTX_TOK_IDENT ? ptx_lookup(ps, t.text, t.len, &row) : NULL;
    if (!s || (s->kind != PTX_SYM_FUNC && s->kind != PTX_SYM_REG))
        return ptx_fail(ps, t.line, "cannot call '%.*s'", (int)t.len, t.text);
    bool indirect = s->kind == PTX_SYM_REG;
    insn->o[0].kind = indirect ? PTX_OPD_REG : PTX_OPD_FUNC;
    insn->o[0].reg = indirect ? row : PTX_NO_REG;
    insn->o[0].imm = indirect ? 0 : row;
    insn->target = row;
    insn->o[1].imm = ps->fn->n_call_args;
    t = ptx_next(&ps->lx);
    struct ptx_token next = ptx_peek(&ps->lx);
    if (ptx_tok_is(&t, ',') && (!indirect || ptx_tok_is(&next, '('))) { /* the arguments */
        uint32_t n;
        if (!expect_open(ps) || !call_param_list(ps, &n))
            return false;
        insn->o[1].count = (uint8_t)n;
        t = ptx_next(&ps->lx);
    }
    insn->n_operands = 3;
    ps->fn->calls = true;
    if (indirect && !call_prototype(ps, insn, &t))
        return false;
    if (!ptx_tok_is(&t, ';'))
        return ptx_fail(ps, t.line, "expected ';' after a call");
    const struct ptx_function *callee =
        indirect ? &ps->module->prototypes[insn->target] : &ps->module->functions[insn->target];
    return call_fits(ps, insn, callee, t.line);
}

/* ------------------------------------------------------------ validation */

struct arity {
    uint8_t min, max;
};

/* How many operands each operation takes (call is checked by parse_call). */
static struct arity arity_of(enum ptx_op op)
{
    if (ptx_is_video_op(op))
        return (struct arity){4, 4};
    switch (op) {
    case PTX_OP_RET:
    case PTX_OP_EXIT:
    case PTX_OP_TRAP:
    case PTX_OP_BRKPT:
    case PTX_OP_MEMBAR:
    case PTX_OP_FENCE:
    case PTX_OP_GRIDDEPCONTROL:
        return (struct arity){0, 0};
    case PTX_OP_BRA:
    case PTX_OP_ACTIVEMASK:
    case PTX_OP_PREFETCH:
    case PTX_OP_PREFETCHU:
    case PTX_OP_NANOSLEEP:
    case PTX_OP_PMEVENT:
        return (struct arity){1, 1};
    case PTX_OP_MOV:
    case PTX_OP_ABS:
    case PTX_OP_NEG:
    case PTX_OP_NOT:
    case PTX_OP_CNOT:
    case PTX_OP_SQRT:
    case PTX_OP_RSQRT:
    case PTX_OP_RCP:
    case PTX_OP_EX2:
    case PTX_OP_LG2:
    case PTX_OP_SIN:
    case PTX_OP_COS:
    case PTX_OP_TANH:
    case PTX_OP_BREV:
    case PTX_OP_POPC:
    case PTX_OP_CLZ:
    case PTX_OP_BFIND:
    case PTX_OP_CVTA:
    case PTX_OP_ISSPACEP:
    case PTX_OP_TESTP:
    case PTX_OP_LD:
    case PTX_OP_LDU:
    case PTX_OP_ST:
        return (struct arity){2, 2};
    case PTX_OP_RED:
    case PTX_OP_CVT: /* d, a, b when d is a pair */
        return (struct arity){2, 3};
    case PTX_OP_VOTE:
        return (struct arity){2, 3};
    case PTX_OP_AND:
    case PTX_OP_OR:
    case PTX_OP_XOR:
    case PTX_OP_ADD:
    case PTX_OP_ADDC:
    case PTX_OP_SUB:
    case PTX_OP_SUBC:
    case PTX_OP_MUL:
    case PTX_OP_MUL24:
    case PTX_OP_DIV:
    case PTX_OP_REM:
    case PTX_OP_MIN:
    case PTX_OP_MAX:
    case PTX_OP_SHL:
    case PTX_OP_SHR:
    case PTX_OP_COPYSIGN:
    case PTX_OP_REDUX:
    case PTX_OP_BMSK:
        return (struct arity){3, 3};
    case PTX_OP_SET:
    case PTX_OP_ATOM:
    case PTX_OP_MATCH:
        return (struct arity){3, 4};
    case PTX_OP_SETP:
        return (struct arity){3, 5};
    case PTX_OP_MAD:
    case PTX_OP_MADC:
    case PTX_OP_MAD24:
    case PTX_OP_SAD:
    case PTX_OP_FMA:
    case PTX_OP_SELP:
    case PTX_OP_SLCT:
    case PTX_OP_SHF:
    case PTX_OP_BFE:
    case PTX_OP_PRMT:
    case PTX_OP_DP4A:
    case PTX_OP_DP2A:
    case PTX_OP_FNS:
        return (struct arity){4, 4};
    case PTX_OP_BFI:
        return (struct arity){5, 5};
    case PTX_OP_SHFL:
        return (struct arity){5, 6};
    case PTX_OP_BAR:
    case PTX_OP_BARRIER:
        return (struct arity){0, 4};
    default:
        return (struct arity){0, PTX_MAX_OPERANDS};
    }
}

/* cp.async's and mbarrier's operands by form (interp_async.c): {0, 0}
 * when no form was given, which validate() refuses. */
static struct arity async_arity(const struct ptx_insn *insn)
{
    if (insn->op == PTX_OP_CP) {
        switch ((enum ptx_cp_mode)insn->cmp) {
        case PTX_CP_COPY:
            return (struct arity){3, 4};
        case PTX_CP_COMMIT:
            return (struct arity){0, 0};
        case PTX_CP_WAIT:
            return (struct arity){0, 1};
        case PTX_CP_ARRIVE:
            return (struct arity){1, 1};
        case PTX_CP_BULK:
            return insn->bool_op == PTX_BULK_MBARRIER ? (struct arity){4, 4} : (struct arity){3, 3};
        case PTX_CP_BULK_TENSOR:
            break;
        }
        return (struct arity){0, 0};
    }
    switch ((enum ptx_mbarrier_mode)insn->cmp) {
    case PTX_MBAR_INIT:
    case PTX_MBAR_PENDING:
    case PTX_MBAR_EXPECT_TX:
    case PTX_MBAR_COMPLETE_TX:
        return (struct arity){2, 2};
    case PTX_MBAR_ARRIVE_EXPECT_TX:
        return (struct arity){3, 3};
    case PTX_MBAR_ARRIVE:
    case PTX_MBAR_ARRIVE_DROP:
        return (struct arity){2, 3};
    case PTX_MBAR_TEST_WAIT:
        return (struct arity){3, 3};
    case PTX_MBAR_TRY_WAIT:
        return (struct arity){3, 4};
    case PTX_MBAR_INVAL:
        return (struct arity){1, 1};
    }
    return (struct arity){0, 0};
}

static bool is_async(enum ptx_op op)
{
    return op == PTX_OP_CP || op == PTX_OP_MBARRIER;
}

/* Whether operand i of cp.async or mbarrier is an [address]. */
static bool async_address(const struct ptx_insn *insn, int i)
{
    if (insn->op == PTX_OP_CP && insn->cmp == PTX_CP_BULK)
        return i != 2; /* [dst], [src], size, [mbarrier] */
    if (insn->op == PTX_OP_CP)
        return insn->cmp == PTX_CP_COPY ? i <= 1 : insn->cmp == PTX_CP_ARRIVE && i == 0;
    switch ((enum ptx_mbarrier_mode)insn->cmp) {
    case PTX_MBAR_INIT:
    case PTX_MBAR_INVAL:
    case PTX_MBAR_EXPECT_TX:
    case PTX_MBAR_COMPLETE_TX:
        return i == 0;
    case PTX_MBAR_PENDING:
        return false;
    default:
        return i == 1;
    }
}

/* cp.async.bulk's two forms (a global space and a shared one, whose order
 * bulk_modifier checked): to shared memory completing on an mbarrier, to
 * global memory in a bulk group. */
static bool bulk_form_known(const struct ptx_insn *insn)
{
    return (insn->space == PTX_SPACE_SHARED && insn->bool_op == PTX_BULK_MBARRIER) ||
           (insn->space == PTX_SPACE_GLOBAL && insn->bool_op == PTX_BULK_GROUP);
}

/* Operations the interpreter does not implement (they parse, to name them). */
static bool implemented(enum ptx_op op)
{
    return op != PTX_OP_BRX;
}

static bool is_memory_op(enum ptx_op op)
{
    return op == PTX_OP_LD || op == PTX_OP_LDU || op == PTX_OP_ST || op == PTX_OP_ATOM ||
           op == PTX_OP_RED || op == PTX_OP_PREFETCH || op == PTX_OP_PREFETCHU;
}

/* Which operand must be an [address], or -1. */
static int address_operand_index(enum ptx_op op)
{
    switch (op) {
    case PTX_OP_LD:
    case PTX_OP_LDU:
    case PTX_OP_ATOM:
        return 1;
    case PTX_OP_ST:
    case PTX_OP_RED:
    case PTX_OP_PREFETCH:
    case PTX_OP_PREFETCHU:
        return 0;
    default:
        return -1;
    }
}

static bool writable(const struct ptx_operand *o)
{
    return o->kind == PTX_OPD_REG || o->kind == PTX_OPD_PRED || o->kind == PTX_OPD_VEC ||
           o->kind == PTX_OPD_SINK;
}

/* Whether a destination names a fixed special register (%tid.x, ...),
 * whose row every warp fills once when it starts (warp_start). */
static bool writes_special(const struct ptx_operand *o)
{
    if (o->kind == PTX_OPD_REG)
        return o->reg < PTX_SREG_FIXED;
    for (unsigned i = 0; o->kind == PTX_OPD_VEC && i < o->count; i++)
        if (o->vec[i] < PTX_SREG_FIXED)
            return true;
    return false;
}

/* The operations on .f16, .bf16 and their pairs (half.h). */
static bool half_operation(const struct ptx_insn *insn)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    if (op == PTX_OP_EX2 || op == PTX_OP_TANH)
        return insn->flags & PTX_F_APPROX;
    if (op == PTX_OP_ATOM || op == PTX_OP_RED)
        return insn->cmp == PTX_ATOM_ADD;
    return ptx_is_half_arithmetic(op) || op == PTX_OP_SETP || op == PTX_OP_SET ||
           op == PTX_OP_CVT || op == PTX_OP_MOV || is_memory_op(op);
}

static bool is_sub_byte(enum ptx_type t)
{
    return t == PTX_U4 || t == PTX_S4 || t == PTX_B1;
}

/* cvt's pairs of types beyond arith_cvt's: f32 to .tf32 and to a pair. */
static bool cvt_types_supported(enum ptx_type to, enum ptx_type from)
{
    if (to == PTX_TF32 || ptx_type_is_pair(to))
        return from == PTX_F32;
    return from != PTX_TF32 && !ptx_type_is_pair(from);
}

/* The types an operation computes in that the interpreter supports. */
static bool type_supported(const struct ptx_insn *insn)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    enum ptx_type t = (enum ptx_type)insn->type, t2 = (enum ptx_type)insn->type2;
    bool cas16 = op == PTX_OP_ATOM && insn->cmp == PTX_ATOM_CAS && t == PTX_B16;
    if (t == PTX_B128 || is_sub_byte(t) || is_sub_byte(t2))
        return false;
    if (op == PTX_OP_CVT)
        return cvt_types_supported(t, t2);
    if (t == PTX_TF32)
        return false;
    if (ptx_type_is_half(t))
        return half_operation(insn);
    return !((op == PTX_OP_ATOM || op == PTX_OP_RED) && ptx_type_bytes(t) < 4 && !cas16);
}

/* The modifiers that exist for some operations only, where they do. */
static bool modifiers_supported(const struct ptx_insn *insn)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    enum ptx_type t = (enum ptx_type)insn->type;
    bool min_max = op == PTX_OP_MIN || op == PTX_OP_MAX;
    if ((insn->flags & (PTX_F_NAN | PTX_F_XORSIGN_ABS)) &&
        !(min_max && (t == PTX_F32 || ptx_type_is_half(t))))
        return false;
    if ((insn->flags & PTX_F_RELU) && op != PTX_OP_CVT &&
        !(op == PTX_OP_FMA && ptx_type_is_half(t)))
        return false;
    if ((insn->flags & (PTX_F_RELU | PTX_F_SATFINITE)) && op == PTX_OP_CVT &&
        insn->type2 != PTX_F32)
        return false;
    return !(insn->flags & PTX_F_SATFINITE) || op == PTX_OP_CVT;
}

/* Checks what the interpreter relies on: operand counts and kinds. */
static bool validate(struct ptx_parser *ps, const struct ptx_insn *insn, int line)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    const char *name = ptx_op_name(op);
    struct arity a = is_async(op) ? async_arity(insn) : arity_of(op);
    if (!implemented(op))
        return ptx_fail(ps, line, "the virtual GPU does not implement '%s'", name);
    if (is_async(op) && insn->cmp == 0)
        return ptx_fail(ps, line, "'%s' without a form the virtual GPU knows", name);
    if (op == PTX_OP_CP && insn->cmp == PTX_CP_BULK && !bulk_form_known(insn))
        return ptx_fail(ps, line,
                        "the virtual GPU runs cp.async.bulk from global to shared memory "
                        "completing on an mbarrier (.shared::cluster.global.mbarrier::complete_tx::"
                        "bytes) and from shared to global memory in a bulk group "
                        "(.global.shared::cta.bulk_group), not this form");
    if (insn->n_operands < a.min || insn->n_operands > a.max)
        return ptx_fail(ps, line, "'%s' takes %d to %d operands, not %d", name, a.min, a.max,
                        insn->n_operands);
    if (!type_supported(insn))
        return ptx_fail(ps, line, "the virtual GPU does not support '%s' on this type", name);
    if (!modifiers_supported(insn))
        return ptx_fail(ps, line, "the virtual GPU does not support these modifiers of '%s'", name);
    if (op == PTX_OP_CVT && (insn->n_operands == 3) != ptx_type_is_pair((enum ptx_type)insn->type))
        return ptx_fail(ps, line,
                        "cvt to a pair (.f16x2, .bf16x2) takes two sources, other cvt one");
    int addr = address_operand_index(op);
    for (int i = 0; i < insn->n_operands; i++) {
        const struct ptx_operand *o = &insn->o[i];
        bool is_addr = o->kind == PTX_OPD_ADDR;
        bool wanted = is_async(op) ? async_address(insn, i) : i == addr;
        if (is_memory_op(op) && o->kind == PTX_OPD_VEC && o->count != insn->vec)
            return ptx_fail(ps, line, "a .v%u '%s' takes %u registers, not %u", insn->vec, name,
                            insn->vec, o->count);
        if (is_addr != wanted)
            return ptx_fail(ps, line, "operand %d of '%s' %s be an [address]", i + 1, name,
                            wanted ? "must" : "cannot");
        if (op == PTX_OP_BRA && o->kind != PTX_OPD_LABEL)
            return ptx_fail(ps, line, "bra needs a label");
        if (op != PTX_OP_BRA && o->kind == PTX_OPD_LABEL)
            return ptx_fail(ps, line, "unknown name in '%s'", name);
    }
    if (a.min > 0 && ptx_writes_first_operand(insn) && !writable(&insn->o[0]))
        return ptx_fail(ps, line, "the first operand of '%s' must be a register", name);
    if (a.min > 0 && ptx_writes_first_operand(insn) && writes_special(&insn->o[0]))
        return ptx_fail(ps, line, "'%s' cannot write a special register: they are read-only", name);
    return true;
}

/* ------------------------------------------------------------ issue class */

static enum ptx_issue_class issue_class_of(const struct ptx_insn *insn)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    switch (op) {
    case PTX_OP_LD:
    case PTX_OP_LDU:
    case PTX_OP_ST:
    case PTX_OP_ATOM:
    case PTX_OP_RED:
    case PTX_OP_SHFL:
    case PTX_OP_PREFETCH:
    case PTX_OP_PREFETCHU:
    case PTX_OP_TEX:
    case PTX_OP_TLD4:
    case PTX_OP_SULD:
    case PTX_OP_SUST:
    case PTX_OP_SURED:
        return PTX_CLASS_MEMORY;
    case PTX_OP_BRA:
    case PTX_OP_CALL:
    case PTX_OP_RET:
    case PTX_OP_EXIT:
    case PTX_OP_TRAP:
    case PTX_OP_BRKPT:
    case PTX_OP_BAR:
    case PTX_OP_BARRIER:
    case PTX_OP_MEMBAR:
    case PTX_OP_FENCE:
    case PTX_OP_VOTE:
    case PTX_OP_ACTIVEMASK:
    case PTX_OP_MATCH:
    case PTX_OP_REDUX:
    case PTX_OP_NANOSLEEP:
    case PTX_OP_PMEVENT:
    case PTX_OP_GRIDDEPCONTROL:
        return PTX_CLASS_CONTROL;
    case PTX_OP_CP:
    case PTX_OP_MBARRIER:
        return PTX_CLASS_MEMORY;
    case PTX_OP_WMMA:
        return insn->cmp == PTX_WMMA_MMA ? PTX_CLASS_TENSOR : PTX_CLASS_MEMORY;
    case PTX_OP_EX2:
    case PTX_OP_LG2:
    case PTX_OP_SIN:
    case PTX_OP_COS:
    case PTX_OP_TANH:
    case PTX_OP_RSQRT:
        return PTX_CLASS_SFU;
    case PTX_OP_RCP:
    case PTX_OP_SQRT:
        if (insn->type == PTX_F64)
            return PTX_CLASS_FP64;
        return insn->flags & PTX_F_APPROX ? PTX_CLASS_SFU : PTX_CLASS_FP32;
    default:
        break;
    }
    enum ptx_type t = (enum ptx_type)insn->type;
    if (op == PTX_OP_CVT)
        return insn->type == PTX_F64 || insn->type2 == PTX_F64 ? PTX_CLASS_FP64 : PTX_CLASS_INT;
    if (t == PTX_F64)
        return PTX_CLASS_FP64;
    if (t == PTX_F32 || t == PTX_F16 || t == PTX_BF16 || t == PTX_F16X2 || t == PTX_BF16X2)
        return PTX_CLASS_FP32;
    return PTX_CLASS_INT;
}

/* The SASS sequence a floating-point division, reciprocal or square root
 * becomes (emulator/README.md, "What PTX hides"); none for the others and
 * for the approximate reciprocal and square root, which are one MUFU. */
static enum ptx_sequence sequence_of(const struct ptx_insn *insn)
{
    bool f64 = insn->type == PTX_F64;
    if (insn->type != PTX_F32 && !f64)
        return PTX_SEQ_NONE;
    bool approx = insn->flags & PTX_F_APPROX;
    switch ((enum ptx_op)insn->op) {
    case PTX_OP_DIV:
        if (f64)
            return PTX_SEQ_DIV_RN_F64;
        return approx                     ? PTX_SEQ_DIV_APPROX_F32
               : insn->flags & PTX_F_FULL ? PTX_SEQ_DIV_FULL_F32
                                          : PTX_SEQ_DIV_RN_F32;
    case PTX_OP_RCP:
        return approx ? PTX_SEQ_NONE : f64 ? PTX_SEQ_RCP_RN_F64 : PTX_SEQ_RCP_RN_F32;
    case PTX_OP_SQRT:
        return approx ? PTX_SEQ_NONE : f64 ? PTX_SEQ_SQRT_RN_F64 : PTX_SEQ_SQRT_RN_F32;
    default:
        return PTX_SEQ_NONE;
    }
}

/* ------------------------------------------------------------ the whole */

static bool append(struct ptx_parser *ps, const struct ptx_insn *insn)
{
    struct ptx_function *f = ps->fn;
    if ((int)f->n_code + 1 > ps->code_cap) {
        int cap = ps->code_cap ? ps->code_cap * 2 : 64;
        struct ptx_insn *p = realloc(f->code, (size_t)cap * sizeof *p);
        if (!p)
            return ptx_fail(ps, insn->ptx_line, "out of memory");
        f->code = p;
        ps->code_cap = cap;
    }
    f->code[f->n_code++] = *insn;
    return true;
}

/* Reads "a, b|c, d ;" into insn->o. */
static bool parse_operands(struct ptx_parser *ps, struct ptx_insn *insn, uint32_t index)
{
    struct ptx_token t = ptx_next(&ps->lx);
    if (ptx_tok_is(&t, ';'))
        return true;
    for (;;) {
        if (insn->n_operands >= PTX_MAX_OPERANDS)
            return ptx_fail(ps, t.line, "too many operands");
        int i = insn->n_operands;
        if (!parse_operand(ps, t, &insn->o[i], operand_type(insn, i), index, label_slot(insn, i)))
            return false;
        insn->n_operands++;
        t = ptx_next(&ps->lx);
        if (ptx_tok_is(&t, ';'))
            return true;
        if (!ptx_tok_is(&t, ',') && !ptx_tok_is(&t, '|'))
            return ptx_fail(ps, t.line, "expected ',' or ';', found '%.*s'", (int)t.len, t.text);
        t = ptx_next(&ps->lx);
    }
}

bool ptx_parse_instruction(struct ptx_parser *ps, struct ptx_token opcode, uint32_t guard,
                           bool guard_neg)
{
    struct ptx_insn insn;
    memset(&insn, 0, sizeof insn);
    insn.guard = guard;
    insn.guard_neg = guard_neg;
    insn.ptx_line = (uint32_t)opcode.line;
    insn.src_line = ps->loc_line;
    insn.target = PTX_NO_PC;
    insn.reconv = PTX_NO_PC;
    for (int i = 0; i < PTX_MAX_OPERANDS; i++)
        insn.o[i].var = -1;
    if (opcode.kind != PTX_TOK_IDENT || !decode_opcode(ps, opcode, &insn))
        return ptx_fail(ps, opcode.line, "expected an instruction, found '%.*s'", (int)opcode.len,
                        opcode.text);
    if (insn.op == PTX_OP_CP && insn.cmp == PTX_CP_BULK_TENSOR)
        return ptx_fail(ps, opcode.line,
                        "the virtual GPU does not implement '%.*s': the tensor memory "
                        "accelerator's tensor copies (a CUtensorMap) are not supported; "
                        "cp.async.bulk (cuda::memcpy_async) is",
                        (int)opcode.len, opcode.text);
    bool texture = ptx_is_texture_op((enum ptx_op)insn.op);
    bool video = ptx_is_video_op((enum ptx_op)insn.op);
    bool ok = insn.op == PTX_OP_CALL ? parse_call(ps, &insn)
              : texture              ? ptx_texture_operands(ps, &insn)
              : video                ? ptx_video_operands(ps, &insn)
                                     : parse_operands(ps, &insn, ps->fn->n_code);
    if (!ok)
        return false;
    /* these wait for other warps: the block's warps must take turns */
    if (insn.op == PTX_OP_BAR || insn.op == PTX_OP_BARRIER || insn.op == PTX_OP_MBARRIER ||
        insn.op == PTX_OP_NANOSLEEP)
        ps->fn->uses_barrier = true;
    bool valid =
        texture ? ptx_texture_validate(ps, &insn, opcode.line)
        : insn.op == PTX_OP_WMMA
            ? ptx_wmma_validate(ps, &insn, opcode.line)
            : insn.op == PTX_OP_CALL || (validate(ps, &insn, opcode.line) &&
                                         (!video || ptx_video_validate(ps, &insn, opcode.line)));
    if (!valid)
        return false;
    insn.issue_class = (uint8_t)issue_class_of(&insn);
    insn.sequence = (uint8_t)sequence_of(&insn);
    return append(ps, &insn);
}

bool ptx_parse_implicit_ret(struct ptx_parser *ps, struct ptx_token ret)
{
    struct ptx_insn insn;
    memset(&insn, 0, sizeof insn);
    insn.guard = PTX_NO_REG;
    insn.ptx_line = (uint32_t)ret.line;
    insn.src_line = ps->loc_line;
    insn.target = PTX_NO_PC;
    insn.reconv = PTX_NO_PC;
    insn.op = PTX_OP_RET;
    insn.vec = 1;
    insn.issue_class = PTX_CLASS_CONTROL;
    for (int i = 0; i < PTX_MAX_OPERANDS; i++)
        insn.o[i].var = -1;
    return append(ps, &insn);
}
