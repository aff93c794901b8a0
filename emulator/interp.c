/*
 * The warp interpreter: runs one warp's 32 lanes in lockstep.
 *
 * warp_run() is one loop over decoded instructions with a switch on the
 * operation (Lua's lvm.c is the model). Each case reads its operands as
 * rows of 32 slots, loops over the lanes of the active mask, and writes the
 * result rows. The loop handles control flow itself: a divergent branch
 * pushes both sides on the SIMT stack with the branch's reconvergence
 * point; a call pushes a frame; exit removes lanes. A barrier returns to the
 * launcher (launch.c), which resumes the warp when the barrier completes.
 *
 * Values live in the low bits of 64-bit slots; results are written
 * zero-extended to the operation's width, and every read truncates to the
 * width it needs, so the bits above never matter.
 */
#include "exec.h"
#include "half.h"
#include "jit.h"
#include "video.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Lanes of the mask m, in order. */
#define EACH(m)                                                                                    \
    for (uint32_t mm_ = (m), l = 0; l < WARP_SIZE; l++)                                            \
        if (mm_ >> l & 1)

/* Runs BODY with U and S the unsigned and signed C types of the
 * instruction's width. */
#define INT_TYPED(type, ...)                                                                       \
    switch (ptx_type_bytes(type)) {                                                                \
    case 1: {                                                                                      \
        typedef uint8_t U;                                                                         \
        typedef int8_t S __attribute__((unused));                                                  \
        __VA_ARGS__;                                                                               \
    } break;                                                                                       \
    case 2: {                                                                                      \
        typedef uint16_t U;                                                                        \
        typedef int16_t S __attribute__((unused));                                                 \
        __VA_ARGS__;                                                                               \
    } break;                                                                                       \
    case 4: {                                                                                      \
        typedef uint32_t U;                                                                        \
        typedef int32_t S __attribute__((unused));                                                 \
        __VA_ARGS__;                                                                               \
    } break;                                                                                       \
    default: {                                                                                     \
        typedef uint64_t U;                                                                        \
        typedef int64_t S __attribute__((unused));                                                 \
        __VA_ARGS__;                                                                               \
    } break;                                                                                       \
    }

/* ------------------------------------------------------------- operands */

struct scratch {
    lanes_t a, b, c, d, sink;
};

static uint64_t sreg_value(const struct warp *w, uint32_t which)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    (void)w;
    return which == PTX_SREG_GLOBALTIMER ? ns : ns * 2; /* %clock: ~2 GHz cycles */
}

/* The value a symbol operand stands for (a .local depot is per frame). */
static uint64_t symbol_value(const struct frame *f, const struct ptx_operand *o)
{
    if (o->space == PTX_SPACE_LOCAL)
        return f->local_base + (uint64_t)o->imm;
    return (uint64_t)o->imm;
}

static void fill(uint64_t *row, uint64_t v)
{
    for (int l = 0; l < WARP_SIZE; l++)
        row[l] = v;
}

/* A source operand as a row of 32 values. */
static const uint64_t *src(const struct warp *w, const struct frame *f, const struct ptx_operand *o,
                           uint64_t *tmp)
{
    switch (o->kind) {
    case PTX_OPD_REG:
        return f->regs[o->reg];
    case PTX_OPD_IMM:
        fill(tmp, (uint64_t)o->imm);
        return tmp;
    case PTX_OPD_SYMBOL:
        fill(tmp, symbol_value(f, o));
        return tmp;
    case PTX_OPD_SREG:
        fill(tmp, sreg_value(w, o->reg));
        return tmp;
    case PTX_OPD_PRED: {
        uint32_t p = f->preds[o->reg] ^ (o->neg ? FULL_MASK : 0);
        for (int l = 0; l < WARP_SIZE; l++)
            tmp[l] = p >> l & 1;
        return tmp;
    }
    default:
        fill(tmp, 0);
        return tmp;
    }
}

/* A destination row (a sink for "_"). */
static uint64_t *dst(struct frame *f, const struct ptx_operand *o, struct scratch *s)
{
    return o->kind == PTX_OPD_REG ? f->regs[o->reg] : s->sink;
}

/* A predicate operand as a mask. */
static uint32_t pred_of(const struct frame *f, const struct ptx_operand *o)
{
    if (o->kind == PTX_OPD_PRED)
        return f->preds[o->reg] ^ (o->neg ? FULL_MASK : 0);
    if (o->kind == PTX_OPD_IMM)
        return o->imm ? FULL_MASK : 0;
    return 0;
}

static void set_pred(struct frame *f, const struct ptx_operand *o, uint32_t mask, uint32_t value)
{
    if (o->kind == PTX_OPD_PRED)
        f->preds[o->reg] = (f->preds[o->reg] & ~mask) | (value & mask);
}

/* ---------------------------------------------------------- float helpers */

static inline float ftz32(float x)
{
    return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x;
}

/* Applies .ftz to the inputs, then computes, then .ftz and .sat on the result. */
static inline float finish32(float r, uint32_t flags)
{
    if (flags & PTX_F_FTZ)
        r = ftz32(r);
    if (flags & PTX_F_SAT)
        r = arith_sat_f32(r);
    return r;
}

static inline float in32(uint64_t v, uint32_t flags)
{
    float x = slot_f32(v);
    return flags & PTX_F_FTZ ? ftz32(x) : x;
}

static inline double finish64(double r, uint32_t flags)
{
    if (flags & PTX_F_SAT)
        r = r != r ? 0.0 : r < 0.0 ? 0.0 : r > 1.0 ? 1.0 : r;
    return r;
}

static enum arith_rounding rounding(const struct ptx_insn *insn)
{
    return insn->flags & PTX_F_HAS_RND ? (enum arith_rounding)insn->rnd : ARITH_RN;
}

/* ------------------------------------------------------- arithmetic ops */

/* min/max.f32, with .NaN (a NaN input gives NaN) and .xorsign.abs (of |x|
 * and |y|, with the sign of x's sign xor y's). */
static float min_max_f32(enum ptx_op op, float x, float y, uint32_t flags)
{
    if ((flags & PTX_F_NAN) && (x != x || y != y))
        return NAN;
    bool negative = signbit(x) != signbit(y);
    if (flags & PTX_F_XORSIGN_ABS)
        x = fabsf(x), y = fabsf(y);
    float z = op == PTX_OP_MIN ? arith_min_f32(x, y) : arith_max_f32(x, y);
    return (flags & PTX_F_XORSIGN_ABS) && negative && z == z ? -z : z;
}

static void exec_float_binary(const struct ptx_insn *insn, uint64_t *d, const uint64_t *a,
                              const uint64_t *b, uint32_t m)
{
    enum arith_rounding r = rounding(insn);
    uint32_t fl = insn->flags;
    enum ptx_op op = (enum ptx_op)insn->op;
    if (insn->type == PTX_F32) {
        EACH(m)
        {
            float x = in32(a[l], fl), y = in32(b[l], fl), z;
            switch (op) {
            case PTX_OP_ADD:
                z = r == ARITH_RN ? x + y : arith_add_f32(x, y, r);
                break;
            case PTX_OP_SUB:
                z = r == ARITH_RN ? x - y : arith_sub_f32(x, y, r);
                break;
            case PTX_OP_MUL:
                z = r == ARITH_RN ? x * y : arith_mul_f32(x, y, r);
                break;
            case PTX_OP_MIN:
            case PTX_OP_MAX:
                z = min_max_f32(op, x, y, fl);
                break;
            case PTX_OP_COPYSIGN:
                z = arith_copysign_f32(x, y);
                break;
            default: /* DIV */
                z = fl & PTX_F_APPROX ? arith_div_approx_f32(x, y)
                    : fl & PTX_F_FULL ? arith_div_full_f32(x, y)
                    : r == ARITH_RN   ? x / y
                                      : arith_div_f32(x, y, r);
                break;
            }
            d[l] = f32_result(finish32(z, fl));
        }
        return;
    }
    EACH(m)
    {
        double x = slot_f64(a[l]), y = slot_f64(b[l]), z;
        switch (op) {
        case PTX_OP_ADD:
            z = r == ARITH_RN ? x + y : arith_add_f64(x, y, r);
            break;
        case PTX_OP_SUB:
            z = r == ARITH_RN ? x - y : arith_sub_f64(x, y, r);
            break;
        case PTX_OP_MUL:
            z = r == ARITH_RN ? x * y : arith_mul_f64(x, y, r);
            break;
        case PTX_OP_MIN:
            z = arith_min_f64(x, y);
            break;
        case PTX_OP_MAX:
            z = arith_max_f64(x, y);
            break;
        case PTX_OP_COPYSIGN:
            z = arith_copysign_f64(x, y);
            break;
        default:
            z = r == ARITH_RN ? x / y : arith_div_f64(x, y, r);
            break;
        }
        bool rounded = op == PTX_OP_ADD || op == PTX_OP_SUB || op == PTX_OP_MUL || op == PTX_OP_DIV;
        d[l] = rounded && r == ARITH_RN && !(fl & PTX_F_SAT) ? f64_propagated(z, x, y, y)
                                                             : f64_slot(finish64(z, fl));
    }
}

static void exec_fma(const struct ptx_insn *insn, uint64_t *d, const uint64_t *a, const uint64_t *b,
                     const uint64_t *c, uint32_t m)
{
    enum arith_rounding r = rounding(insn);
    uint32_t fl = insn->flags;
    if (insn->type == PTX_F32) {
        EACH(m)
        {
            float x = in32(a[l], fl), y = in32(b[l], fl), z = in32(c[l], fl);
            d[l] =
                f32_result(finish32(r == ARITH_RN ? fmaf(x, y, z) : arith_fma_f32(x, y, z, r), fl));
        }
        return;
    }
    EACH(m)
    {
        double x = slot_f64(a[l]), y = slot_f64(b[l]), z = slot_f64(c[l]);
        d[l] =
            r == ARITH_RN && !(fl & PTX_F_SAT)
                ? f64_propagated(fma(x, y, z), x, y, z)
                : f64_slot(finish64(r == ARITH_RN ? fma(x, y, z) : arith_fma_f64(x, y, z, r), fl));
    }
}

/* sqrt rsqrt rcp ex2 lg2 sin cos tanh abs neg on floats. */
static void exec_float_unary(const struct ptx_insn *insn, uint64_t *d, const uint64_t *a,
                             uint32_t m)
{
    enum arith_rounding r = rounding(insn);
    uint32_t fl = insn->flags;
    bool approx = fl & PTX_F_APPROX;
    enum ptx_op op = (enum ptx_op)insn->op;
    if (insn->type == PTX_F32) {
        EACH(m)
        {
            float x = in32(a[l], fl), z;
            switch (op) {
            case PTX_OP_SQRT:
                z = approx          ? arith_sqrt_approx_f32(x)
                    : r == ARITH_RN ? sqrtf(x)
                                    : arith_sqrt_f32(x, r);
                break;
            case PTX_OP_RSQRT:
                z = arith_rsqrt_approx_f32(x);
                break;
            case PTX_OP_RCP:
                z = approx ? arith_rcp_approx_f32(x) : arith_rcp_f32(x, r);
                break;
            case PTX_OP_EX2:
                z = arith_ex2_approx_f32(x);
                break;
            case PTX_OP_LG2:
                z = arith_lg2_approx_f32(x);
                break;
            case PTX_OP_SIN:
                z = arith_sin_approx_f32(x);
                break;
            case PTX_OP_COS:
                z = arith_cos_approx_f32(x);
                break;
            case PTX_OP_TANH:
                z = arith_tanh_approx_f32(x);
                break;
            case PTX_OP_ABS:
                z = fabsf(x);
                break;
            default: /* NEG */
                z = -x;
                break;
            }
            d[l] = f32_result(finish32(z, fl));
        }
        return;
    }
    EACH(m)
    {
        double x = slot_f64(a[l]), z;
        switch (op) {
        case PTX_OP_SQRT:
            z = r == ARITH_RN || approx ? sqrt(x) : arith_sqrt_f64(x, r);
            break;
        case PTX_OP_RSQRT:
            z = arith_rsqrt_approx_f64(x);
            if (fl & PTX_F_FTZ)
                z = arith_ftz_f64(z);
            break;
        case PTX_OP_RCP:
            z = approx ? arith_rcp_approx_ftz_f64(x) : arith_rcp_f64(x, r);
            break;
        case PTX_OP_ABS:
            z = fabs(x);
            break;
        case PTX_OP_NEG:
            z = -x;
            break;
        default:
            z = NAN;
            break;
        }
        d[l] = f64_slot(z);
    }
}

static inline uint64_t mul_hi_u64(uint64_t a, uint64_t b)
{
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
}

static inline int64_t mul_hi_s64(int64_t a, int64_t b)
{
    return (int64_t)(((__int128)a * b) >> 64);
}

/* mul and mad on integers: .lo, .hi, .wide; mad adds c; .cc and madc. */
static void exec_int_mul(struct warp *w, const struct ptx_insn *insn, uint64_t *d,
                         const uint64_t *a, const uint64_t *b, const uint64_t *c, uint32_t m)
{
    bool sgn = ptx_type_is_signed((enum ptx_type)insn->type);
    bool hi = insn->flags & PTX_F_HI, wide = insn->flags & PTX_F_WIDE;
    bool mad = insn->op == PTX_OP_MAD || insn->op == PTX_OP_MADC;
    bool carry_in = insn->op == PTX_OP_MADC, carry_out = insn->flags & PTX_F_CC;
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    uint32_t carry = 0;
    EACH(m)
    {
        uint64_t x = a[l], y = b[l], p;
        if (wide) {
            p = bytes == 4 ? (sgn ? (uint64_t)((int64_t)(int32_t)x * (int32_t)y)
                                  : (uint64_t)(uint32_t)x * (uint32_t)y)
                           : (sgn ? (uint64_t)(uint32_t)((int32_t)(int16_t)x * (int16_t)y)
                                  : (uint64_t)(uint32_t)((uint32_t)(uint16_t)x * (uint16_t)y));
        } else if (bytes == 8) {
            p = hi ? (sgn ? (uint64_t)mul_hi_s64((int64_t)x, (int64_t)y) : mul_hi_u64(x, y))
                   : x * y;
        } else if (bytes == 4) {
            uint64_t full = sgn ? (uint64_t)((int64_t)(int32_t)x * (int32_t)y)
                                : (uint64_t)(uint32_t)x * (uint32_t)y;
            p = hi ? full >> 32 : full;
        } else {
            uint32_t full = sgn ? (uint32_t)((int32_t)(int16_t)x * (int16_t)y)
                                : (uint32_t)(uint16_t)x * (uint16_t)y;
            p = hi ? full >> 16 : full;
        }
        unsigned width = wide ? bytes * 2 : bytes;
        uint64_t keep = width == 8 ? ~0ull : (1ull << (8 * width)) - 1;
        p &= keep;
        if (mad) {
            uint64_t addend = c[l] & keep, cin = carry_in ? (w->carry >> l & 1) : 0;
            uint64_t sum = (p + addend + cin) & keep;
            if (carry_out && (sum < p || (sum == p && (addend | cin))))
                carry |= 1u << l;
            p = sum;
        }
        d[l] = p;
    }
    if (carry_out)
        w->carry = (w->carry & ~m) | carry;
}

/* add sub addc subc on integers, with .cc and .sat (s32). */
static void exec_int_add(struct warp *w, const struct ptx_insn *insn, uint64_t *d,
                         const uint64_t *a, const uint64_t *b, uint32_t m)
{
    bool sub = insn->op == PTX_OP_SUB || insn->op == PTX_OP_SUBC;
    bool cin = insn->op == PTX_OP_ADDC || insn->op == PTX_OP_SUBC;
    bool cout = insn->flags & PTX_F_CC, sat = insn->flags & PTX_F_SAT;
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    uint64_t keep = bytes == 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
    uint32_t carry = 0;
    EACH(m)
    {
        uint64_t x = a[l] & keep, y = b[l] & keep, c = cin ? (w->carry >> l & 1) : 0, r;
        if (sat && bytes == 4) {
            int64_t s = sub ? (int64_t)(int32_t)x - (int32_t)y : (int64_t)(int32_t)x + (int32_t)y;
            s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
            d[l] = (uint32_t)s;
            continue;
        }
        if (sub) {
            r = (x - y - c) & keep;
            if (x < y || (x == y && c) || (c && x - y < c))
                carry |= 1u << l;
        } else {
            r = (x + y + c) & keep;
            if (r < x || (r == x && (y | c)))
                carry |= 1u << l;
        }
        d[l] = r;
    }
    if (cout)
        w->carry = (w->carry & ~m) | carry;
}

static void exec_int_divrem(const struct ptx_insn *insn, uint64_t *d, const uint64_t *a,
                            const uint64_t *b, uint32_t m)
{
    bool sgn = ptx_type_is_signed((enum ptx_type)insn->type);
    bool rem = insn->op == PTX_OP_REM;
    INT_TYPED(insn->type, {
        EACH(m)
        {
            U x = (U)a[l], y = (U)b[l];
            U r;
            if (y == 0) {
        r = rem ? x : (U) ~(U)0; /* PTX leaves it unspecified; hardware gives these */
            } else if (sgn) {
        S sx = (S)x, sy = (S)y;
        if (sy == -1)
            r = rem ? 0 : (U)(0 - x); /* avoids the host's trap on MIN / -1 */
        else
            r = (U)(rem ? sx % sy : sx / sy);
            } else {
        r = rem ? x % y : x / y;
            }
            d[l] = r;
}
});
}

/* min max abs neg on integers. */
static void exec_int_minmax(const struct ptx_insn *insn, uint64_t *d, const uint64_t *a,
                            const uint64_t *b, uint32_t m)
{
    bool sgn = ptx_type_is_signed((enum ptx_type)insn->type);
    enum ptx_op op = (enum ptx_op)insn->op;
    INT_TYPED(insn->type, {
        EACH(m)
        {
            U x = (U)a[l], y = op == PTX_OP_MIN || op == PTX_OP_MAX ? (U)b[l] : 0;
            U r;
            if (op == PTX_OP_NEG)
                r = (U)(0 - x);
            else if (op == PTX_OP_ABS)
                r = (S)x < 0 ? (U)(0 - x) : x;
            else if (sgn)
                r = (op == PTX_OP_MIN) == ((S)x < (S)y) ? x : y;
            else
                r = (op == PTX_OP_MIN) == (x < y) ? x : y;
            d[l] = r;
}
});
}

static void exec_bitwise(struct frame *f, const struct ptx_insn *insn, uint64_t *d,
                         const uint64_t *a, const uint64_t *b, uint32_t m)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    if (insn->type == PTX_PRED) {
        uint32_t x = pred_of(f, &insn->o[1]);
        uint32_t y = insn->n_operands > 2 ? pred_of(f, &insn->o[2]) : 0;
        uint32_t r = op == PTX_OP_AND   ? x & y
                     : op == PTX_OP_OR  ? x | y
                     : op == PTX_OP_XOR ? x ^ y
                                        : ~x;
        set_pred(f, &insn->o[0], m, r);
        return;
    }
    INT_TYPED(insn->type, {
        EACH(m)
        {
            U x = (U)a[l], y = b ? (U)b[l] : 0;
            U r = op == PTX_OP_AND   ? x & y
                  : op == PTX_OP_OR  ? x | y
                  : op == PTX_OP_XOR ? x ^ y
                  : op == PTX_OP_NOT ? (U)~x
                                     : (U)(x == 0);
            d[l] = r;
}
});
}

static void exec_shift(const struct ptx_insn *insn, uint64_t *d, const uint64_t *a,
                       const uint64_t *b, uint32_t m)
{
    bool left = insn->op == PTX_OP_SHL, sgn = ptx_type_is_signed((enum ptx_type)insn->type);
    unsigned width = 8 * ptx_type_bytes((enum ptx_type)insn->type);
    INT_TYPED(insn->type, {
        EACH(m)
        {
            U x = (U)a[l];
            uint32_t n = (uint32_t)b[l];
            U r;
            if (left)
                r = n >= width ? 0 : (U)(x << n);
            else if (sgn)
                r = (U)((S)x >> (n >= width ? width - 1 : n));
            else
                r = n >= width ? 0 : (U)(x >> n);
            d[l] = r;
}
});
}

/* shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: funnel shift of {b:a} by c. */
static void exec_funnel(const struct ptx_insn *insn, uint64_t *d, const uint64_t *a,
                        const uint64_t *b, const uint64_t *c, uint32_t m)
{
    bool left = insn->flags & PTX_F_SHIFT_LEFT, clamp = insn->flags & PTX_F_CLAMP;
    EACH(m)
    {
        uint32_t n = (uint32_t)c[l];
        n = clamp ? (n > 32 ? 32 : n) : n & 31;
        uint64_t v = (uint64_t)(uint32_t)b[l] << 32 | (uint32_t)a[l];
        d[l] = left ? (uint32_t)((v << n) >> 32) : (uint32_t)(v >> n);
    }
}

/* bmsk: `width` bits set from bit `start` (the PTX ISA's semantics: .wrap
 * takes both modulo 32; .clamp gives 0 from a start past 31 and all bits
 * from the start up for a width past 31). */
static uint32_t bit_mask(uint32_t start, uint32_t width, bool clamp)
{
    uint32_t a1 = start & 31, b1 = width & 31;
    uint64_t below_start = (1ull << a1) - 1, below_end = (1ull << (a1 + b1)) - 1;
    if (clamp && start >= 32)
        return 0;
    if (a1 + b1 >= 32 || (clamp && width >= 32))
        return (uint32_t)~below_start;
    return (uint32_t)(below_end & ~below_start);
}

/* fns: the position of the |offset|-th set bit of `mask` from bit `base`,
 * upwards for a positive offset and downwards for a negative one; offset 0
 * asks whether bit `base` is set. 0xFFFFFFFF when there is none. */
static uint32_t nth_set_bit(uint32_t mask, uint32_t base, int32_t offset)
{
    if (base > 31)
        return 0xFFFFFFFFu; /* undefined in the ISA */
    if (offset == 0)
        return mask >> base & 1 ? base : 0xFFFFFFFFu;
    int step = offset > 0 ? 1 : -1;
    uint32_t count = offset > 0 ? (uint32_t)offset : 0u - (uint32_t)offset;
    for (int pos = (int)base; pos >= 0 && pos < 32; pos += step)
        if (mask >> pos & 1 && --count == 0)
            return (uint32_t)pos;
    return 0xFFFFFFFFu;
}

static void exec_bits(const struct ptx_insn *insn, uint64_t *d, const uint64_t *a,
                      const uint64_t *b, const uint64_t *c, const uint64_t *e, uint32_t m)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    unsigned width = 8 * ptx_type_bytes((enum ptx_type)insn->type);
    bool sgn = ptx_type_is_signed((enum ptx_type)insn->type);
    uint64_t keep = width == 64 ? ~0ull : (1ull << width) - 1;
    EACH(m)
    {
        uint64_t x = a[l] & keep, r = 0;
        switch (op) {
        case PTX_OP_POPC:
            r = (uint64_t)__builtin_popcountll(x);
            break;
        case PTX_OP_CLZ:
            r = x == 0 ? width : (uint64_t)(__builtin_clzll(x) - (64 - (int)width));
            break;
        case PTX_OP_BREV:
            for (unsigned i = 0; i < width; i++)
                r |= (x >> i & 1) << (width - 1 - i);
            break;
        case PTX_OP_BFIND: {
            uint64_t v = sgn && (x >> (width - 1) & 1) ? ~x & keep : x;
            r = v == 0 ? 0xFFFFFFFFu : (uint64_t)(63 - __builtin_clzll(v));
            if (v != 0 && (insn->flags & PTX_F_SHIFTAMT))
                r = width - 1 - r;
            break;
        }
        case PTX_OP_BFE: {
            uint32_t pos = (uint32_t)b[l] & 0xFF, len = (uint32_t)c[l] & 0xFF;
            uint64_t sbit = 0;
            if (sgn && len > 0) {
                unsigned top = pos + len - 1 > width - 1 ? width - 1 : pos + len - 1;
                sbit = x >> top & 1;
            }
            for (unsigned i = 0; i < width; i++) {
                uint64_t bit = i < len && pos + i < width ? x >> (pos + i) & 1 : sbit;
                r |= bit << i;
            }
            break;
        }
        case PTX_OP_BMSK:
            r = bit_mask((uint32_t)a[l], (uint32_t)b[l], insn->flags & PTX_F_CLAMP);
            break;
        case PTX_OP_FNS:
            r = nth_set_bit((uint32_t)a[l], (uint32_t)b[l], (int32_t)c[l]);
            break;
        case PTX_OP_BFI: {
            uint32_t pos = (uint32_t)c[l] & 0xFF, len = (uint32_t)e[l] & 0xFF;
            r = b[l] & keep;
            for (unsigned i = 0; i < len && pos + i < width; i++)
                r = (r & ~(1ull << (pos + i))) | ((x >> i & 1) << (pos + i));
            break;
        }
        default:
            break;
        }
        d[l] = r & keep;
    }
}

/* prmt.b32 d, a, b, c: bytes of {b, a} chosen by the nibbles of c. */
static void exec_prmt(uint64_t *d, const uint64_t *a, const uint64_t *b, const uint64_t *c,
                      uint32_t m)
{
    EACH(m)
    {
        uint64_t bytes = (uint64_t)(uint32_t)b[l] << 32 | (uint32_t)a[l];
        uint32_t sel = (uint32_t)c[l], r = 0;
        for (int i = 0; i < 4; i++) {
            uint32_t s = sel >> (4 * i) & 0xF;
            uint32_t byte = (uint32_t)(bytes >> (8 * (s & 7))) & 0xFF;
            if (s & 8) /* replicate the sign bit of the byte */
                byte = byte & 0x80 ? 0xFF : 0;
            r |= byte << (8 * i);
        }
        d[l] = r;
    }
}

/* ---------------------------------------------------------- comparisons */

static bool compare_float(double x, double y, enum ptx_cmp c)
{
    bool unordered = x != x || y != y;
    switch (c) {
    case PTX_CMP_EQ:
        return !unordered && x == y;
    case PTX_CMP_NE:
        return !unordered && x != y;
    case PTX_CMP_LT:
        return !unordered && x < y;
    case PTX_CMP_LE:
        return !unordered && x <= y;
    case PTX_CMP_GT:
        return !unordered && x > y;
    case PTX_CMP_GE:
        return !unordered && x >= y;
    case PTX_CMP_EQU:
        return unordered || x == y;
    case PTX_CMP_NEU:
        return unordered || x != y;
    case PTX_CMP_LTU:
        return unordered || x < y;
    case PTX_CMP_LEU:
        return unordered || x <= y;
    case PTX_CMP_GTU:
        return unordered || x > y;
    case PTX_CMP_GEU:
        return unordered || x >= y;
    case PTX_CMP_NUM:
        return !unordered;
    case PTX_CMP_NAN:
        return unordered;
    default:
        return false;
    }
}

/* The comparison of halves (.f16, .bf16; of a pair, the low ones for part 0,
 * the high ones for part 1) as a mask over the lanes of m. */
static uint32_t compare_halves(const struct ptx_insn *insn, enum ptx_type type, const uint64_t *a,
                               const uint64_t *b, uint32_t m, unsigned part)
{
    enum half_format format = half_format_of(type);
    bool ftz = insn->flags & PTX_F_FTZ;
    uint32_t r = 0;
    EACH(m)
    {
        uint16_t x = (uint16_t)(a[l] >> (16 * part)), y = (uint16_t)(b[l] >> (16 * part));
        if (ftz)
            x = half_flush(format, x), y = half_flush(format, y);
        r |= (uint32_t)compare_float(half_value(format, x), half_value(format, y),
                                     (enum ptx_cmp)insn->cmp)
             << l;
    }
    return r;
}

/* The comparison of setp/set as a mask over the lanes of m (of a pair type,
 * of the halves `part`). */
static uint32_t compare_lanes(const struct ptx_insn *insn, enum ptx_type type, const uint64_t *a,
                              const uint64_t *b, uint32_t m, unsigned part)
{
    enum ptx_cmp c = (enum ptx_cmp)insn->cmp;
    uint32_t r = 0;
    bool ftz = insn->flags & PTX_F_FTZ;
    if (ptx_type_is_half(type))
        return compare_halves(insn, type, a, b, m, part);
    if (type == PTX_F32) {
        EACH(m)
        {
            float x = slot_f32(a[l]), y = slot_f32(b[l]);
            if (ftz)
                x = ftz32(x), y = ftz32(y);
            r |= (uint32_t)compare_float(x, y, c) << l;
        }
        return r;
    }
    if (type == PTX_F64) {
        EACH(m)
        r |= (uint32_t)compare_float(slot_f64(a[l]), slot_f64(b[l]), c) << l;
        return r;
    }
    bool sgn = ptx_type_is_signed(type);
    unsigned bits = 8 * ptx_type_bytes(type);
    uint64_t keep = bits == 64 ? ~0ull : (1ull << bits) - 1;
    EACH(m)
    {
        uint64_t x = a[l] & keep, y = b[l] & keep;
        int64_t sx = bits == 64 ? (int64_t)x : (int64_t)(x << (64 - bits)) >> (64 - bits);
        int64_t sy = bits == 64 ? (int64_t)y : (int64_t)(y << (64 - bits)) >> (64 - bits);
        r |= (uint32_t)ptx_compare_int(x, y, sx, sy, sgn, c) << l;
    }
    return r;
}

static uint32_t combine(enum ptx_bool_op op, uint32_t v, uint32_t c)
{
    switch (op) {
    case PTX_BOOL_AND:
        return v & c;
    case PTX_BOOL_OR:
        return v | c;
    case PTX_BOOL_XOR:
        return v ^ c;
    default:
        return v;
    }
}

/* setp.CMP[.BOOL].type p[|q], a, b[, c]: q is !p, or for a pair type p
 * compares the low halves and q the high ones. */
static void exec_setp(struct frame *f, const struct ptx_insn *insn, const uint64_t *a,
                      const uint64_t *b, uint32_t m)
{
    bool two =
        insn->o[1].kind == PTX_OPD_PRED && insn->n_operands >= 4 && insn->o[2].kind != PTX_OPD_PRED;
    enum ptx_type type = (enum ptx_type)insn->type;
    uint32_t v = compare_lanes(insn, type, a, b, m, 0);
    uint32_t v_q = ptx_type_is_pair(type) ? compare_lanes(insn, type, a, b, m, 1) : ~v;
    uint32_t c = insn->bool_op != PTX_BOOL_NONE ? pred_of(f, &insn->o[insn->n_operands - 1]) : 0;
    set_pred(f, &insn->o[0], m, combine((enum ptx_bool_op)insn->bool_op, v, c));
    if (two)
        set_pred(f, &insn->o[1], m, combine((enum ptx_bool_op)insn->bool_op, v_q, c));
}

/* What set writes for true: 1.0 in a float dtype, else all ones (16 of them
 * in each half of a pair's result). */
static uint64_t set_true_value(enum ptx_type to, bool pair)
{
    if (to == PTX_F32)
        return f32_slot(1.0f);
    if (ptx_type_is_half(to))
        return half_one(half_format_of(to));
    return pair ? 0xFFFFu : 0xFFFFFFFFu;
}

/* set.CMP[.BOOL].dtype.stype d, a, b[, c]; of a pair stype, each half of d
 * holds the comparison of its halves. */
static void exec_set(struct frame *f, const struct ptx_insn *insn, uint64_t *d, const uint64_t *a,
                     const uint64_t *b, uint32_t m)
{
    enum ptx_type from = (enum ptx_type)insn->type2;
    unsigned parts = ptx_type_is_pair(from) ? 2 : 1;
    uint32_t c = insn->bool_op != PTX_BOOL_NONE ? pred_of(f, &insn->o[3]) : 0;
    uint64_t yes = set_true_value((enum ptx_type)insn->type, parts == 2);
    uint32_t v[2] = {0, 0};
    for (unsigned part = 0; part < parts; part++)
        v[part] =
            combine((enum ptx_bool_op)insn->bool_op, compare_lanes(insn, from, a, b, m, part), c);
    EACH(m)
    d[l] = (v[0] >> l & 1 ? yes : 0) | (v[1] >> l & 1 ? yes << 16 : 0);
}

/* ------------------------------------------------------------------ cvt */

static void exec_cvt(const struct ptx_insn *insn, uint64_t *d, const uint64_t *a, const uint64_t *b,
                     uint32_t m)
{
    enum ptx_type to = (enum ptx_type)insn->type, from = (enum ptx_type)insn->type2;
    bool has_rnd = insn->flags & PTX_F_HAS_RND, sat = insn->flags & PTX_F_SAT;
    bool ftz = insn->flags & PTX_F_FTZ;
    if (half_converts(insn)) {
        half_convert(insn, d, a, b, m);
        return;
    }
    /* The common widenings and narrowings of indices, done directly. */
    if (!sat && !has_rnd && !ptx_type_is_float(to) && !ptx_type_is_float(from)) {
        unsigned tb = ptx_type_bytes(to), fb = ptx_type_bytes(from);
        bool sext = ptx_type_is_signed(from) && fb < tb;
        EACH(m)
        {
            uint64_t v = a[l];
            if (fb < 8)
                v = sext ? (uint64_t)((int64_t)(v << (64 - 8 * fb)) >> (64 - 8 * fb))
                         : v & ((1ull << (8 * fb)) - 1);
            d[l] = tb == 8 ? v : v & ((1ull << (8 * tb)) - 1);
        }
        return;
    }
    EACH(m)
    d[l] = arith_cvt(a[l], to, from, has_rnd, (enum arith_rounding)insn->rnd, sat, ftz);
}

/* cvta[.to].space.size d, a. */
static void exec_cvta(const struct ptx_insn *insn, uint64_t *d, const uint64_t *a, uint32_t m)
{
    uint64_t window = insn->space == PTX_SPACE_SHARED  ? SHARED_WINDOW
                      : insn->space == PTX_SPACE_LOCAL ? LOCAL_WINDOW
                                                       : 0;
    bool to = insn->flags & PTX_F_TO;
    bool narrow = ptx_type_bytes((enum ptx_type)insn->type) == 4;
    EACH(m)
    {
        uint64_t v = to ? a[l] - window : (narrow ? (uint32_t)a[l] : a[l]) + window;
        d[l] = narrow ? (uint32_t)v : v;
    }
}

static void exec_isspacep(struct frame *f, const struct ptx_insn *insn, const uint64_t *a,
                          uint32_t m)
{
    uint32_t r = 0;
    EACH(m)
    {
        uint64_t v = a[l];
        bool shared = v - SHARED_WINDOW < WINDOW_SIZE, local = v - LOCAL_WINDOW < WINDOW_SIZE;
        bool yes = insn->space == PTX_SPACE_SHARED  ? shared
                   : insn->space == PTX_SPACE_LOCAL ? local
                                                    : !shared && !local;
        r |= (uint32_t)yes << l;
    }
    set_pred(f, &insn->o[0], m, r);
}

static void exec_testp(struct frame *f, const struct ptx_insn *insn, const uint64_t *a, uint32_t m)
{
    uint32_t r = 0;
    enum arith_testp t = (enum arith_testp)insn->bool_op;
    EACH(m)
    r |= (uint32_t)(insn->type == PTX_F32 ? arith_testp_f32(slot_f32(a[l]), t)
                                          : arith_testp_f64(slot_f64(a[l]), t))
         << l;
    set_pred(f, &insn->o[0], m, r);
}

/* ------------------------------------------------------------ moves */

/* mov: a value; or {a, b} packed into a wider register; or a register
 * unpacked into {a, b}. */
static void exec_mov(const struct warp *w, struct frame *f, const struct ptx_insn *insn,
                     struct scratch *s, uint32_t m)
{
    const struct ptx_operand *d = &insn->o[0], *a = &insn->o[1];
    if (insn->type == PTX_PRED) {
        set_pred(f, d, m, pred_of(f, a));
        return;
    }
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    if (a->kind == PTX_OPD_VEC) { /* pack */
        unsigned part = bytes / a->count, bits = 8 * part;
        uint64_t keep = bits == 64 ? ~0ull : (1ull << bits) - 1;
        uint64_t *out = dst(f, d, s);
        EACH(m)
        {
            uint64_t v = 0;
            for (unsigned i = 0; i < a->count; i++)
                if (a->vec[i] != PTX_NO_REG)
                    v |= (f->regs[a->vec[i]][l] & keep) << (bits * i);
            out[l] = v;
        }
        return;
    }
    const uint64_t *v = src(w, f, a, s->a);
    if (d->kind == PTX_OPD_VEC) { /* unpack */
        unsigned part = bytes / d->count, bits = 8 * part;
        uint64_t keep = bits == 64 ? ~0ull : (1ull << bits) - 1;
        for (unsigned i = 0; i < d->count; i++) {
            if (d->vec[i] == PTX_NO_REG)
                continue;
            uint64_t *out = f->regs[d->vec[i]];
            EACH(m)
            out[l] = v[l] >> (bits * i) & keep;
        }
        return;
    }
    uint64_t *out = dst(f, d, s);
    uint64_t keep = bytes >= 8 || bytes == 0 ? ~0ull : (1ull << (8 * bytes)) - 1;
    EACH(m)
    out[l] = v[l] & keep;
}

static void exec_selp(struct frame *f, const struct ptx_insn *insn, uint64_t *d, const uint64_t *a,
                      const uint64_t *b, uint32_t m)
{
    uint32_t c = pred_of(f, &insn->o[3]);
    EACH(m)
    d[l] = c >> l & 1 ? a[l] : b[l];
}

/* ------------------------------------------------------ warp collectives */

/* shfl.sync.mode.b32 d[|p], a, b, c, membermask (PTX ISA's pseudo-code). */
static void exec_shfl(struct frame *f, const struct ptx_insn *insn, struct scratch *s,
                      const uint64_t *a, const uint64_t *b, const uint64_t *c, uint32_t m)
{
    bool has_p = insn->o[1].kind == PTX_OPD_PRED;
    uint64_t *d = dst(f, &insn->o[0], s);
    lanes_t value;
    memcpy(value, a, sizeof value);
    uint32_t valid = 0;
    EACH(m)
    {
        uint32_t lane = l, bval = (uint32_t)b[l] & 31, cval = (uint32_t)c[l] & 31;
        uint32_t segmask = ((uint32_t)c[l] >> 8) & 31;
        uint32_t max_lane = (lane & segmask) | (cval & ~segmask), min_lane = lane & segmask;
        int32_t j;
        bool p;
        switch ((enum ptx_shfl_mode)insn->cmp) {
        case PTX_SHFL_UP:
            j = (int32_t)lane - (int32_t)bval;
            p = j >= (int32_t)max_lane;
            break;
        case PTX_SHFL_DOWN:
            j = (int32_t)(lane + bval);
            p = j <= (int32_t)max_lane;
            break;
        case PTX_SHFL_BFLY:
            j = (int32_t)(lane ^ bval);
            p = j <= (int32_t)max_lane;
            break;
        default:
            j = (int32_t)(min_lane | (bval & ~segmask));
            p = j <= (int32_t)max_lane;
            break;
        }
        if (!p || j < 0 || j >= WARP_SIZE)
            j = (int32_t)lane;
        d[l] = (uint32_t)value[j];
        valid |= (uint32_t)p << l;
    }
    if (has_p)
        set_pred(f, &insn->o[1], m, valid);
}

static void exec_vote(struct frame *f, const struct ptx_insn *insn, struct scratch *s, uint32_t m)
{
    uint32_t p = pred_of(f, &insn->o[1]) & m;
    enum ptx_vote_mode mode = (enum ptx_vote_mode)insn->cmp;
    if (mode == PTX_VOTE_BALLOT) {
        uint64_t *d = dst(f, &insn->o[0], s);
        EACH(m)
        d[l] = p;
        return;
    }
    bool r = mode == PTX_VOTE_ALL ? p == m : mode == PTX_VOTE_ANY ? p != 0 : p == 0 || p == m;
    set_pred(f, &insn->o[0], m, r ? FULL_MASK : 0);
}

/* redux.sync.op.type d, a, membermask. */
static void exec_redux(struct frame *f, const struct ptx_insn *insn, struct scratch *s,
                       const uint64_t *a, uint32_t m)
{
    bool sgn = ptx_type_is_signed((enum ptx_type)insn->type);
    uint32_t acc = 0;
    bool first = true;
    EACH(m)
    {
        uint32_t v = (uint32_t)a[l];
        switch ((enum ptx_atom_op)insn->cmp) {
        case PTX_ATOM_ADD:
            acc += v;
            break;
        case PTX_ATOM_MIN:
            acc = first || (sgn ? (int32_t)v < (int32_t)acc : v < acc) ? v : acc;
            break;
        case PTX_ATOM_MAX:
            acc = first || (sgn ? (int32_t)v > (int32_t)acc : v > acc) ? v : acc;
            break;
        case PTX_ATOM_AND:
            acc = first ? v : acc & v;
            break;
        case PTX_ATOM_OR:
            acc |= v;
            break;
        default:
            acc ^= v;
            break;
        }
        first = false;
    }
    uint64_t *d = dst(f, &insn->o[0], s);
    EACH(m)
    d[l] = acc;
}

/* match.any.sync: the lanes whose a equals mine; match.all.sync: the mask
 * when every lane's a is equal (and p says so), else 0. */
static void exec_match(struct frame *f, const struct ptx_insn *insn, struct scratch *s,
                       const uint64_t *a, uint32_t m)
{
    bool all = insn->cmp == 1;
    bool wide = ptx_type_bytes((enum ptx_type)insn->type) == 8;
    uint64_t keep = wide ? ~0ull : 0xFFFFFFFFull;
    uint64_t *d = dst(f, &insn->o[0], s);
    lanes_t v;
    memcpy(v, a, sizeof v);
    bool equal = true;
    EACH(m)
    equal = equal && (v[l] & keep) == (v[__builtin_ctz(m)] & keep);
    EACH(m)
    {
        uint32_t same = 0;
        for (uint32_t k = 0; k < WARP_SIZE; k++)
            if ((m >> k & 1) && (v[k] & keep) == (v[l] & keep))
                same |= 1u << k;
        d[l] = all ? (equal ? m : 0) : same;
    }
    if (all && insn->o[1].kind == PTX_OPD_PRED)
        set_pred(f, &insn->o[1], m, equal ? FULL_MASK : 0);
}

/* mul24 mad24 sad slct dp4a dp2a: the rarer integer operations. */
static void exec_int_misc(const struct ptx_insn *insn, uint64_t *d, const uint64_t *a,
                          const uint64_t *b, const uint64_t *c, uint32_t m)
{
    bool sgn = ptx_type_is_signed((enum ptx_type)insn->type);
    bool sgn2 = insn->type2 ? ptx_type_is_signed((enum ptx_type)insn->type2) : sgn;
    enum ptx_op op = (enum ptx_op)insn->op;
    EACH(m)
    {
        int64_t x = sgn ? (int64_t)(int32_t)a[l] : (int64_t)(uint32_t)a[l];
        int64_t y = sgn ? (int64_t)(int32_t)b[l] : (int64_t)(uint32_t)b[l];
        uint32_t r = 0;
        if (op == PTX_OP_MUL24 || op == PTX_OP_MAD24) {
            int64_t x24 = sgn ? (int64_t)((int32_t)((uint32_t)a[l] << 8) >> 8) : x & 0xFFFFFF;
            int64_t y24 = sgn ? (int64_t)((int32_t)((uint32_t)b[l] << 8) >> 8) : y & 0xFFFFFF;
            uint64_t p = (uint64_t)(x24 * y24);
            r = (uint32_t)(insn->flags & PTX_F_HI ? p >> 16 : p);
            if (op == PTX_OP_MAD24)
                r += (uint32_t)c[l];
        } else if (op == PTX_OP_SAD) {
            r = (uint32_t)c[l] + (uint32_t)(x > y ? x - y : y - x);
        } else if (op == PTX_OP_SLCT) {
            bool pick = insn->type2 == PTX_F32 ? slot_f32(c[l]) >= 0.0f : (int32_t)c[l] >= 0;
            r = (uint32_t)(pick ? a[l] : b[l]);
        } else { /* dp4a, dp2a.lo/hi: a's parts by its type, b's bytes by its type */
            int64_t acc = sgn2 ? (int64_t)(int32_t)c[l] : (int64_t)(uint32_t)c[l];
            bool four = op == PTX_OP_DP4A;
            unsigned base = !four && (insn->flags & PTX_F_HI) ? 2 : 0;
            for (unsigned i = 0; i < (four ? 4u : 2u); i++) {
                uint32_t pa =
                    four ? (uint32_t)a[l] >> (8 * i) & 0xFF : (uint32_t)a[l] >> (16 * i) & 0xFFFF;
                uint32_t pb = (uint32_t)b[l] >> (8 * (base + i)) & 0xFF;
                int64_t va = sgn ? (four ? (int8_t)pa : (int16_t)pa) : (int64_t)pa;
                int64_t vb = sgn2 ? (int8_t)pb : (int64_t)pb;
                acc += va * vb;
            }
            r = (uint32_t)acc;
        }
        d[l] = r;
    }
}

/* ----------------------------------------------------------- control */

static void pop_empty_entries(struct warp *w, int floor)
{
    while (w->depth > floor && w->stack[w->depth - 1].mask == 0)
        w->depth--;
}

/* Lanes leave the warp for good (exit, or ret from the kernel). */
static void exit_lanes(struct warp *w, uint32_t lanes)
{
    w->live &= ~lanes;
    for (int i = 0; i < w->depth; i++)
        w->stack[i].mask &= ~lanes;
    pop_empty_entries(w, 0);
}

static bool push_entry(struct warp *w, const struct ptx_insn *insn, uint32_t pc, uint32_t reconv,
                       uint32_t mask)
{
    if (w->depth >= SIMT_STACK_MAX) {
        launch_fault(w, -1, insn, CUDA_ERROR_HARDWARE_STACK_ERROR, 0,
                     "divergence nested deeper than the virtual GPU supports (%d levels)",
                     SIMT_STACK_MAX);
        return false;
    }
    w->stack[w->depth++] = (struct simt_entry){pc, reconv, mask};
    return true;
}

/* A branch of the lanes in `taken` (of the entry's mask). */
static bool branch(struct warp *w, const struct ptx_insn *insn, uint32_t pc, uint32_t taken)
{
    struct simt_entry *e = &w->stack[w->depth - 1];
    uint32_t not_taken = e->mask & ~taken;
    if (taken == 0) {
        e->pc = pc + 1;
        return true;
    }
    if (not_taken == 0) {
        e->pc = insn->target;
        return true;
    }
    /* Divergence: the entry waits at the reconvergence point for both sides. */
    e->pc = insn->reconv;
    if (insn->reconv == PTX_NO_PC)
        e->mask = 0; /* the sides never meet: the entry is done once they are */
    return push_entry(w, insn, pc + 1, insn->reconv, not_taken) &&
           push_entry(w, insn, insn->target, insn->reconv, taken);
}

/* ------------------------------------------------------------- frames */

static bool frame_alloc(struct warp *w, struct frame *fr, const struct ptx_function *fn)
{
    size_t regs = (size_t)fn->n_regs * sizeof(lanes_t);
    /* rounded up to 8 bytes: the scoreboard after the predicates holds uint64_t */
    size_t preds = ((size_t)(fn->n_preds ? fn->n_preds : 1) * sizeof(uint32_t) + 7) & ~(size_t)7;
    size_t params = (size_t)fn->call_param_bytes * WARP_SIZE;
    size_t ready = ((size_t)fn->n_regs + fn->n_preds) * sizeof(uint64_t);
    fr->regs = calloc(1, regs + preds + ready + params + 16);
    if (!fr->regs)
        return false;
    fr->preds = (uint32_t *)((uint8_t *)fr->regs + regs);
    fr->ready = (uint64_t *)((uint8_t *)fr->preds + preds);
    fr->params = (uint8_t *)fr->ready + ready;
    fr->fn = fn;
    (void)w;
    return true;
}

static void frame_free(struct frame *fr)
{
    free(fr->regs);
    fr->regs = NULL;
}

/* Copies the fixed special registers of the caller into a callee's frame. */
static void copy_specials(struct frame *to, const struct frame *from)
{
    memcpy(to->regs, from->regs, PTX_SREG_FIXED * sizeof(lanes_t));
}

static void copy_params(uint8_t *to, uint32_t to_stride, uint32_t to_offset, const uint8_t *from,
                        uint32_t from_stride, uint32_t from_offset, uint32_t bytes, uint32_t mask)
{
    EACH(mask)
    memcpy(to + l * to_stride + to_offset, from + l * from_stride + from_offset, bytes);
}

static bool call(struct warp *w, struct frame *caller, const struct ptx_insn *insn,
                 const struct ptx_function *callee, uint32_t pc, uint32_t m)
{
    struct simt_entry *e = &w->stack[w->depth - 1];
    e->pc = pc + 1;
    if (callee->builtin != PTX_BUILTIN_NONE)
        return builtin_call(w, caller, insn, callee, m);
    if (w->n_frames >= CALL_DEPTH_MAX) {
        launch_fault(w, __builtin_ctz(m), insn, CUDA_ERROR_HARDWARE_STACK_ERROR, 0,
                     "calls nested more than %d deep (unbounded recursion?) in '%s'",
                     CALL_DEPTH_MAX, callee->name);
        return false;
    }
    uint32_t local_per_lane = w->block->launch->local_per_lane;
    uint32_t base = (w->local_top + 15) & ~15u;
    if (base + callee->local_bytes > local_per_lane) {
        launch_fault(w, __builtin_ctz(m), insn, CUDA_ERROR_HARDWARE_STACK_ERROR, 0,
                     "stack overflow: the calls need more than the %u bytes of stack per thread "
                     "(unbounded recursion? cuCtxSetLimit(CU_LIMIT_STACK_SIZE) raises it)",
                     local_per_lane);
        return false;
    }
    struct frame *fr = &w->frames[w->n_frames];
    if (!frame_alloc(w, fr, callee)) {
        launch_fault(w, -1, insn, CUDA_ERROR_OUT_OF_MEMORY, 0, "out of host memory for a call");
        return false;
    }
    copy_specials(fr, caller);
    fr->local_base = base;
    fr->stack_base = w->depth;
    fr->call = insn;
    fr->call_lanes = m;
    w->local_top = base + callee->local_bytes;
    /* arguments → the callee's formal parameters */
    for (int i = 0; i < callee->n_params && i < insn->o[1].count; i++)
        copy_params(fr->params, callee->call_param_bytes, callee->params[i].offset, caller->params,
                    caller->fn->call_param_bytes, caller->fn->call_args[insn->o[1].imm + i],
                    callee->params[i].size, m);
    w->n_frames++;
    return push_entry(w, insn, 0, PTX_NO_PC, m);
}

static bool same_params(const struct ptx_param *a, int n_a, const struct ptx_param *b, int n_b)
{
    if (n_a != n_b)
        return false;
    for (int i = 0; i < n_a; i++)
        if (a[i].size != b[i].size)
            return false;
    return true;
}

/* The function a call through a pointer reaches: a defined device function
 * of the module with the prototype's parameters and return; else NULL after
 * a fault that says what the pointer held. */
static const struct ptx_function *pointed_function(struct warp *w, const struct ptx_insn *insn,
                                                   uint64_t address, int lane)
{
    const struct ptx_module *pm = w->block->launch->module->ptx;
    const struct ptx_function *proto = &pm->prototypes[insn->target];
    uint64_t index = (address - PTX_FUNCTION_BASE) / PTX_FUNCTION_STEP;
    bool is_function = address >= PTX_FUNCTION_BASE &&
                       (address - PTX_FUNCTION_BASE) % PTX_FUNCTION_STEP == 0 &&
                       index < (uint64_t)pm->n_functions;
    const struct ptx_function *f = is_function ? &pm->functions[index] : NULL;
    if (!f || f->is_entry || (f->n_code == 0 && f->builtin == PTX_BUILTIN_NONE)) {
        launch_fault(w, lane, insn, CUDA_ERROR_ILLEGAL_ADDRESS, address,
                     "called through a pointer that holds no device function");
        return NULL;
    }
    if (f->builtin != PTX_BUILTIN_NONE ||
        !same_params(f->params, f->n_params, proto->params, proto->n_params) ||
        !same_params(f->returns, f->n_returns, proto->returns, proto->n_returns)) {
        launch_fault(w, lane, insn, CUDA_ERROR_ILLEGAL_INSTRUCTION, address,
                     "called '%s' through a pointer of another type", f->name);
        return NULL;
    }
    return f;
}

/* call through a register: the lanes that hold the first lane's function
 * call it; the others, if any, run the call again after them (as a
 * divergent branch does), until every lane has made its call. */
static bool indirect_call(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t pc,
                          uint32_t m)
{
    const uint64_t *target = f->regs[insn->o[0].reg];
    int first = __builtin_ctz(m);
    uint32_t same = 0;
    for (uint32_t l = 0; l < WARP_SIZE; l++)
        if (m >> l & 1 && target[l] == target[first])
            same |= 1u << l;
    if (same != m) {
        struct simt_entry *e = &w->stack[w->depth - 1];
        e->pc = pc + 1;
        return push_entry(w, insn, pc, pc + 1, m & ~same) && push_entry(w, insn, pc, pc + 1, same);
    }
    const struct ptx_function *callee = pointed_function(w, insn, target[first], first);
    return callee && call(w, f, insn, callee, pc, m);
}

/* The frame's lanes have all returned: copy the return value, pop it. */
static void finish_call(struct warp *w)
{
    struct frame *fr = &w->frames[w->n_frames - 1];
    struct frame *caller = &w->frames[w->n_frames - 2];
    const struct ptx_insn *insn = fr->call;
    const struct ptx_function *callee = fr->fn;
    if (insn->o[2].count == 1 && callee->n_returns == 1)
        copy_params(caller->params, caller->fn->call_param_bytes,
                    caller->fn->call_args[insn->o[2].imm], fr->params, callee->call_param_bytes,
                    callee->returns[0].offset, callee->returns[0].size, fr->call_lanes);
    w->local_top = fr->local_base;
    frame_free(fr);
    w->n_frames--;
}

/* ret: from a function, the lanes wait for the others of the call; from
 * the kernel, they exit. */
static void ret(struct warp *w, uint32_t lanes)
{
    if (w->n_frames <= 1) {
        exit_lanes(w, lanes);
        return;
    }
    int floor = w->frames[w->n_frames - 1].stack_base;
    for (int i = floor; i < w->depth; i++)
        w->stack[i].mask &= ~lanes;
    pop_empty_entries(w, floor);
    if (w->depth == floor)
        finish_call(w);
}

/* ------------------------------------------------------------- barriers */

/* bar.sync a{, b} / barrier.sync / bar.red: hands the warp to the launcher;
 * when it is released the instruction completes (bar.red writes its result). */
static enum warp_state barrier(struct warp *w, struct frame *f, const struct ptx_insn *insn,
                               struct scratch *s, uint32_t m)
{
    if (insn->flags & PTX_F_WARP_SYNC) /* lanes of a warp are always in step here */
        return WARP_RUNNING;
    if (w->released) {
        w->released = false;
        uint32_t red = insn->flags & (PTX_F_RED_POPC | PTX_F_RED_AND | PTX_F_RED_OR);
        if (red) {
            const struct barrier_state *bs = &w->block->barriers[w->barrier];
            if (red & PTX_F_RED_POPC) {
                uint64_t *d = dst(f, &insn->o[0], s);
                EACH(m)
                d[l] = bs->popc_result;
            } else {
                bool r = red & PTX_F_RED_AND ? bs->all_result : bs->any_result;
                set_pred(f, &insn->o[0], m, r ? FULL_MASK : 0);
            }
        }
        return WARP_RUNNING;
    }
    int id_operand = insn->flags & (PTX_F_RED_POPC | PTX_F_RED_AND | PTX_F_RED_OR) ? 1 : 0;
    const uint64_t *id = src(w, f, &insn->o[id_operand], s->a);
    unsigned b = (unsigned)id[__builtin_ctz(m)];
    if (b >= BARRIERS)
        return launch_fault(w, __builtin_ctz(m), insn, CUDA_ERROR_ILLEGAL_INSTRUCTION, 0,
                            "barrier %u does not exist (0 to 15)", b);
    struct barrier_state *bs = &w->block->barriers[b];
    if (insn->n_operands > id_operand + 1 && insn->o[id_operand + 1].kind != PTX_OPD_PRED) {
        const uint64_t *count = src(w, f, &insn->o[id_operand + 1], s->b);
        bs->expected = ((unsigned)count[__builtin_ctz(m)] + WARP_SIZE - 1) / WARP_SIZE;
    }
    if (id_operand) {
        uint32_t p = pred_of(f, &insn->o[insn->n_operands - 1]) & m;
        bs->popc += (unsigned)__builtin_popcount(p);
        bs->all = bs->all && p == m;
        bs->any = bs->any || p != 0;
    }
    w->barrier = b;
    if (insn->flags & PTX_F_ARRIVE) {
        bs->arrived++;
        return WARP_RUNNING;
    }
    return WARP_AT_BARRIER;
}

/* ------------------------------------------------------------ fast path */

/* The operations that dominate elementwise kernels, as lane loops the
 * compiler vectorizes. Returns false for anything else (the general code
 * then runs). */
static bool execute_fast(const struct ptx_insn *insn, uint64_t *d, const uint64_t *a,
                         const uint64_t *b, const uint64_t *c, uint32_t m)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    if (insn->type == PTX_F32 && insn_plain_rounding(insn)) {
        switch (op) {
        case PTX_OP_ADD:
            LANES(m, d[l] = f32_result(slot_f32(a[l]) + slot_f32(b[l])));
            return true;
        case PTX_OP_SUB:
            LANES(m, d[l] = f32_result(slot_f32(a[l]) - slot_f32(b[l])));
            return true;
        case PTX_OP_MUL:
            LANES(m, d[l] = f32_result(slot_f32(a[l]) * slot_f32(b[l])));
            return true;
        case PTX_OP_DIV:
            LANES(m, d[l] = f32_result(slot_f32(a[l]) / slot_f32(b[l])));
            return true;
        case PTX_OP_FMA:
        case PTX_OP_MAD:
            LANES(m, d[l] = f32_result(fmaf(slot_f32(a[l]), slot_f32(b[l]), slot_f32(c[l]))));
            return true;
        case PTX_OP_ABS:
            LANES(m, d[l] = a[l] & 0x7FFFFFFFu);
            return true;
        case PTX_OP_NEG:
            LANES(m, d[l] = (a[l] ^ 0x80000000u) & 0xFFFFFFFFu);
            return true;
        case PTX_OP_COPYSIGN: /* |b| with a's sign */
            LANES(m, d[l] = (b[l] & 0x7FFFFFFFu) | (a[l] & 0x80000000u));
            return true;
        default:
            return false;
        }
    }
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    bool plain_int = !ptx_type_is_float((enum ptx_type)insn->type) &&
                     !(insn->flags & (PTX_F_CC | PTX_F_SAT | PTX_F_HI | PTX_F_WIDE));
    if (plain_int && bytes == 4) {
        switch (op) {
        case PTX_OP_ADD:
            LANES(m, d[l] = (uint32_t)(a[l] + b[l]));
            return true;
        case PTX_OP_SUB:
            LANES(m, d[l] = (uint32_t)(a[l] - b[l]));
            return true;
        case PTX_OP_MUL:
            LANES(m, d[l] = (uint32_t)(a[l] * b[l]));
            return true;
        case PTX_OP_MAD:
            LANES(m, d[l] = (uint32_t)(a[l] * b[l] + c[l]));
            return true;
        default:
            return false;
        }
    }
    if (plain_int && bytes == 8) {
        switch (op) {
        case PTX_OP_ADD:
            LANES(m, d[l] = a[l] + b[l]);
            return true;
        case PTX_OP_SUB:
            LANES(m, d[l] = a[l] - b[l]);
            return true;
        case PTX_OP_MUL:
            LANES(m, d[l] = a[l] * b[l]);
            return true;
        default:
            return false;
        }
    }
    if (op == PTX_OP_MUL && (insn->flags & PTX_F_WIDE) && bytes == 4) {
        if (insn->type == PTX_S32)
            LANES(m, d[l] = (uint64_t)((int64_t)(int32_t)a[l] * (int32_t)b[l]));
        else
            LANES(m, d[l] = (uint64_t)(uint32_t)a[l] * (uint32_t)b[l]);
        return true;
    }
    if (op == PTX_OP_CVTA && insn->space == PTX_SPACE_GLOBAL && bytes == 8) {
        LANES(m, d[l] = a[l]);
        return true;
    }
    return false;
}

/* ------------------------------------------------------------ dispatch */

static bool is_float(const struct ptx_insn *insn)
{
    return insn->type == PTX_F32 || insn->type == PTX_F64;
}

/* Every operation that neither branches nor waits, for the lanes of m. */
static bool execute(struct warp *w, struct frame *f, const struct ptx_insn *insn, struct scratch *s,
                    uint32_t m)
{
    const struct ptx_operand *o = insn->o;
    uint64_t *d = dst(f, &o[0], s);
    const uint64_t *a = insn->n_operands > 1 ? src(w, f, &o[1], s->a) : NULL;
    const uint64_t *b = insn->n_operands > 2 ? src(w, f, &o[2], s->b) : NULL;
    const uint64_t *c = insn->n_operands > 3 ? src(w, f, &o[3], s->c) : NULL;
    if (o[0].kind == PTX_OPD_REG && execute_fast(insn, d, a, b, c, m))
        return true;
    if (half_executes(insn)) {
        half_execute(insn, d, a, b, c, m);
        return true;
    }
    if (ptx_is_video_op((enum ptx_op)insn->op)) {
        EACH(m)
        d[l] = video_simd(insn, (uint32_t)a[l], (uint32_t)b[l], (uint32_t)c[l]);
        return true;
    }
    switch ((enum ptx_op)insn->op) {
    case PTX_OP_MOV:
        exec_mov(w, f, insn, s, m);
        return true;
    case PTX_OP_ADD:
    case PTX_OP_SUB:
    case PTX_OP_MUL:
    case PTX_OP_DIV:
    case PTX_OP_MIN:
    case PTX_OP_MAX:
        if (is_float(insn))
            exec_float_binary(insn, d, a, b, m);
        else if (insn->op == PTX_OP_MUL)
            exec_int_mul(w, insn, d, a, b, NULL, m);
        else if (insn->op == PTX_OP_DIV)
            exec_int_divrem(insn, d, a, b, m);
        else if (insn->op == PTX_OP_MIN || insn->op == PTX_OP_MAX)
            exec_int_minmax(insn, d, a, b, m);
        else
            exec_int_add(w, insn, d, a, b, m);
        return true;
    case PTX_OP_ADDC:
    case PTX_OP_SUBC:
        exec_int_add(w, insn, d, a, b, m);
        return true;
    case PTX_OP_MAD:
    case PTX_OP_MADC:
        if (is_float(insn))
            exec_fma(insn, d, a, b, c, m);
        else
            exec_int_mul(w, insn, d, a, b, c, m);
        return true;
    case PTX_OP_FMA:
        exec_fma(insn, d, a, b, c, m);
        return true;
    case PTX_OP_REM:
        exec_int_divrem(insn, d, a, b, m);
        return true;
    case PTX_OP_ABS:
    case PTX_OP_NEG:
        if (is_float(insn))
            exec_float_unary(insn, d, a, m);
        else
            exec_int_minmax(insn, d, a, a, m);
        return true;
    case PTX_OP_SQRT:
    case PTX_OP_RSQRT:
    case PTX_OP_RCP:
    case PTX_OP_EX2:
    case PTX_OP_LG2:
    case PTX_OP_SIN:
    case PTX_OP_COS:
    case PTX_OP_TANH:
        exec_float_unary(insn, d, a, m);
        return true;
    case PTX_OP_COPYSIGN:
        exec_float_binary(insn, d, a, b, m);
        return true;
    case PTX_OP_AND:
    case PTX_OP_OR:
    case PTX_OP_XOR:
    case PTX_OP_NOT:
    case PTX_OP_CNOT:
        exec_bitwise(f, insn, d, a, b, m);
        return true;
    case PTX_OP_SHL:
    case PTX_OP_SHR:
        exec_shift(insn, d, a, b, m);
        return true;
    case PTX_OP_SHF:
        exec_funnel(insn, d, a, b, c, m);
        return true;
    case PTX_OP_BFE:
    case PTX_OP_BFI:
    case PTX_OP_BREV:
    case PTX_OP_POPC:
    case PTX_OP_CLZ:
    case PTX_OP_BFIND:
    case PTX_OP_BMSK:
    case PTX_OP_FNS: {
        const uint64_t *e = insn->n_operands > 4 ? src(w, f, &o[4], s->d) : NULL;
        exec_bits(insn, d, a, b, c, e, m);
        return true;
    }
    case PTX_OP_PRMT:
        exec_prmt(d, a, b, c, m);
        return true;
    case PTX_OP_MUL24:
    case PTX_OP_MAD24:
    case PTX_OP_SAD:
    case PTX_OP_SLCT:
    case PTX_OP_DP4A:
    case PTX_OP_DP2A:
        exec_int_misc(insn, d, a, b, c, m);
        return true;
    case PTX_OP_SETP: {
        int first = o[1].kind == PTX_OPD_PRED && insn->n_operands >= 4 ? 2 : 1;
        exec_setp(f, insn, src(w, f, &o[first], s->a), src(w, f, &o[first + 1], s->b), m);
        return true;
    }
    case PTX_OP_SET:
        exec_set(f, insn, d, a, b, m);
        return true;
    case PTX_OP_SELP:
        exec_selp(f, insn, d, a, b, m);
        return true;
    case PTX_OP_CVT:
        exec_cvt(insn, d, a, b, m);
        return true;
    case PTX_OP_CVTA:
        exec_cvta(insn, d, a, m);
        return true;
    case PTX_OP_ISSPACEP:
        exec_isspacep(f, insn, a, m);
        return true;
    case PTX_OP_TESTP:
        exec_testp(f, insn, a, m);
        return true;
    case PTX_OP_LD:
    case PTX_OP_LDU:
        return mem_load(w, f, insn, m);
    case PTX_OP_ST:
        return mem_store(w, f, insn, m);
    case PTX_OP_ATOM:
    case PTX_OP_RED:
        return mem_atomic(w, f, insn, m);
    case PTX_OP_TEX:
    case PTX_OP_TLD4:
    case PTX_OP_TXQ:
    case PTX_OP_SULD:
    case PTX_OP_SUST:
    case PTX_OP_SURED:
    case PTX_OP_SUQ:
        return texture_execute(w, f, insn, m);
    case PTX_OP_SHFL: {
        int first = o[1].kind == PTX_OPD_PRED ? 2 : 1;
        exec_shfl(f, insn, s, src(w, f, &o[first], s->a), src(w, f, &o[first + 1], s->b),
                  src(w, f, &o[first + 2], s->c), m);
        return true;
    }
    case PTX_OP_VOTE:
        exec_vote(f, insn, s, m);
        return true;
    case PTX_OP_ACTIVEMASK:
        EACH(m)
        d[l] = m;
        return true;
    case PTX_OP_REDUX:
        exec_redux(f, insn, s, a, m);
        return true;
    case PTX_OP_MATCH: /* d[|p], a, membermask */
        exec_match(f, insn, s, o[1].kind == PTX_OPD_PRED ? src(w, f, &o[2], s->b) : a, m);
        return true;
    case PTX_OP_WMMA:
        return wmma_execute(w, f, insn, m);
    case PTX_OP_MEMBAR:
    case PTX_OP_FENCE:
    case PTX_OP_PREFETCH:
    case PTX_OP_PREFETCHU:
    case PTX_OP_PMEVENT:
    case PTX_OP_GRIDDEPCONTROL:
        return true;
    default:
        launch_fault(w, __builtin_ctz(m), insn, CUDA_ERROR_ILLEGAL_INSTRUCTION, 0,
                     "the virtual GPU cannot execute '%s' here",
                     ptx_op_name((enum ptx_op)insn->op));
        return false;
    }
}

bool interp_execute(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t m)
{
    struct scratch s;
    return execute(w, f, insn, &s, m);
}

/* --------------------------------------------------------------- the loop */

/* Executes one instruction of the top entry. Returns the warp's state. */
static enum warp_state step(struct warp *w, struct scratch *s)
{
    struct simt_entry *e = &w->stack[w->depth - 1];
    struct frame *f = &w->frames[w->n_frames - 1];
    uint32_t pc = e->pc;
    const struct ptx_insn *insn = &f->fn->code[pc];
    uint32_t m = e->mask;
    if (insn->guard != PTX_NO_REG)
        m &= f->preds[insn->guard] ^ (insn->guard_neg ? FULL_MASK : 0);
    w->instructions++;
    if (w->block->launch->timing.enabled)
        timing_issue(&w->timing, w->block->launch->cfg->device, f->fn, pc, f->ready);
    if (++w->since_check >= BUDGET_CHECK_INTERVAL && !launch_check_budget(w, insn))
        return WARP_FAULTED;
    const struct ptx_operand *o = insn->o;
    enum ptx_op op = (enum ptx_op)insn->op;
    switch (op) {
    case PTX_OP_BRA:
        return branch(w, insn, pc, m) ? WARP_RUNNING : WARP_FAULTED;
    case PTX_OP_CALL:
        if (m == 0) {
            e->pc = pc + 1;
            return WARP_RUNNING;
        }
        if (insn->flags & PTX_F_INDIRECT)
            return indirect_call(w, f, insn, pc, m) ? WARP_RUNNING : WARP_FAULTED;
        return call(w, f, insn, &w->block->launch->module->ptx->functions[insn->target], pc, m)
                   ? WARP_RUNNING
                   : WARP_FAULTED;
    case PTX_OP_RET:
        e->pc = pc + 1;
        ret(w, m);
        return w->depth == 0 ? WARP_DONE : WARP_RUNNING;
    case PTX_OP_EXIT:
        e->pc = pc + 1;
        exit_lanes(w, m);
        return w->depth == 0 ? WARP_DONE : WARP_RUNNING;
    case PTX_OP_TRAP:
    case PTX_OP_BRKPT:
        if (m == 0)
            break;
        return launch_fault(w, __builtin_ctz(m), insn, CUDA_ERROR_LAUNCH_FAILED, 0,
                            "executed trap (an abort, such as __trap() or a failed assert)");
    case PTX_OP_BAR:
    case PTX_OP_BARRIER: {
        enum warp_state st = barrier(w, f, insn, s, e->mask);
        if (st != WARP_RUNNING)
            return st;
        break;
    }
    case PTX_OP_CP:
    case PTX_OP_MBARRIER:
    case PTX_OP_NANOSLEEP: {
        enum warp_state st = m ? async_execute(w, f, insn, m) : WARP_RUNNING;
        if (st == WARP_FAULTED)
            return st;
        e->pc = pc + 1;
        return st; /* a yielding warp resumes after the instruction */
    }
    default:
        if (m != 0 && !execute(w, f, insn, s, m))
            return WARP_FAULTED;
        break;
    }
    (void)o;
    e->pc = pc + 1;
    return WARP_RUNNING;
}

bool interp_branch(struct warp *w, uint32_t pc, uint32_t taken)
{
    return branch(w, &w->frames[w->n_frames - 1].fn->code[pc], pc, taken);
}

/* Runs the warp until it waits, yields, ends or faults; the compiled tier's
 * deferred adds are in memory whenever the interpreter runs an instruction
 * and when the warp leaves (JIT.md, "Deferred adds"). */
static enum warp_state run_until_it_stops(struct warp *w)
{
    struct scratch s;
    const struct launch_state *ls = w->block->launch;
    const struct jit_kernel *jit = atomic_load_explicit(&ls->jit, memory_order_acquire);
    const struct emu_timing_constants *latency = &ls->cfg->device->timing;
    if (w->state == WARP_AT_BARRIER || w->state == WARP_YIELDED)
        w->state = WARP_RUNNING;
    while (w->depth > 0) {
        struct simt_entry *e = &w->stack[w->depth - 1];
        if (e->pc == e->reconv || e->mask == 0) { /* both sides arrived */
            w->depth--;
            continue;
        }
        /* The compiled tier (JIT.md): a region of the kernel's frame, or of
         * a called function's compiled with it, runs natively with the
         * entry's mask, then the loop goes on after it. */
        uint32_t end;
        jit_region_fn region;
        struct frame *top = &w->frames[w->n_frames - 1];
        const struct jit_kernel *code =
            !jit || w->n_frames == 1 ? jit
                                     : atomic_load_explicit(&top->fn->jit, memory_order_acquire);
        if (code && (region = jit_region_at(code, e->pc, &end)) != NULL) {
            int status = region(w, top, e->mask, latency);
            if (status == JIT_FAULTED)
                return WARP_FAULTED;
            if (status == JIT_RAN) {
                e->pc = end;
                continue;
            }
            if (status == JIT_BRANCHED)
                continue;
        }
        if (w->deferred.words)
            mem_flush_deferred(w);
        enum warp_state st = step(w, &s);
        if (st != WARP_RUNNING)
            return st;
    }
    return WARP_DONE;
}

enum warp_state warp_run(struct warp *w)
{
    enum warp_state st = run_until_it_stops(w);
    if (w->deferred.words)
        mem_flush_deferred(w);
    return w->state = st;
}

/* The value of fixed special register r for lane l of warp w. */
static uint64_t special_value(const struct warp *w, const struct block *b, unsigned r, uint32_t l)
{
    const struct launch_state *ls = b->launch;
    const struct emu_launch *cfg = ls->cfg;
    switch ((enum ptx_sreg)r) {
    case PTX_SREG_TID_X:
    case PTX_SREG_TID_Y:
    case PTX_SREG_TID_Z:
        return w->tid[r - PTX_SREG_TID_X][l];
    case PTX_SREG_NTID_X:
    case PTX_SREG_NTID_Y:
    case PTX_SREG_NTID_Z:
        return cfg->block[r - PTX_SREG_NTID_X];
    case PTX_SREG_CTAID_X:
    case PTX_SREG_CTAID_Y:
    case PTX_SREG_CTAID_Z:
        return b->ctaid[r - PTX_SREG_CTAID_X];
    case PTX_SREG_NCTAID_X:
    case PTX_SREG_NCTAID_Y:
    case PTX_SREG_NCTAID_Z:
        return cfg->grid[r - PTX_SREG_NCTAID_X];
    case PTX_SREG_LANEID:
        return l;
    case PTX_SREG_WARPID:
        return w->index;
    case PTX_SREG_NWARPID:
        return ls->warps_per_block;
    case PTX_SREG_NSMID:
        return (uint64_t)cfg->device->sm_count;
    case PTX_SREG_GRIDID:
        return 1;
    case PTX_SREG_LANEMASK_EQ:
        return 1ull << l;
    case PTX_SREG_LANEMASK_LT:
        return (1ull << l) - 1;
    case PTX_SREG_LANEMASK_LE:
        return (2ull << l) - 1;
    case PTX_SREG_LANEMASK_GT:
        return (uint32_t) ~((2ull << l) - 1);
    case PTX_SREG_LANEMASK_GE:
        return (uint32_t) ~((1ull << l) - 1);
    case PTX_SREG_DYNAMIC_SMEM:
        return cfg->dynamic_shared_bytes;
    case PTX_SREG_TOTAL_SMEM:
        return ls->shared_bytes;
    default: /* %smid: the logical schedule has no SMs */
        return 0;
    }
}

/* Whether fixed special register r differs between the lanes of a warp. */
static bool special_per_lane(unsigned r)
{
    return r <= PTX_SREG_TID_Z || r == PTX_SREG_LANEID ||
           (r >= PTX_SREG_LANEMASK_EQ && r <= PTX_SREG_LANEMASK_GE);
}

/* The fixed special registers whose value changes from one block of a
 * launch to the next; the others are the same for every warp of its index. */
#define SREGS_OF_THE_BLOCK                                                                         \
    (1u << PTX_SREG_CTAID_X | 1u << PTX_SREG_CTAID_Y | 1u << PTX_SREG_CTAID_Z)

/* Fills the fixed special registers of `which` the module reads: a value
 * shared by the warp is computed once, the thread indices are copied. */
static void fill_specials(struct warp *w, struct frame *f, const struct block *b, uint32_t which)
{
    uint32_t used = b->launch->module->ptx->used_sregs & which;
    for (unsigned r = 0; r < PTX_SREG_FIXED; r++) {
        if (!(used >> r & 1))
            continue;
        uint64_t *row = f->regs[r];
        if (r <= PTX_SREG_TID_Z) {
            const unsigned *tid = w->tid[r - PTX_SREG_TID_X];
            for (uint32_t l = 0; l < WARP_SIZE; l++)
                row[l] = tid[l];
        } else if (special_per_lane(r)) {
            for (uint32_t l = 0; l < WARP_SIZE; l++)
                row[l] = special_value(w, b, r, l);
        } else {
            fill(row, special_value(w, b, r, 0));
        }
    }
}

/* The lanes' thread indices within the block: thread t of the block is
 * (t % x, t / x % y, t / (x·y)); lanes count up from the warp's first
 * thread, carrying from x into y into z, without a division per lane. */
static void fill_thread_indices(struct warp *w, const unsigned block[3], unsigned first)
{
    unsigned x = first % block[0], y = first / block[0] % block[1],
             z = first / (block[0] * block[1]);
    for (unsigned l = 0; l < WARP_SIZE; l++) {
        w->tid[0][l] = x;
        w->tid[1][l] = y;
        w->tid[2][l] = z;
        if (++x == block[0]) {
            x = 0;
            if (++y == block[1]) {
                y = 0;
                z++;
            }
        }
    }
}

bool warp_start(struct warp *w, struct block *b, unsigned index)
{
    const struct launch_state *ls = b->launch;
    const unsigned *bd = ls->cfg->block;
    w->block = b;
    w->index = index;
    unsigned first = index * WARP_SIZE;
    unsigned lanes = ls->threads_per_block > first ? ls->threads_per_block - first : 0;
    w->live = lanes >= WARP_SIZE ? FULL_MASK : (1u << lanes) - 1;
    w->state = WARP_RUNNING;
    w->released = false;
    w->carry = 0;
    /* the scoreboard's clock runs on: this frame's ready times are in the past */
    uint64_t clock = w->timing.start + w->timing.path;
    memset(&w->timing, 0, sizeof w->timing);
    w->timing.start = w->timing.floor = w->timing.last = clock;
    w->local_top = ls->function->ptx->local_bytes;
    w->depth = 0;
    w->n_frames = 1;
    struct frame *f = &w->frames[0];
    /* A warp's frame lives for the launch (runner_init to runner_free): its
     * first block fills every special register, the next ones only those of
     * the block (the parser refuses a write to a special register). */
    uint32_t specials = SREGS_OF_THE_BLOCK;
    if (!f->regs || f->fn != ls->function->ptx) {
        frame_free(f);
        if (!frame_alloc(w, f, ls->function->ptx))
            return false;
        fill_thread_indices(w, bd, first);
        specials = ~0u;
    } else { /* the rows a kernel may read before writing (ptx_uninit.c) */
        for (uint32_t i = 0; i < f->fn->n_zero_rows; i++)
            memset(f->regs[f->fn->zero_rows[i]], 0, sizeof(lanes_t));
        memset(f->preds, 0, (size_t)(f->fn->n_preds ? f->fn->n_preds : 1) * sizeof(uint32_t));
    }
    f->local_base = 0;
    f->stack_base = 0;
    f->call = NULL;
    fill_specials(w, f, b, specials);
    w->stack[w->depth++] = (struct simt_entry){0, PTX_NO_PC, w->live};
    return true;
}

void warp_release(struct warp *w)
{
    for (int i = 0; i < CALL_DEPTH_MAX && w->frames[i].regs; i++)
        frame_free(&w->frames[i]);
}
