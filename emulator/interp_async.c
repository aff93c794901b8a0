/*
 * Asynchronous copies (cp.async) and the block's mbarrier objects.
 *
 * The virtual GPU makes a cp.async copy at once, as an ld.global and an
 * st.shared would (checked, and timed as the global read and the shared
 * write it is); commit_group, wait_group and wait_all then have nothing to
 * wait for. A program that reads the copy's destination before waiting is
 * racy on a GPU and simply sees the data here.
 *
 * cp.async.bulk (sm_90's bulk copies, what cuda::memcpy_async emits for a
 * size that is a multiple of 16) copies at once too, each thread its own
 * block of bytes, timed as the 16-byte global and shared accesses of 32
 * lanes that move the same bytes; the global-to-shared form then completes
 * its bytes on the mbarrier (complete_tx), the shared-to-global form's
 * bulk group has nothing to wait for.
 *
 * An mbarrier is 8 bytes of shared (or generic) memory that this file
 * encodes itself (the layout is opaque to programs): the arrivals still
 * pending in the current phase (bits 0..20), the count each phase expects
 * (bits 21..41), the transaction count (bits 42..62, signed: bytes the
 * phase still waits for, which expect_tx raises and complete_tx lowers; a
 * copy may complete before its bytes are expected) and the current phase's
 * parity (bit 63). An arrival lowers the pending count; the phase completes
 * when no arrival is pending and the transaction count is 0, at the last
 * arrival or transaction: the parity flips, the pending count starts again
 * from the expected count (minus the threads that arrive_drop left), the
 * transaction count from 0. The state an arrive returns is the object as it
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
#define TX_SHIFT      (2 * PENDING_BITS)
#define TX_SIGN       (1ll << (PENDING_BITS - 1))
#define PHASE_BIT     (1ull << 63)
#define MAX_COUNT     PENDING_MASK  /* the ISA's limit: 2^20 - 1, within 21 bits */
#define MAX_TX        (TX_SIGN - 1) /* the ISA's limit of a transaction count: 2^20 - 1 */
#define BULK_ALIGN    16u           /* cp.async.bulk's sizes and addresses */

static uint64_t pending_of(uint64_t bar)
{
    return bar & PENDING_MASK;
}

static uint64_t expected_of(uint64_t bar)
{
    return (bar & EXPECTED_MASK) >> PENDING_BITS;
}

/* The transaction count: 21 bits, two's complement. */
static int64_t tx_of(uint64_t bar)
{
    int64_t v = (int64_t)(bar >> TX_SHIFT & PENDING_MASK);
    return (v ^ TX_SIGN) - TX_SIGN;
}

/* The object with these fields; when none is pending and no transaction
 * either, the phase completes. */
static uint64_t barrier_word(uint64_t phase, uint64_t expected, uint64_t pending, int64_t tx)
{
    if (pending == 0 && tx == 0)
        return (phase ^ PHASE_BIT) | expected << PENDING_BITS | expected;
    return phase | ((uint64_t)tx & PENDING_MASK) << TX_SHIFT | expected << PENDING_BITS | pending;
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
    uint64_t before = *bar;
    uint64_t expected = expected_of(before), pending = pending_of(before);
    if (drop)
        expected = expected > count ? expected - count : 0;
    pending = pending > count ? pending - count : 0;
    *bar = barrier_word(before & PHASE_BIT, expected, pending, tx_of(before));
    return before;
}

/* Raises the transaction count by `bytes` (expect_tx) or lowers it
 * (complete_tx, a negative `bytes`); false after a fault when it leaves
 * the ISA's range. */
static bool transact(struct warp *w, const struct ptx_insn *insn, uint32_t l, uint64_t *bar,
                     int64_t bytes)
{
    int64_t tx = tx_of(*bar) + bytes;
    if (tx < -MAX_TX || tx > MAX_TX) {
        launch_fault(w, (int)l, insn, CUDA_ERROR_ILLEGAL_INSTRUCTION, 0,
                     "an mbarrier's transaction count must stay within -%lld to %lld bytes, "
                     "not reach %lld",
                     (long long)MAX_TX, (long long)MAX_TX, (long long)tx);
        return false;
    }
    *bar = barrier_word(*bar & PHASE_BIT, expected_of(*bar), pending_of(*bar), tx);
    return true;
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

/* Whether the [mbarrier] is the first operand (else the second, after
 * arrive's state). */
static bool barrier_first(bool from_copy, enum ptx_mbarrier_mode mode)
{
    return from_copy || mode == PTX_MBAR_INIT || mode == PTX_MBAR_INVAL ||
           mode == PTX_MBAR_EXPECT_TX || mode == PTX_MBAR_COMPLETE_TX;
}

/* expect_tx, complete_tx and arrive.expect_tx's first part: the lane's
 * bytes added to or taken from the transaction count. */
static bool lane_transaction(struct warp *w, struct frame *f, const struct ptx_insn *insn,
                             enum ptx_mbarrier_mode mode, uint32_t l, uint64_t *bar)
{
    int64_t bytes = (int64_t)(uint32_t)mem_operand_lane(
        f, &insn->o[mode == PTX_MBAR_ARRIVE_EXPECT_TX ? 2 : 1], l);
    return transact(w, insn, l, bar, mode == PTX_MBAR_COMPLETE_TX ? -bytes : bytes);
}

/* init, arrive, arrive_drop, inval, the transaction counts, and
 * cp.async.mbarrier.arrive, lane by lane (each thread arrives once). */
static bool update(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t m)
{
    bool from_copy = insn->op == PTX_OP_CP;
    enum ptx_mbarrier_mode mode = from_copy ? PTX_MBAR_ARRIVE : (enum ptx_mbarrier_mode)insn->cmp;
    bool transaction = mode == PTX_MBAR_EXPECT_TX || mode == PTX_MBAR_COMPLETE_TX ||
                       mode == PTX_MBAR_ARRIVE_EXPECT_TX;
    bool counted = insn->n_operands > 2 && !from_copy && !transaction; /* arrive's count */
    const struct ptx_operand *addr = &insn->o[barrier_first(from_copy, mode) ? 0 : 1];
    for (uint32_t l = 0; l < WARP_SIZE; l++) {
        if (!(m >> l & 1))
            continue;
        uint64_t *bar = barrier_of(w, f, insn, addr, l);
        if (!bar || (transaction && !lane_transaction(w, f, insn, mode, l, bar)))
            return false;
        if (mode == PTX_MBAR_EXPECT_TX || mode == PTX_MBAR_COMPLETE_TX)
            continue;
        uint64_t count = counted                 ? mem_operand_lane(f, &insn->o[2], l)
                         : mode == PTX_MBAR_INIT ? mem_operand_lane(f, &insn->o[1], l)
                                                 : 1;
        if (mode != PTX_MBAR_INVAL && bad_count(w, insn, l, count))
            return false;
        if (mode == PTX_MBAR_INIT) {
            *bar = barrier_word(0, count, count, 0);
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

/* ------------------------------------------------------- cp.async.bulk */

/* The 16-byte pieces of bulk copies, gathered 32 at a time into the
 * requests that a warp's 16-byte accesses of the same bytes make. */
struct bulk_traffic {
    uint64_t global[WARP_SIZE]; /* addresses */
    uint64_t shared[WARP_SIZE]; /* offsets in the block's shared memory */
    uint32_t n;
    bool to_shared;
};

static void traffic_flush(struct warp *w, const struct ptx_insn *insn, struct bulk_traffic *t)
{
    if (t->n == 0)
        return;
    uint32_t m = t->n == WARP_SIZE ? ~0u : (1u << t->n) - 1;
    mem_account_global(w, insn, m, t->global, BULK_ALIGN,
                       t->to_shared ? TIMING_READ : TIMING_WRITE);
    mem_account_shared(w, insn, m, t->shared, BULK_ALIGN,
                       t->to_shared ? TIMING_WRITE : TIMING_READ);
    t->n = 0;
}

static void traffic_add(struct warp *w, const struct ptx_insn *insn, struct bulk_traffic *t,
                        uint64_t global, uint64_t shared, uint64_t bytes)
{
    for (uint64_t k = 0; k < bytes; k += BULK_ALIGN) {
        t->global[t->n] = global + k;
        t->shared[t->n] = shared + k;
        if (++t->n == WARP_SIZE)
            traffic_flush(w, insn, t);
    }
}

/* cp.async.bulk [dst], [src], size{, [mbarrier]} of lane l: its `size`
 * bytes (a multiple of 16, at addresses that are) copied now, between
 * global and shared memory; to shared memory, they complete their bytes on
 * the lane's mbarrier. */
static bool bulk_lane(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t l,
                      struct bulk_traffic *t)
{
    enum ptx_space from = t->to_shared ? PTX_SPACE_GLOBAL : PTX_SPACE_SHARED;
    uint64_t size = (uint32_t)mem_operand_lane(f, &insn->o[2], l);
    uint64_t dst = mem_lane_address(f, &insn->o[0], l), src = mem_lane_address(f, &insn->o[1], l);
    if (size % BULK_ALIGN != 0 || size > MAX_TX) {
        launch_fault(w, (int)l, insn, CUDA_ERROR_ILLEGAL_INSTRUCTION, 0,
                     "cp.async.bulk copies a multiple of %u bytes, at most %lld, not %llu",
                     BULK_ALIGN, (long long)MAX_TX, (unsigned long long)size);
        return false;
    }
    if (size != 0) {
        uint8_t *to = mem_resolve(w, f, insn, (int)l, insn->space, dst, (unsigned)size, true);
        const uint8_t *in =
            to ? mem_resolve(w, f, insn, (int)l, from, src, (unsigned)size, false) : NULL;
        if (!in)
            return false;
        memmove(to, in, size);
        traffic_add(w, insn, t, t->to_shared ? src : dst, t->to_shared ? dst : src, size);
    }
    if (!t->to_shared)
        return true;
    uint64_t *bar = barrier_of(w, f, insn, &insn->o[3], l);
    return bar && transact(w, insn, l, bar, -(int64_t)size);
}

static bool bulk_copy(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t m)
{
    struct bulk_traffic t = {.n = 0, .to_shared = insn->space == PTX_SPACE_SHARED};
    for (uint32_t l = 0; l < WARP_SIZE; l++)
        if ((m >> l & 1) && !bulk_lane(w, f, insn, l, &t))
            return false;
    traffic_flush(w, insn, &t);
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
        if (insn->cmp == PTX_CP_BULK)
            return bulk_copy(w, f, insn, m) ? WARP_RUNNING : WARP_FAULTED;
        return WARP_RUNNING; /* commit_group, wait_group{.read}, wait_all: all done */
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
