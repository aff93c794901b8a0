/*
 * The interpreter's half-precision instructions, lane by lane: add, sub,
 * mul, fma, min, max, neg, abs, ex2.approx and tanh.approx on .f16, .bf16
 * and the packed .f16x2 and .bf16x2 (each half alone, the first in the low
 * 16 bits); cvt's packing of two f32 into a pair, its rounding to .tf32, and
 * its .relu and .satfinite; and the atomic additions of halves. half.c
 * computes each value; comparisons (setp, set) are interp.c's, which reads
 * halves through half_value.
 */
#include "exec.h"
#include "half.h"

static unsigned modifiers_of(uint32_t flags)
{
    return (flags & PTX_F_FTZ ? HALF_FTZ : 0) | (flags & PTX_F_SAT ? HALF_SAT : 0) |
           (flags & PTX_F_RELU ? HALF_RELU : 0) | (flags & PTX_F_NAN ? HALF_NAN : 0) |
           (flags & PTX_F_XORSIGN_ABS ? HALF_XORSIGN_ABS : 0) |
           (flags & PTX_F_SATFINITE ? HALF_SATFINITE : 0);
}

bool half_executes(const struct ptx_insn *insn)
{
    return ptx_is_half_arithmetic((enum ptx_op)insn->op) &&
           ptx_type_is_half((enum ptx_type)insn->type);
}

/* One 16-bit result of the operation. */
static uint16_t compute(enum ptx_op op, enum half_format f, uint16_t x, uint16_t y, uint16_t z,
                        unsigned modifiers)
{
    switch (op) {
    case PTX_OP_ADD:
        return half_add(f, x, y, modifiers);
    case PTX_OP_SUB:
        return half_sub(f, x, y, modifiers);
    case PTX_OP_MUL:
        return half_mul(f, x, y, modifiers);
    case PTX_OP_FMA:
        return half_fma(f, x, y, z, modifiers);
    case PTX_OP_MIN:
        return half_min(f, x, y, modifiers);
    case PTX_OP_MAX:
        return half_max(f, x, y, modifiers);
    case PTX_OP_NEG:
        return half_neg(f, x, modifiers);
    case PTX_OP_ABS:
        return half_abs(f, x, modifiers);
    case PTX_OP_EX2:
        return half_ex2_approx(f, x, modifiers);
    default: /* TANH */
        return half_tanh_approx(f, x);
    }
}

void half_execute(const struct ptx_insn *insn, uint64_t *d, const uint64_t *a, const uint64_t *b,
                  const uint64_t *c, uint32_t mask)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    enum half_format f = half_format_of((enum ptx_type)insn->type);
    unsigned modifiers = modifiers_of(insn->flags);
    unsigned halves = ptx_type_is_pair((enum ptx_type)insn->type) ? 2 : 1;
    LANES(mask, {
        uint64_t r = 0;
        for (unsigned h = 0; h < halves; h++) {
            unsigned shift = 16 * h;
            uint16_t x = (uint16_t)(a[l] >> shift);
            uint16_t y = b ? (uint16_t)(b[l] >> shift) : 0, z = c ? (uint16_t)(c[l] >> shift) : 0;
            r |= (uint64_t)compute(op, f, x, y, z, modifiers) << shift;
        }
        d[l] = r;
    });
}

/* ------------------------------------------------------------------ cvt */

bool half_converts(const struct ptx_insn *insn)
{
    return insn->op == PTX_OP_CVT &&
           (insn->type == PTX_TF32 || ptx_type_is_pair((enum ptx_type)insn->type) ||
            (insn->flags & (PTX_F_RELU | PTX_F_SATFINITE)));
}

void half_convert(const struct ptx_insn *insn, uint64_t *d, const uint64_t *a, const uint64_t *b,
                  uint32_t mask)
{
    enum ptx_type to = (enum ptx_type)insn->type;
    enum arith_rounding r = insn->flags & PTX_F_HAS_RND ? (enum arith_rounding)insn->rnd : ARITH_RN;
    unsigned modifiers = modifiers_of(insn->flags);
    enum half_format f = half_format_of(to);
    if (to == PTX_TF32) {
        LANES(mask, d[l] = half_f32_to_tf32((uint32_t)a[l], r, modifiers));
        return;
    }
    if (!ptx_type_is_pair(to)) {
        LANES(mask, d[l] = half_from_f32(f, (uint32_t)a[l], r, modifiers));
        return;
    }
    /* a into the high half, b into the low one (the ISA's order) */
    LANES(mask, d[l] = (uint64_t)half_from_f32(f, (uint32_t)a[l], r, modifiers) << 16 |
                       half_from_f32(f, (uint32_t)b[l], r, modifiers));
}

/* -------------------------------------------------------------- atomics */

/* The sum of two values of a half type (both halves of a pair), as atom.add
 * writes it: never flushed (.noftz). */
static uint32_t add_values(enum ptx_type type, uint32_t old, uint32_t operand)
{
    enum half_format f = half_format_of(type);
    uint32_t sum = half_add(f, (uint16_t)old, (uint16_t)operand, 0);
    if (ptx_type_is_pair(type))
        sum |= (uint32_t)half_add(f, (uint16_t)(old >> 16), (uint16_t)(operand >> 16), 0) << 16;
    return sum;
}

/* A compare-and-swap loop on the aligned 32-bit word that holds the value:
 * all of it for a pair, a half of it for one 16-bit value. */
uint64_t half_atomic_add(void *p, uint64_t operand, enum ptx_type type)
{
    uintptr_t address = (uintptr_t)p;
    uint32_t *word = (uint32_t *)(address & ~(uintptr_t)3);
    unsigned shift = ptx_type_is_pair(type) ? 0 : 8 * (unsigned)(address & 2);
    uint32_t keep = ptx_type_is_pair(type) ? 0 : ~(UINT32_C(0xffff) << shift);
    uint32_t old = __atomic_load_n(word, __ATOMIC_RELAXED), want;
    do
        want = (old & keep) | add_values(type, old >> shift, (uint32_t)operand) << shift;
    while (
        !__atomic_compare_exchange_n(word, &old, want, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    return (old >> shift) & (ptx_type_is_pair(type) ? UINT32_MAX : 0xffffu);
}
