/*
 * nvcuda::wmma's warp-wide matrix operations as a functional model:
 * wmma.load, wmma.store and wmma.mma (wmma.h says where a fragment's
 * elements are).
 *
 * The lanes of a warp run in lockstep, so one instruction sees the
 * registers of all 32, as shfl does: a load or a store moves each active
 * lane's elements between memory and its registers; mma gathers A, B and C
 * from the registers of every lane (one that did not execute it, which CUDA
 * leaves undefined, gives what its registers hold), computes D and writes
 * each active lane's elements of it.
 *
 * Numbers: the products of f16, bf16 and tf32 inputs are exact in double
 * precision; C and the products are summed in double precision in k order
 * and the sum rounded once to D's type, to nearest even. A GPU's order and
 * intermediate precision of that sum are its own (the ISA leaves them to the
 * implementation; Ampere's tensor cores truncate), so results agree with a
 * GPU's within its accumulation error, and exactly when the sums are exact.
 * A tensor core reads the top 19 bits of a .tf32 operand. Integer products
 * and sums are exact; the s32 result wraps, or with .satfinite clamps.
 * .satfinite on f16 inputs makes ±Inf the largest finite value and NaN +0
 * (the CUDA Programming Guide's satf). .f64 is a chain of fused
 * multiply-adds in k order with the instruction's rounding.
 *
 * Memory: every element is checked as any access is (a fault names the
 * lane, the address and the buffer). Fragments of 16-bit and wider types
 * need an address and a stride (in bytes) that are multiples of 16, as the
 * 128-bit accesses a GPU makes of them do (the CUDA Programming Guide asks
 * a 256-bit pointer and ldm a multiple of 16 bytes), else
 * CUDA_ERROR_MISALIGNED_ADDRESS. The timing model sees a tile's bytes as a
 * GPU reads them: 16-byte pieces of its rows (columns when column-major), a
 * lane's fragment bytes / 16 requests of 32 pieces, copies read again.
 */
#include "wmma.h"
#include "exec.h"
#include "fp_env.h"
#include "half.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#define FLOAT_MAX         3.4028234663852886e38 /* the largest finite f32 */
#define ACCESS_BYTES      16                    /* a GPU's access of a fragment, per lane */
#define ALIGNED_FROM_BITS 16 /* fragments of elements this wide or wider need ACCESS_BYTES */

/* A matrix in row-major order, as exact values. */
struct matrix {
    double v[WMMA_MAX_ELEMENTS];
};

static int64_t sign_extend(uint64_t bits, unsigned width)
{
    return (int64_t)(bits << (64 - width)) >> (64 - width);
}

/* The value of an element's bits (inside an fp_scope). */
static double element_value(enum ptx_type t, uint64_t bits)
{
    switch (t) {
    case PTX_F16:
    case PTX_BF16:
        return half_value(half_format_of(t), (uint16_t)bits);
    case PTX_TF32:
        return slot_f32(half_tf32_operand((uint32_t)bits));
    case PTX_F32:
        return slot_f32((uint32_t)bits);
    case PTX_F64:
        return slot_f64(bits);
    case PTX_S8:
        return (double)sign_extend(bits, 8);
    case PTX_S4:
        return (double)sign_extend(bits, 4);
    case PTX_S32:
        return (double)sign_extend(bits, 32);
    default: /* U8 U4 B1 */
        return (double)bits;
    }
}

/* The bits of a result of D's type (inside an fp_scope). */
static uint64_t element_bits_of(enum ptx_type t, double x, bool satfinite)
{
    switch (t) {
    case PTX_F16:
        if (satfinite && isnan(x))
            return 0;
        return half_round(HALF_F16, x, ARITH_RN, satfinite ? HALF_SATFINITE : 0);
    case PTX_F32: {
        if (satfinite)
            x = isnan(x) ? 0.0 : fmax(-FLOAT_MAX, fmin(FLOAT_MAX, x));
        float y = (float)x;
        uint32_t u;
        memcpy(&u, &y, sizeof u);
        return y != y ? CANONICAL_NAN_F32 : u;
    }
    case PTX_F64:
        return f64_slot(x);
    default: { /* S32 */
        if (satfinite)
            x = fmax((double)INT32_MIN, fmin((double)INT32_MAX, x));
        return (uint32_t)(int64_t)x;
    }
    }
}

/* ---------------------------------------------------------- registers */

/* Element e of `lane` in a fragment held in the registers of vector o. */
static uint64_t fragment_element(const struct frame *f, const struct ptx_operand *o,
                                 const struct wmma_fragment *fr, unsigned lane, unsigned e)
{
    uint32_t row = o->vec[e / fr->per_register];
    if (row == PTX_NO_REG)
        return 0;
    uint64_t keep = fr->bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << fr->bits) - 1;
    return f->regs[row][lane] >> (e % fr->per_register * fr->bits) & keep;
}

/* Writes `lane`'s registers of vector o from its elements' bits. */
static void set_fragment(struct frame *f, const struct ptx_operand *o,
                         const struct wmma_fragment *fr, unsigned lane, const uint64_t *element)
{
    for (unsigned r = 0; r < fr->registers; r++) {
        uint64_t value = 0;
        for (unsigned i = 0; i < fr->per_register; i++)
            value |= element[r * fr->per_register + i] << (i * fr->bits);
        if (o->vec[r] != PTX_NO_REG)
            f->regs[o->vec[r]][lane] = value;
    }
}

/* The matrix a fragment holds, each element from the lowest lane holding it. */
static void gather(const struct frame *f, const struct ptx_operand *o,
                   const struct wmma_fragment *fr, enum ptx_type t, struct matrix *out)
{
    for (int lane = WMMA_LANES - 1; lane >= 0; lane--)
        for (unsigned e = 0; e < fr->elements; e++)
            out->v[wmma_element_index(fr, (unsigned)lane, e)] =
                element_value(t, fragment_element(f, o, fr, (unsigned)lane, e));
}

/* ---------------------------------------------------------------- mma */

/* D = A·B + C for one element. */
static double dot(const struct ptx_insn *insn, const double *a_row, const double *b, unsigned n,
                  unsigned k, double c)
{
    if (insn->type_a == PTX_F64) {
        enum arith_rounding r =
            insn->flags & PTX_F_HAS_RND ? (enum arith_rounding)insn->rnd : ARITH_RN;
        for (unsigned i = 0; i < k; i++)
            c = arith_fma_f64(a_row[i], b[i * n], c, r);
        return c;
    }
    bool bits = insn->type_a == PTX_B1, xor = insn->bool_op == PTX_BOOL_XOR;
    for (unsigned i = 0; i < k; i++)
        c += bits ? (double)(xor? a_row[i] != b[i * n] : a_row[i] != 0 && b[i * n] != 0)
                  : a_row[i] * b[i * n];
    return c;
}

static void multiply_accumulate(struct frame *f, const struct ptx_insn *insn, uint32_t mask)
{
    enum ptx_wmma_shape shape = (enum ptx_wmma_shape)insn->shape;
    struct wmma_fragment fa, fb, fc, fd;
    wmma_fragment_of(shape, PTX_WMMA_LOAD_A, (enum ptx_type)insn->type_a, &fa);
    wmma_fragment_of(shape, PTX_WMMA_LOAD_B, (enum ptx_type)insn->type_b, &fb);
    wmma_fragment_of(shape, PTX_WMMA_LOAD_C, (enum ptx_type)insn->type2, &fc);
    wmma_fragment_of(shape, PTX_WMMA_LOAD_C, (enum ptx_type)insn->type, &fd);
    struct matrix a, b, c; /* 24 KB of stack, the most a .b1 product needs */
    uint64_t d[WMMA_MAX_ACCUMULATOR];
    unsigned m = fa.rows, k = fa.cols, n = fb.cols;
    bool satfinite = insn->flags & PTX_F_SATFINITE;
    struct fp_scope scope = fp_scope_enter(ARITH_RN);
    gather(f, &insn->o[1], &fa, (enum ptx_type)insn->type_a, &a);
    gather(f, &insn->o[2], &fb, (enum ptx_type)insn->type_b, &b);
    gather(f, &insn->o[3], &fc, (enum ptx_type)insn->type2, &c);
    for (unsigned i = 0; i < m; i++)
        for (unsigned j = 0; j < n; j++)
            d[i * n + j] =
                element_bits_of((enum ptx_type)insn->type,
                                dot(insn, &a.v[i * k], &b.v[j], n, k, c.v[i * n + j]), satfinite);
    fp_scope_leave(scope);
    uint64_t element[WMMA_MAX_LANE_ELEMENTS];
    for (uint32_t lane = 0; lane < WMMA_LANES; lane++) {
        if (!(mask >> lane & 1))
            continue;
        for (unsigned e = 0; e < fd.elements; e++)
            element[e] = d[wmma_element_index(&fd, lane, e)];
        set_fragment(f, &insn->o[0], &fd, lane, element);
    }
}

/* ------------------------------------------------------------- memory */

/* Where a lane's load or store goes. */
struct tile {
    const struct wmma_fragment *fragment;
    bool column_major;
    uint64_t base;   /* the lane's address */
    uint64_t stride; /* elements between the starts of rows (columns when column-major) */
};

/* The lane's stride: the operand, or the matrix's width when there is none. */
static uint64_t stride_of(const struct frame *f, const struct ptx_insn *insn,
                          const struct wmma_fragment *fr, unsigned lane)
{
    bool column_major = insn->layout & PTX_WMMA_COL;
    if (insn->n_operands < 3)
        return column_major ? fr->rows : fr->cols;
    const struct ptx_operand *o = &insn->o[2];
    return (uint32_t)(o->kind == PTX_OPD_REG ? f->regs[o->reg][lane] : (uint64_t)o->imm);
}

/* The bit offset of matrix element `index` from the tile's address. */
static uint64_t bit_offset(const struct tile *t, unsigned index)
{
    unsigned row = index / t->fragment->cols, col = index % t->fragment->cols;
    uint64_t element =
        t->column_major ? (uint64_t)col * t->stride + row : (uint64_t)row * t->stride + col;
    return element * t->fragment->bits;
}

/* A fragment of 16-bit or wider elements at an address or with a stride that
 * are not multiples of 16 bytes: a fault, as a GPU's 128-bit accesses give. */
static bool aligned(struct warp *w, const struct ptx_insn *insn, unsigned lane,
                    const struct tile *t)
{
    uint64_t stride_bits = t->stride * t->fragment->bits;
    if (t->fragment->bits < ALIGNED_FROM_BITS ||
        (t->base % ACCESS_BYTES == 0 && stride_bits % (8 * ACCESS_BYTES) == 0))
        return true;
    char where[MEM_WHERE_MAX];
    mem_where(w, (enum ptx_space)insn->space, t->base, ACCESS_BYTES, where, sizeof where);
    launch_fault(w, (int)lane, insn, CUDA_ERROR_MISALIGNED_ADDRESS, t->base,
                 "wmma.%s of a %ux%u fragment at %s with a stride of %" PRIu64
                 " elements: the address and the stride in bytes must be multiples of %u (the "
                 "CUDA Programming Guide asks a 256-bit aligned pointer and ldm a multiple of "
                 "16 bytes)",
                 insn->cmp == PTX_WMMA_STORE_D ? "store" : "load", t->fragment->rows,
                 t->fragment->cols, where, t->stride, ACCESS_BYTES);
    return false;
}

/* The host pointer of the byte holding an element and the bit it starts at,
 * or NULL after a fault. */
static uint8_t *element_pointer(struct warp *w, struct frame *f, const struct ptx_insn *insn,
                                unsigned lane, const struct tile *t, unsigned index, bool write,
                                unsigned *bit)
{
    uint64_t offset = bit_offset(t, index);
    unsigned bytes = t->fragment->bits < 8 ? 1 : t->fragment->bits / 8;
    *bit = (unsigned)(offset % 8);
    return mem_resolve(w, f, insn, (int)lane, (enum ptx_space)insn->space, t->base + offset / 8,
                       bytes, write);
}

static bool load_lane(struct warp *w, struct frame *f, const struct ptx_insn *insn, unsigned lane,
                      const struct tile *t)
{
    const struct wmma_fragment *fr = t->fragment;
    uint64_t element[WMMA_MAX_LANE_ELEMENTS];
    uint64_t keep = fr->bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << fr->bits) - 1;
    for (unsigned e = 0; e < fr->elements; e++) {
        unsigned bit;
        const uint8_t *p =
            element_pointer(w, f, insn, lane, t, wmma_element_index(fr, lane, e), false, &bit);
        if (!p)
            return false;
        uint64_t value = 0;
        memcpy(&value, p, fr->bits < 8 ? 1 : fr->bits / 8); /* little-endian */
        element[e] = value >> bit & keep;
    }
    set_fragment(f, &insn->o[0], fr, lane, element);
    return true;
}

static bool store_lane(struct warp *w, struct frame *f, const struct ptx_insn *insn, unsigned lane,
                       const struct tile *t)
{
    const struct wmma_fragment *fr = t->fragment;
    for (unsigned e = 0; e < fr->elements; e++) {
        unsigned bit;
        uint8_t *p =
            element_pointer(w, f, insn, lane, t, wmma_element_index(fr, lane, e), true, &bit);
        if (!p)
            return false;
        uint64_t value = fragment_element(f, &insn->o[1], fr, lane, e);
        memcpy(p, &value, fr->bits / 8); /* accumulators: 16 bits or more */
    }
    return true;
}

/* The window a generic address falls in. */
static enum timing_window window_of(const struct ptx_insn *insn, uint64_t address)
{
    if (insn->space == PTX_SPACE_SHARED ||
        (insn->space == PTX_SPACE_GENERIC && address - SHARED_WINDOW < WINDOW_SIZE))
        return TIMING_IN_SHARED;
    if (insn->space == PTX_SPACE_GENERIC && address - LOCAL_WINDOW < WINDOW_SIZE)
        return TIMING_IN_LOCAL;
    return TIMING_IN_GLOBAL;
}

/* The tile's requests as a GPU makes them (the file's comment), from the
 * first active lane's address. */
static void account(struct warp *w, struct frame *f, const struct ptx_insn *insn,
                    const struct tile *t)
{
    struct timing_launch *timing = &w->block->launch->timing;
    if (!timing->enabled)
        return;
    const struct wmma_fragment *fr = t->fragment;
    enum timing_window window = window_of(insn, t->base);
    uint64_t base = window == TIMING_IN_SHARED && insn->space == PTX_SPACE_GENERIC
                        ? t->base - SHARED_WINDOW
                        : t->base;
    unsigned lane_bytes = fr->registers * fr->register_bits / 8;
    unsigned access = lane_bytes < ACCESS_BYTES ? lane_bytes : ACCESS_BYTES;
    unsigned lines = t->column_major ? fr->cols : fr->rows;
    unsigned line_bytes = (t->column_major ? fr->rows : fr->cols) * fr->bits / 8;
    unsigned pieces = line_bytes > access ? line_bytes / access : 1;
    uint64_t stride_bytes = t->stride * fr->bits / 8;
    enum timing_access kind = insn->cmp == PTX_WMMA_STORE_D ? TIMING_WRITE : TIMING_READ;
    for (unsigned request = 0; request < lane_bytes / access; request++) {
        uint64_t address[WARP_SIZE];
        for (unsigned lane = 0; lane < WARP_SIZE; lane++) {
            unsigned piece = (request * WARP_SIZE + lane) % (lines * pieces);
            address[lane] = base + piece / pieces * stride_bytes + piece % pieces * access;
        }
        if (window == TIMING_IN_SHARED)
            timing_shared_request(&w->timing, timing, insn, FULL_MASK, address, access, false);
        else if (window == TIMING_IN_GLOBAL)
            timing_global_request(&w->timing, timing, &w->block->log, insn, FULL_MASK, address,
                                  access, kind);
    }
    if (insn->space == PTX_SPACE_GENERIC && kind == TIMING_READ)
        timing_generic_load(&w->timing, timing->device, f->fn, (uint32_t)(insn - f->fn->code),
                            f->ready, window);
}

/* wmma.load.a/b/c and wmma.store.d for the lanes of mask. */
static bool move_fragment(struct warp *w, struct frame *f, const struct ptx_insn *insn,
                          uint32_t mask)
{
    bool store = insn->cmp == PTX_WMMA_STORE_D;
    enum ptx_wmma_op matrix = store ? PTX_WMMA_LOAD_C : (enum ptx_wmma_op)insn->cmp;
    struct wmma_fragment fr;
    wmma_fragment_of((enum ptx_wmma_shape)insn->shape, matrix, (enum ptx_type)insn->type, &fr);
    const struct ptx_operand *address = &insn->o[store ? 0 : 1];
    struct tile first = {0};
    for (uint32_t lane = 0; lane < WMMA_LANES; lane++) {
        if (!(mask >> lane & 1))
            continue;
        struct tile t = {&fr, insn->layout & PTX_WMMA_COL, mem_lane_address(f, address, lane),
                         stride_of(f, insn, &fr, lane)};
        if (!aligned(w, insn, lane, &t) ||
            !(store ? store_lane(w, f, insn, lane, &t) : load_lane(w, f, insn, lane, &t)))
            return false;
        if (first.fragment == NULL)
            first = t;
    }
    if (first.fragment != NULL)
        account(w, f, insn, &first);
    return true;
}

bool wmma_execute(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t mask)
{
    if (insn->cmp == PTX_WMMA_MMA) {
        multiply_accumulate(f, insn, mask);
        return true;
    }
    return move_fragment(w, f, insn, mask);
}
