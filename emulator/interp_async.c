/*
 * Asynchronous copies (cp.async) and the block's mbarrier objects.
 *
 * The virtual GPU makes a cp.async copy at once, as an ld.global and an
 * st.shared would (checked, and timed as the global read and the shared
 * write it is); commit_group, wait_group and wait_all then have nothing to
 * wait for. A program that reads the copy's destination before waiting is
 * racy on a GPU and simply sees the data here.
 *
 * An mbarrier is 8 bytes of shared (or generic) memory that this file
 * encodes itself (the layout is opaque to programs): the arrivals still
 * pending in the current phase (bits 0..20), the count each phase expects
 * (bits 21..41) and the current phase's parity (bit 63). An arrival lowers
 * the pending count; the last one completes the phase: the parity flips and
 * the pending count starts again from the expected count (minus the threads
 * that arrive_drop left). The state an arrive returns is the object as it
 * was before it arrived, so a test_wait or try_wait of that state is true
 * once the parity has moved on. cp.async.mbarrier.arrive arrives at once
 * (the copies are done); without .noinc it first raises the pending count,
 * so its arrival is one the phase did not count.
 *
 * A warp whose wait finds its phase incomplete yields (WARP_YIELDED): it
 * stops where it is, the other warps of the block run, and it resumes on the
 * next turn, as a GPU's scheduler would switch to another warp. nanosleep
 * yields too, for spin loops with a back-off.
 */
#include "exec.h"

#include <string.h>

#define PENDING_BITS  21
#define PENDING_MASK  ((1ull << PENDING_BITS) - 1)
#define EXPECTED_MASK (PENDING_MASK << PENDING_BITS)
#define PHASE_BIT     (1ull << 63)
#define MAX_COUNT     PENDING_MASK /* the ISA's limit: 2^20 - 1, within 21 bits */

static uint64_t pending_of(uint64_t bar)
{
    return bar & PENDING_MASK;
}

static uint64_t expected_of(uint64_t bar)
{
    return (bar & EXPECTED_MASK) >> PENDING_BITS;
}

static uint64_t barrier_word(uint64_t phase, uint64_t expected, uint64_t pending)
{
    return phase | expected << PENDING_BITS | pending;
}

/* ------------------------------------------------------------- cp.async */

/* cp.async.ca/cg.shared.global [dst], [src], size{, src-size}: `size`
 * bytes, of which the first src-size come from global memory and the rest
 * are zeros. */
static bool copy_now(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t m)
{
    const struct ptx_operand *dst = &insn->o[0], *src = &insn->o[1];
    for (uint32_t l = 0; l < WARP_SIZE; l++) {
        if (!(m >> l & 1))
            continue;
        uint64_t size = mem_operand_lane(f, &insn->o[2], l);
        uint64_t from = insn->n_operands > 3 ? mem_operand_lane(f, &insn->o[3], l) : size;
        if ((size != 4 && size != 8 && size != 16) || from > size) {
            launch_fault(w, (int)l, insn, CUDA_ERROR_ILLEGAL_INSTRUCTION, 0,
                         "cp.async copies 4, 8 or 16 bytes (of which at most that many are "
                         "read), not %llu of %llu",
                         (unsigned long long)from, (unsigned long long)size);
            return false;
        }
        uint8_t *to = mem_resolve(w, f, insn, (int)l, PTX_SPACE_SHARED, mem_lane_address(f, dst, l),
                                  (unsigned)size, true);
        const uint8_t *in = to && from
                                ? mem_resolve(w, f, insn, (int)l, PTX_SPACE_GLOBAL,
                                              mem_lane_address(f, src, l), (unsigned)from, false)
                                : to;
        if (!to || !in)
            return false;
        memmove(to, in, from);
        memset(to + from, 0, size - from);
    }
    uint64_t size = mem_operand_lane(f, &insn->o[2], (uint32_t)__builtin_ctz(m));
    mem_account(w, f, insn, PTX_SPACE_GLOBAL, src, m, (unsigned)size, TIMING_READ);
    mem_account(w, f, insn, PTX_SPACE_SHARED, dst, m, (unsigned)size, TIMING_WRITE);
    return true;
}

/* ------------------------------------------------------------- mbarrier */

/* The lane's mbarrier object, or NULL after a fault. */
static uint64_t *barrier_of(struct warp *w, struct frame *f, const struct ptx_insn *insn,
                            const struct ptx_operand *o, uint32_t l)
{
    enum ptx_space space = insn->space == PTX_SPACE_SHARED ? PTX_SPACE_SHARED : PTX_SPACE_GENERIC;
    return mem_resolve(w, f, insn, (int)l, space, mem_lane_address(f, o, l), 8, true);
}

/* `count` arrivals (and as many threads leaving the next phases when
 * `drop`); returns the object as it was before. */
static uint64_t arrive(uint64_t *bar, uint64_t count, bool drop)
{
    uint64_t before = *bar, phase = before & PHASE_BIT;
    uint64_t expected = expected_of(before), pending = pending_of(before);
    if (drop)
        expected = expected > count ? expected - count : 0;
    pending = pending > count ? pending - count : 0;
    if (pending == 0) /* the phase completes */
        *bar = barrier_word(phase ^ PHASE_BIT, expected, expected);
    else
        *bar = barrier_word(phase, expected, pending);
    return before;
}

static bool bad_count(struct warp *w, const struct ptx_insn *insn, uint32_t l, uint64_t count)
{
    if (count >= 1 && count <= MAX_COUNT)
        return false;
    launch_fault(w, (int)l, insn, CUDA_ERROR_ILLEGAL_INSTRUCTION, 0,
                 "an mbarrier count must be 1 to %llu, not %llu", (unsigned long long)MAX_COUNT,
                 (unsigned long long)count);
    return true;
}

/* init, arrive, arrive_drop, inval, and cp.async.mbarrier.arrive, lane by
 * lane (each thread arrives once). */
static bool update(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t m)
{
    bool from_copy = insn->op == PTX_OP_CP;
    enum ptx_mbarrier_mode mode = from_copy ? PTX_MBAR_ARRIVE : (enum ptx_mbarrier_mode)insn->cmp;
    const struct ptx_operand *addr =
        &insn->o[mode == PTX_MBAR_INIT || mode == PTX_MBAR_INVAL || from_copy ? 0 : 1];
    for (uint32_t l = 0; l < WARP_SIZE; l++) {
        if (!(m >> l & 1))
            continue;
        uint64_t *bar = barrier_of(w, f, insn, addr, l);
        if (!bar)
            return false;
        uint64_t count = insn->n_operands > 2 && !from_copy ? mem_operand_lane(f, &insn->o[2], l)
                         : mode == PTX_MBAR_INIT            ? mem_operand_lane(f, &insn->o[1], l)
                                                            : 1;
        if (mode != PTX_MBAR_INVAL && bad_count(w, insn, l, count))
            return false;
        if (mode == PTX_MBAR_INIT) {
            *bar = barrier_word(0, count, count);
        } else if (mode == PTX_MBAR_INVAL) {
            *bar = 0;
        } else if (from_copy && !(insn->flags & PTX_F_NOINC)) {
            continue; /* one more pending, then its arrival: no change */
        } else {
            uint64_t before = arrive(bar, count, mode == PTX_MBAR_ARRIVE_DROP);
            if (!from_copy && insn->o[0].kind == PTX_OPD_REG)
                f->regs[insn->o[0].reg][l] = before;
        }
    }
    return true;
}

/* test_wait and try_wait: p = the phase of the state (or of the parity
 * given) has completed. Returns the lanes whose phase has not. */
static bool wait_check(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t m,
                       uint32_t *incomplete)
{
    uint32_t done = 0;
    for (uint32_t l = 0; l < WARP_SIZE; l++) {
        if (!(m >> l & 1))
            continue;
        uint64_t *bar = barrier_of(w, f, insn, &insn->o[1], l);
        if (!bar)
            return false;
        uint64_t state = mem_operand_lane(f, &insn->o[2], l);
        uint64_t waited = insn->flags & PTX_F_PARITY ? (state & 1) << 63 : state & PHASE_BIT;
        if ((*bar & PHASE_BIT) != waited)
            done |= 1u << l;
    }
    if (insn->o[0].kind == PTX_OPD_PRED)
        f->preds[insn->o[0].reg] = (f->preds[insn->o[0].reg] & ~m) | done;
    *incomplete = m & ~done;
    return true;
}

enum warp_state async_execute(struct warp *w, struct frame *f, const struct ptx_insn *insn,
                              uint32_t m)
{
    if (insn->op == PTX_OP_NANOSLEEP)
        return WARP_YIELDED;
    if (insn->op == PTX_OP_CP) {
        if (insn->cmp == PTX_CP_COPY)
            return copy_now(w, f, insn, m) ? WARP_RUNNING : WARP_FAULTED;
        if (insn->cmp == PTX_CP_ARRIVE)
            return update(w, f, insn, m) ? WARP_RUNNING : WARP_FAULTED;
        return WARP_RUNNING; /* commit_group, wait_group, wait_all: all done */
    }
    switch ((enum ptx_mbarrier_mode)insn->cmp) {
    case PTX_MBAR_TEST_WAIT:
    case PTX_MBAR_TRY_WAIT: {
        uint32_t incomplete;
        if (!wait_check(w, f, insn, m, &incomplete))
            return WARP_FAULTED;
        return incomplete ? WARP_YIELDED : WARP_RUNNING;
    }
    case PTX_MBAR_PENDING:
        for (uint32_t l = 0; l < WARP_SIZE; l++)
            if (m >> l & 1 && insn->o[0].kind == PTX_OPD_REG)
                f->regs[insn->o[0].reg][l] = pending_of(mem_operand_lane(f, &insn->o[1], l));
        return WARP_RUNNING;
    default:
        return update(w, f, insn, m) ? WARP_RUNNING : WARP_FAULTED;
    }
}
