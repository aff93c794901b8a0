/*
 * The SIMD video instructions (vadd2 … vset4; their syntax in ptx_video.c):
 * two half-word or four byte lanes of a 32-bit register, each taken from
 * any part of the pair {b, a} and sign- or zero-extended by its operand's
 * type, then added, subtracted, averaged, differenced, compared, and
 * clamped to d's lane type under .sat. The result is merged into c's
 * lanes under the mask, or (.add) the masked lanes are summed into c.
 */
#include "video.h"

/* The operations of each family, in the order of ptx.h's table. */
enum video_op { VIDEO_ADD, VIDEO_SUB, VIDEO_AVRG, VIDEO_ABSDIFF, VIDEO_MIN, VIDEO_MAX, VIDEO_SET };
_Static_assert(PTX_OP_VSET2 - PTX_OP_VADD2 == VIDEO_SET && PTX_OP_VSET4 - PTX_OP_VADD4 == VIDEO_SET,
               "ptx.h's video operations follow enum video_op");

/* Part `part` of {b, a} (`bits` wide), extended as signed or not. */
static int64_t lane_value(uint64_t pair, unsigned part, unsigned bits, bool is_signed)
{
    uint64_t v = pair >> (bits * part) & ((1u << bits) - 1);
    uint64_t sign = 1ull << (bits - 1);
    return is_signed ? (int64_t)(v ^ sign) - (int64_t)sign : (int64_t)v;
}

static int64_t lane_op(enum video_op op, enum ptx_cmp cmp, int64_t x, int64_t y)
{
    int64_t s = x + y;
    switch (op) {
    case VIDEO_ADD:
        return s;
    case VIDEO_SUB:
        return x - y;
    case VIDEO_AVRG: /* half the sum, a half rounded away from zero */
        return s >= 0 ? (s + 1) / 2 : -((1 - s) / 2);
    case VIDEO_ABSDIFF:
        return x > y ? x - y : y - x;
    case VIDEO_MIN:
        return x < y ? x : y;
    case VIDEO_MAX:
        return x > y ? x : y;
    default: /* VIDEO_SET */
        return ptx_compare_int((uint64_t)x, (uint64_t)y, x, y, true, cmp);
    }
}

static int64_t saturate(int64_t t, unsigned bits, bool is_signed)
{
    int64_t lo = is_signed ? -(1ll << (bits - 1)) : 0;
    int64_t hi = is_signed ? (1ll << (bits - 1)) - 1 : (1ll << bits) - 1;
    return t < lo ? lo : t > hi ? hi : t;
}

uint32_t video_simd(const struct ptx_insn *insn, uint32_t a, uint32_t b, uint32_t c)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    unsigned lanes = ptx_video_lanes(op), bits = 32 / lanes;
    enum video_op vop = (enum video_op)(op - (lanes == 4 ? PTX_OP_VADD4 : PTX_OP_VADD2));
    bool a_signed = ptx_type_is_signed((enum ptx_type)insn->type_a);
    bool b_signed = ptx_type_is_signed((enum ptx_type)insn->type_b);
    bool d_signed = ptx_type_is_signed((enum ptx_type)insn->type);
    uint64_t pair = (uint64_t)b << 32 | a;
    uint32_t lane_bits = (1u << bits) - 1, merged = 0, sum = c;
    for (unsigned i = 0; i < lanes; i++) {
        int64_t x =
            lane_value(pair, PTX_VIDEO_SELECT(insn->video, PTX_VIDEO_ASEL, i), bits, a_signed);
        int64_t y =
            lane_value(pair, PTX_VIDEO_SELECT(insn->video, PTX_VIDEO_BSEL, i), bits, b_signed);
        int64_t t = lane_op(vop, (enum ptx_cmp)insn->cmp, x, y);
        if (insn->flags & PTX_F_SAT)
            t = saturate(t, bits, d_signed);
        bool on = insn->video >> (PTX_VIDEO_MASK + i) & 1;
        uint32_t part = on ? (uint32_t)t : c >> (bits * i);
        merged |= (part & lane_bits) << (bits * i);
        sum += on ? (uint32_t)t : 0;
    }
    return insn->flags & PTX_F_ACCUMULATE ? sum : merged;
}
