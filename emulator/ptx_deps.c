/*
 * Each instruction's dependencies, found once at load time for the timing
 * model's scoreboard (timing.h, timing_issue): the registers and predicates it
 * reads (its sources, an address's base register, its guard) and the ones it
 * writes (its destination). At run time the scoreboard keeps, per warp, when
 * each row's value is ready; an instruction issues once its sources are.
 *
 * The scoreboard schedules a basic block's instructions by their
 * dependencies, as ptxas does, and keeps the blocks in order: instructions
 * that start one (a branch's target, the one after a branch) are flagged
 * PTX_F_BLOCK_START, and those that wait for every result in flight (bar,
 * barrier, call, ret) PTX_F_DRAIN. A list has the rows read before the rows
 * written, so one pass over it knows when the instruction issues before it
 * sets its results' times.
 *
 * Rows index one array: registers 0..n_regs-1, then predicates. A list per
 * instruction, flat: deps[dep_start[i] .. dep_start[i + 1]). An operand that
 * is a destination and a second destination (setp's p|q, shfl's d|p) counts
 * the second as read too, which only delays it, never hides a dependency.
 */
#include "ptx.h"

#include <stdlib.h>

struct dep_list {
    uint32_t *rows;
    size_t count, capacity;
    bool failed;
};

static void add(struct dep_list *l, uint32_t row)
{
    if (l->count == l->capacity) {
        size_t capacity = l->capacity ? l->capacity * 2 : 256;
        uint32_t *grown = realloc(l->rows, capacity * sizeof *grown);
        if (!grown) {
            l->failed = true;
            return;
        }
        l->rows = grown;
        l->capacity = capacity;
    }
    l->rows[l->count++] = row;
}

static void add_read(void *ctx, uint32_t row)
{
    add(ctx, row);
}

static void add_write(void *ctx, uint32_t row)
{
    add(ctx, row | PTX_DEP_WRITE);
}

/* A predicate operand: its row after the registers. */
static void add_predicate(struct dep_list *l, const struct ptx_function *f,
                          const struct ptx_operand *o, bool write)
{
    if (o->kind == PTX_OPD_PRED && o->reg != PTX_NO_REG)
        add(l, (f->n_regs + o->reg) | (write ? PTX_DEP_WRITE : 0));
}

static void add_instruction(struct dep_list *l, const struct ptx_function *f,
                            const struct ptx_insn *insn)
{
    bool writes = ptx_writes_first_operand(insn);
    if (insn->guard != PTX_NO_REG)
        add(l, f->n_regs + insn->guard);
    for (int k = writes ? 1 : 0; k < insn->n_operands; k++) {
        ptx_each_row(&insn->o[k], true, add_read, l);
        add_predicate(l, f, &insn->o[k], false);
    }
    if (writes) {
        ptx_each_row(&insn->o[0], false, add_write, l);
        add_predicate(l, f, &insn->o[0], true);
    }
}

static void flag_block_starts(struct ptx_function *f)
{
    for (uint32_t i = 0; i < f->n_code; i++) {
        struct ptx_insn *insn = &f->code[i];
        if (insn->op == PTX_OP_BAR || insn->op == PTX_OP_BARRIER || insn->op == PTX_OP_CALL ||
            insn->op == PTX_OP_RET)
            insn->flags |= PTX_F_DRAIN;
        if (insn->op != PTX_OP_BRA)
            continue;
        if (insn->target < f->n_code)
            f->code[insn->target].flags |= PTX_F_BLOCK_START;
        if (i + 1 < f->n_code)
            f->code[i + 1].flags |= PTX_F_BLOCK_START;
    }
}

int ptx_find_dependencies(struct ptx_function *f)
{
    flag_block_starts(f);
    struct dep_list l = {NULL, 0, 0, false};
    f->dep_start = malloc(((size_t)f->n_code + 1) * sizeof *f->dep_start);
    if (!f->dep_start)
        return -1;
    for (uint32_t i = 0; i < f->n_code; i++) {
        f->dep_start[i] = (uint32_t)l.count;
        add_instruction(&l, f, &f->code[i]);
    }
    f->dep_start[f->n_code] = (uint32_t)l.count;
    f->deps = l.rows ? l.rows : malloc(sizeof *f->deps);
    size_t rows = (size_t)f->n_regs + f->n_preds;
    f->rows_read = calloc(rows / 64 + 1, sizeof *f->rows_read);
    if (l.failed || !f->deps || !f->rows_read)
        return -1;
    for (size_t i = 0; i < l.count; i++)
        if (!(l.rows[i] & PTX_DEP_WRITE) && l.rows[i] < rows)
            f->rows_read[l.rows[i] / 64] |= 1ull << l.rows[i] % 64;
    return 0;
}
