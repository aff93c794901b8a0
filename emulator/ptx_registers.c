/*
 * Register dataflow: which registers a function may read before writing
 * them, and how many registers a thread needs at most.
 *
 * Uninitialised registers:
 * PTX registers start undefined; the virtual GPU gives them zeros so that a
 * kernel reading an uninitialised variable behaves the same on every run.
 * Zeroing every register of every warp costs more than many kernels' own
 * work, so the loader finds the few rows that need it: a forward dataflow
 * over the instructions of "definitely written" rows (the intersection over
 * predecessors; a guarded instruction writes nothing for certain), and the
 * rows some instruction reads without their being definitely written.
 * Predicates are few and always zeroed.
 *
 * Registers per thread: without ptxas's count (kgemu_set_registers) the
 * timing model needs an estimate for occupancy. NVRTC's PTX declares a fresh
 * virtual register for every value, several times what ptxas allocates; the
 * most values live at once (a backward liveness dataflow, 64-bit registers
 * counting twice) is close to ptxas's allocation.
 */
#include "ptx.h"

#include <stdlib.h>
#include <string.h>

#define WORD_BITS 64

struct bitsets {
    size_t words; /* per set */
    uint64_t *bits;
};

static uint64_t *set_of(struct bitsets *s, uint32_t i)
{
    return s->bits + (size_t)i * s->words;
}

static void set_bit(uint64_t *set, uint32_t row)
{
    set[row / WORD_BITS] |= 1ull << (row % WORD_BITS);
}

static bool has_bit(const uint64_t *set, uint32_t row)
{
    return set[row / WORD_BITS] >> (row % WORD_BITS) & 1;
}

bool ptx_writes_first_operand(const struct ptx_insn *insn)
{
    enum ptx_op op = (enum ptx_op)insn->op;
    if (op == PTX_OP_MBARRIER)
        return insn->cmp != PTX_MBAR_INIT && insn->cmp != PTX_MBAR_INVAL &&
               insn->cmp != PTX_MBAR_EXPECT_TX && insn->cmp != PTX_MBAR_COMPLETE_TX;
    if (op == PTX_OP_WMMA)
        return insn->cmp != PTX_WMMA_STORE_D;
    return insn->n_operands > 0 && op != PTX_OP_ST && op != PTX_OP_RED && op != PTX_OP_BRA &&
           op != PTX_OP_BAR && op != PTX_OP_BARRIER && op != PTX_OP_PREFETCH &&
           op != PTX_OP_PREFETCHU && op != PTX_OP_NANOSLEEP && op != PTX_OP_PMEVENT &&
           op != PTX_OP_CALL && op != PTX_OP_CP && op != PTX_OP_SUST && op != PTX_OP_SURED;
}

void ptx_each_row(const struct ptx_operand *o, bool with_address_base,
                  void (*visit)(void *ctx, uint32_t row), void *ctx)
{
    if (o->kind == PTX_OPD_REG)
        visit(ctx, o->reg);
    else if (o->kind == PTX_OPD_VEC)
        for (unsigned i = 0; i < o->count; i++)
            if (o->vec[i] != PTX_NO_REG)
                visit(ctx, o->vec[i]);
    if (with_address_base && o->kind == PTX_OPD_ADDR && o->reg != PTX_NO_REG)
        visit(ctx, o->reg);
}

struct visit_ctx {
    uint64_t *set;
    const uint64_t *written;
    uint64_t *needed;
};

static void mark_written(void *ctx, uint32_t row)
{
    set_bit(((struct visit_ctx *)ctx)->set, row);
}

static void check_read(void *ctx, uint32_t row)
{
    struct visit_ctx *c = ctx;
    if (!has_bit(c->written, row))
        set_bit(c->needed, row);
}

/* out = in ∪ (rows the instruction writes for certain). */
static void transfer(const struct ptx_insn *insn, const uint64_t *in, uint64_t *out, size_t words)
{
    memcpy(out, in, words * sizeof *out);
    if (insn->guard != PTX_NO_REG || !ptx_writes_first_operand(insn))
        return;
    struct visit_ctx c = {out, NULL, NULL};
    ptx_each_row(&insn->o[0], false, mark_written, &c);
}

static int successors_of(const struct ptx_function *f, uint32_t i, uint32_t out[2])
{
    const struct ptx_insn *insn = &f->code[i];
    bool guarded = insn->guard != PTX_NO_REG;
    int k = 0;
    bool ends = insn->op == PTX_OP_RET || insn->op == PTX_OP_EXIT || insn->op == PTX_OP_TRAP ||
                insn->op == PTX_OP_BRKPT;
    if (insn->op == PTX_OP_BRA && insn->target < f->n_code)
        out[k++] = insn->target;
    if ((insn->op != PTX_OP_BRA && !ends) || guarded)
        if (i + 1 < f->n_code)
            out[k++] = i + 1;
    return k;
}

/* Iterates IN[s] &= OUT[i] to a fixed point; IN starts full except at entry. */
static void solve(const struct ptx_function *f, struct bitsets *in, uint64_t *scratch)
{
    size_t words = in->words;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0; i < f->n_code; i++) {
            transfer(&f->code[i], set_of(in, i), scratch, words);
            uint32_t succ[2];
            for (int k = successors_of(f, i, succ) - 1; k >= 0; k--) {
                uint64_t *target = set_of(in, succ[k]);
                for (size_t w = 0; w < words; w++) {
                    uint64_t v = target[w] & scratch[w];
                    changed |= v != target[w];
                    target[w] = v;
                }
            }
        }
    }
}

int ptx_find_uninitialized(struct ptx_function *f)
{
    size_t words = (f->n_regs + WORD_BITS - 1) / WORD_BITS;
    struct bitsets in = {
        words, calloc((size_t)(f->n_code ? f->n_code : 1) * (words ? words : 1), sizeof(uint64_t))};
    uint64_t *scratch = calloc(words ? words : 1, sizeof(uint64_t));
    uint64_t *needed = calloc(words ? words : 1, sizeof(uint64_t));
    if (!in.bits || !scratch || !needed) {
        free(in.bits), free(scratch), free(needed);
        return -1;
    }
    memset(in.bits, 0xFF, (size_t)f->n_code * words * sizeof(uint64_t));
    if (f->n_code > 0) { /* at entry only the fixed special registers hold values */
        memset(set_of(&in, 0), 0, words * sizeof(uint64_t));
        for (uint32_t r = 0; r < PTX_SREG_FIXED && r < f->n_regs; r++)
            set_bit(set_of(&in, 0), r);
    }
    solve(f, &in, scratch);
    for (uint32_t i = 0; i < f->n_code; i++) {
        struct visit_ctx c = {NULL, set_of(&in, i), needed};
        const struct ptx_insn *insn = &f->code[i];
        int first_source = ptx_writes_first_operand(insn) ? 1 : 0;
        for (int k = first_source; k < insn->n_operands; k++)
            ptx_each_row(&insn->o[k], true, check_read, &c);
    }
    f->n_zero_rows = 0;
    f->zero_rows = malloc((f->n_regs ? f->n_regs : 1) * sizeof *f->zero_rows);
    for (uint32_t r = PTX_SREG_FIXED; f->zero_rows && r < f->n_regs; r++)
        if (has_bit(needed, r))
            f->zero_rows[f->n_zero_rows++] = r;
    free(in.bits), free(scratch), free(needed);
    return f->zero_rows ? 0 : -1;
}

/* ------------------------------------------------------------ liveness */

#define REGISTERS_RESERVED 6 /* ptxas keeps a few for addresses and the stack */
#define REGISTERS_MIN      8
#define REGISTERS_MAX      255

struct live_ctx {
    uint64_t *set;
};

static void mark_live(void *ctx, uint32_t row)
{
    set_bit(((struct live_ctx *)ctx)->set, row);
}

static void clear_row(void *ctx, uint32_t row)
{
    uint64_t *set = ((struct live_ctx *)ctx)->set;
    set[row / WORD_BITS] &= ~(1ull << (row % WORD_BITS));
}

/* in = uses ∪ (out − definite defs). */
static void live_transfer(const struct ptx_insn *insn, const uint64_t *out, uint64_t *in,
                          size_t words)
{
    memcpy(in, out, words * sizeof *in);
    struct live_ctx c = {in};
    bool writes = ptx_writes_first_operand(insn);
    if (writes && insn->guard == PTX_NO_REG)
        ptx_each_row(&insn->o[0], false, clear_row, &c);
    for (int k = writes ? 1 : 0; k < insn->n_operands; k++)
        ptx_each_row(&insn->o[k], true, mark_live, &c);
}

static unsigned units_live(const struct ptx_function *f, const uint64_t *set)
{
    unsigned units = 0;
    for (uint32_t r = PTX_SREG_FIXED; r < f->n_regs; r++)
        if (has_bit(set, r))
            units += f->row_units ? f->row_units[r] : 1;
    return units;
}

int ptx_estimate_registers(struct ptx_function *f)
{
    size_t words = (f->n_regs + WORD_BITS - 1) / WORD_BITS;
    if (words == 0)
        words = 1;
    struct bitsets live_in = {
        words, calloc((size_t)(f->n_code ? f->n_code : 1) * words, sizeof(uint64_t))};
    uint64_t *out = calloc(words, sizeof(uint64_t));
    uint64_t *in = calloc(words, sizeof(uint64_t));
    if (!live_in.bits || !out || !in) {
        free(live_in.bits), free(out), free(in);
        return -1;
    }
    unsigned most = 0;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = f->n_code; i-- > 0;) {
            memset(out, 0, words * sizeof *out);
            uint32_t succ[2];
            for (int k = successors_of(f, i, succ) - 1; k >= 0; k--)
                for (size_t w = 0; w < words; w++)
                    out[w] |= set_of(&live_in, succ[k])[w];
            live_transfer(&f->code[i], out, in, words);
            if (memcmp(in, set_of(&live_in, i), words * sizeof *in) != 0) {
                memcpy(set_of(&live_in, i), in, words * sizeof *in);
                changed = true;
            }
        }
    }
    for (uint32_t i = 0; i < f->n_code; i++) {
        unsigned u = units_live(f, set_of(&live_in, i));
        most = u > most ? u : most;
    }
    unsigned estimate = most + REGISTERS_RESERVED;
    f->reg_estimate = (int)(estimate < REGISTERS_MIN   ? REGISTERS_MIN
                            : estimate > REGISTERS_MAX ? REGISTERS_MAX
                                                       : estimate);
    free(live_in.bits), free(out), free(in);
    return 0;
}
