/*
 * The loader's side of the SIMD video instructions: vadd2 vsub2 vavrg2
 * vabsdiff2 vmin2 vmax2 vset2 and their four-lane forms (vadd4 … vset4),
 * which CUDA C++ reaches only through inline PTX.
 *
 *   vop2.dtype.atype.btype{.sat}  d{.mask}, a{.asel}, b{.bsel}, c;   merge
 *   vop2.dtype.atype.btype.add    d{.mask}, a{.asel}, b{.bsel}, c;   accumulate
 *   vset2.atype.btype.cmp{.add}   d{.mask}, a{.asel}, b{.bsel}, c;
 *
 * with .u32 or .s32 types; a two-lane mask is .h0 .h1 or .h10 (the
 * default), a selector .hxy (lane 1 from half-word x of {b, a}, lane 0 from
 * y; a's default .h10, b's .h32); a four-lane mask names its lanes
 * (.b0 … .b3210, the default), a selector .bxyzw (bytes 0-7 of {b, a}; a's
 * default .b3210, b's .b7654). A selector rides on its register's token
 * ("%r2.b3210"), so the operands are read here; the selectors go into
 * insn->video (ptx.h), and video.c computes.
 */
#include "ptx_parser.h"

#include <string.h>

#define VIDEO_OPERANDS 4

/* Digits of a selector or mask, lane n-1 first, into 3-bit fields at
 * `shift` (a selector) or into lane bits (a mask): false when a digit is
 * above `max` or the count is wrong. */
static bool read_select(const char *digits, size_t n, unsigned lanes, unsigned max, int field,
                        uint32_t *video)
{
    if (n != lanes)
        return false;
    uint32_t v = *video & ~(0xFFFu << field);
    for (size_t k = 0; k < n; k++) {
        unsigned digit = (unsigned)(digits[k] - '0');
        if (digits[k] < '0' || digit > max)
            return false;
        v |= digit << (field + 3 * (lanes - 1 - k));
    }
    *video = v;
    return true;
}

static bool read_mask(const char *digits, size_t n, unsigned lanes, uint32_t *video)
{
    uint32_t mask = 0;
    if (n == 0 || n > lanes)
        return false;
    for (size_t k = 0; k < n; k++) {
        unsigned digit = (unsigned)(digits[k] - '0');
        if (digits[k] < '0' || digit >= lanes || (mask >> digit & 1))
            return false;
        mask |= 1u << digit;
    }
    *video = (*video & ~(0xFu << PTX_VIDEO_MASK)) | mask << PTX_VIDEO_MASK;
    return true;
}

/* The defaults: every lane of the result; a's lanes from a, b's from b. */
static uint32_t default_selectors(unsigned lanes)
{
    uint32_t v = ((1u << lanes) - 1) << PTX_VIDEO_MASK;
    for (unsigned i = 0; i < lanes; i++)
        v |= i << (PTX_VIDEO_ASEL + 3 * i) | (lanes + i) << (PTX_VIDEO_BSEL + 3 * i);
    return v;
}

bool ptx_video_modifier(struct ptx_insn *insn, const char *word)
{
    static const struct word_value comparisons[] = {
        {"eq", PTX_CMP_EQ}, {"ne", PTX_CMP_NE}, {"lt", PTX_CMP_LT},
        {"le", PTX_CMP_LE}, {"gt", PTX_CMP_GT}, {"ge", PTX_CMP_GE},
    };
    int v;
    bool set = insn->op == PTX_OP_VSET2 || insn->op == PTX_OP_VSET4;
    if (strcmp(word, "u32") == 0 || strcmp(word, "s32") == 0) {
        uint8_t t = word[0] == 's' ? PTX_S32 : PTX_U32;
        uint8_t *slot = insn->type == PTX_TYPE_NONE     ? &insn->type
                        : insn->type_a == PTX_TYPE_NONE ? &insn->type_a
                                                        : &insn->type_b;
        if (*slot != PTX_TYPE_NONE)
            return false;
        return *slot = t, true;
    }
    if (strcmp(word, "sat") == 0 && !set)
        return insn->flags |= PTX_F_SAT, true;
    if (strcmp(word, "add") == 0)
        return insn->flags |= PTX_F_ACCUMULATE, true;
    if (set && LOOKUP(comparisons, word, &v)) /* bool_op: a comparison was read */
        return insn->cmp = (uint8_t)v, insn->bool_op = 1, true;
    return false;
}

/* One operand and the selector or mask after its '.' ("%r2.b3210"):
 * `field` is PTX_VIDEO_MASK, _ASEL, _BSEL, or -1 where none may follow. */
static bool read_video_operand(struct ptx_parser *ps, struct ptx_insn *insn, int i, int field)
{
    struct ptx_token t = ptx_next(&ps->lx);
    unsigned lanes = ptx_video_lanes((enum ptx_op)insn->op);
    char letter = lanes == 4 ? 'b' : 'h';
    const char *dot = t.kind == PTX_TOK_IDENT ? memchr(t.text + 1, '.', t.len - 1) : NULL;
    if (dot && (dot[1] == 'b' || dot[1] == 'h')) { /* not a special register's ".x" */
        const char *digits = dot + 2;
        size_t n = t.len - (size_t)(digits - t.text);
        bool ok = field >= 0 && dot[1] == letter &&
                  (field == PTX_VIDEO_MASK
                       ? read_mask(digits, n, lanes, &insn->video)
                       : read_select(digits, n, lanes, 2 * lanes - 1, field, &insn->video));
        if (!ok)
            return ptx_fail(ps, t.line, "'%.*s' is no %s of '%s'", (int)t.len, t.text,
                            field == PTX_VIDEO_MASK ? "mask" : "lane selector",
                            ptx_op_name((enum ptx_op)insn->op));
        t.len = (size_t)(dot - t.text);
    }
    return ptx_read_operand(ps, t, &insn->o[i], (enum ptx_type)insn->type, ps->fn->n_code);
}

bool ptx_video_operands(struct ptx_parser *ps, struct ptx_insn *insn)
{
    static const int fields[VIDEO_OPERANDS] = {PTX_VIDEO_MASK, PTX_VIDEO_ASEL, PTX_VIDEO_BSEL, -1};
    insn->video = default_selectors(ptx_video_lanes((enum ptx_op)insn->op));
    for (int i = 0; i < VIDEO_OPERANDS; i++) {
        if (!read_video_operand(ps, insn, i, fields[i]))
            return false;
        insn->n_operands++;
        struct ptx_token t = ptx_next(&ps->lx);
        if (!ptx_tok_is(&t, i + 1 < VIDEO_OPERANDS ? ',' : ';'))
            return ptx_fail(ps, t.line, "'%s' takes 4 operands: d, a, b, c",
                            ptx_op_name((enum ptx_op)insn->op));
    }
    return true;
}

bool ptx_video_validate(struct ptx_parser *ps, struct ptx_insn *insn, int line)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    bool set = op == PTX_OP_VSET2 || op == PTX_OP_VSET4;
    const char *name = ptx_op_name(op);
    if (set && insn->type_b == PTX_TYPE_NONE) { /* vset has no d type: its lanes are 0 or 1 */
        insn->type_b = insn->type_a;
        insn->type_a = insn->type;
        insn->type = PTX_U32;
    }
    if (insn->type_b == PTX_TYPE_NONE || (set && !insn->bool_op))
        return ptx_fail(ps, line, "'%s' needs %s", name,
                        set ? "a's and b's types (.u32 or .s32) and a comparison"
                            : "d's, a's and b's types (.u32 or .s32)");
    if ((insn->flags & PTX_F_SAT) && (insn->flags & PTX_F_ACCUMULATE))
        return ptx_fail(ps, line, "'%s' cannot saturate and accumulate (.sat with .add)", name);
    for (int i = 1; i < VIDEO_OPERANDS; i++)
        if (insn->o[i].kind != PTX_OPD_REG && insn->o[i].kind != PTX_OPD_IMM)
            return ptx_fail(ps, line, "operand %d of '%s' must be a register or a number", i + 1,
                            name);
    return true;
}
