/*
 * Internal to emulator/: the timing model, the deterministic time a launch
 * takes on the modeled GPU.
 *
 * While a block runs, its warps count what the hardware would spend: warp
 * instructions by issue class, the latency chain of each warp, global
 * requests with their distinct 32-byte sectors, shared-memory wavefronts,
 * atomics. Global accesses also go, in order, into the block's log. When a
 * block ends, its counts are added to its SM (block i runs on SM i mod the
 * SM count) and its log is handed to a sequencer that replays the logs in
 * block-index order through an L2 model, so DRAM traffic and same-address
 * atomics are counted in one fixed logical order whatever the host threads
 * did. The launch's time is the largest of the per-SM and device-wide
 * bounds (timing.c says which), plus a launch overhead.
 */
#ifndef KGRADE_EMULATOR_TIMING_H
#define KGRADE_EMULATOR_TIMING_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "emu.h"
#include "ptx.h"

/* What one warp counts while it runs. */
struct timing_warp {
    uint64_t issued[PTX_CLASS_COUNT];
    uint64_t path; /* clocks of its dependent chain: when its last result is ready */
    /* The scoreboard (timing_issue). Clocks run on from one warp to the next on
     * the same host thread, so a frame's ready times from an earlier warp are
     * always in the past; `start` is this warp's first. */
    uint64_t start;
    uint64_t floor;       /* when the current basic block may begin to issue */
    uint64_t last;        /* when its latest instruction issued */
    uint64_t count;       /* the instructions it issued */
    uint64_t merged;      /* bit g % 64: merged ld.shared group g runs as one access */
    uint64_t issued_at;   /* when its latest instruction issued (for timing_generic_load) */
    uint64_t path_before; /* its path before that instruction */
    uint64_t global_requests;
    uint64_t global_sectors;
    uint64_t l1_hit_sectors; /* of global_sectors, those of loads the block's L1 held */
    bool l1_hit;             /* its latest request was a load whose sectors all hit in the L1 */
    uint64_t lsu_clocks;
    uint64_t shared_requests;
    uint64_t shared_wavefronts;
    uint64_t global_atomics;
    uint32_t worst_ways, worst_ways_line;       /* the worst bank conflict and its line */
    uint32_t worst_sectors, worst_sectors_line; /* the most scattered request and its line */
};

enum timing_access { TIMING_READ, TIMING_WRITE, TIMING_ATOMIC };

/* One 128-byte line touched by a request: which of its 4 sectors (an
 * atomic's: the sectors of the addresses it updates). */
struct timing_access_entry {
    uint64_t address; /* the line's address */
    uint32_t set;     /* its set in the L2 model, found when it is logged */
    uint8_t sectors;  /* bit s: sector s of the line */
    uint8_t kind;     /* enum timing_access */
};

struct timing_atomics;
struct timing_l1;

/* A block's ordered log of global accesses, and its atomics' lanes by
 * address: the launch's counts are sums, whose order does not matter, so
 * they are added up within the block and merged when the block hands its
 * log in (a histogram's request to ten bins is one entry, not ten). Past
 * ATOMIC_EXACT_KEYS addresses (timing.c), a table of counts becomes a
 * sketch of fixed size that never counts an address short: memory stays
 * bounded however many addresses a launch's atomics update. */
struct timing_log {
    struct timing_access_entry *entries;
    size_t count, capacity;
    struct timing_atomics *atomics; /* NULL until the block's first atomic */
    bool overflowed;                /* out of memory: the rest was not logged */
    /* By L2 set, the index of the set's latest entry, when entries[index]
     * is of that set (else stale: from an earlier block). The log's
     * builder keeps it from block to block; the entries go to the L2. */
    uint32_t *latest;
    size_t latest_sets;
    /* The block's share of its SM's L1 (timing.c, "the L1"): the builder's,
     * kept from block to block and emptied when a block ends. */
    struct timing_l1 *l1;
};

/* The worst offenders of a launch, for messages at source lines. */
struct timing_hotspot {
    uint32_t value; /* ways of a bank conflict, or sectors of a request */
    uint32_t line;  /* CUDA source line (or PTX line when there is none) */
};

struct timing_sequencer;

/* The model of one launch. */
struct timing_launch {
    const struct emu_device_model *device;
    bool enabled; /* KGEMU_TIMING=off disables counting (the benchmark's baseline) */
    int sm_count;
    int resident_blocks; /* per SM, from the occupancy calculation */
    uint32_t l1_lines;   /* a block's share of its SM's L1, in 128-byte lines */
    int registers;
    bool registers_exact;
    bool lines_are_source; /* the kernel's PTX has .loc: hotspots are at source lines */
    /* per SM, summed from blocks (block i → SM i % sm_count) */
    uint64_t *issued; /* [sm][class]: warp instructions */
    uint64_t *lsu_clocks;
    uint64_t *shared_wavefronts;
    uint64_t *block_paths;  /* Σ of the blocks' longest warp paths */
    uint64_t *longest_path; /* the longest warp path of any of its blocks */
    pthread_mutex_t lock;
    struct kgemu_counters totals;
    struct timing_hotspot bank_conflict, scattered_access;
    struct timing_sequencer *sequencer;
    uint64_t blocks_total, blocks_complete;
    double budget_ms; /* 0: none */
};

bool timing_launch_init(struct timing_launch *t, const struct emu_launch *cfg,
                        unsigned threads_per_block, uint32_t shared_bytes);
void timing_launch_free(struct timing_launch *t);

/* Which of the device's latencies (a field of struct emu_timing_constants,
 * by its offset) a result of issue class `k` takes to be ready, for the
 * classes whose latency does not depend on the instruction. */
static inline size_t timing_class_latency_field(enum ptx_issue_class k)
{
    switch (k) {
    case PTX_CLASS_FP64:
        return offsetof(struct emu_timing_constants, latency_fp64);
    case PTX_CLASS_SFU:
        return offsetof(struct emu_timing_constants, latency_sfu);
    case PTX_CLASS_TENSOR:
        return offsetof(struct emu_timing_constants, latency_tensor);
    case PTX_CLASS_CONTROL:
        return offsetof(struct emu_timing_constants, latency_control);
    default:
        return offsetof(struct emu_timing_constants, latency_alu);
    }
}

/* Which of the device's latencies an instruction's result takes to be ready. */
static inline size_t timing_latency_field(const struct ptx_insn *insn)
{
    if (insn->issue_class != PTX_CLASS_MEMORY)
        return timing_class_latency_field((enum ptx_issue_class)insn->issue_class);
    if ((insn->op == PTX_OP_LD || (insn->op == PTX_OP_WMMA && insn->cmp != PTX_WMMA_STORE_D)) &&
        insn->space != PTX_SPACE_SHARED && insn->space != PTX_SPACE_PARAM &&
        insn->space != PTX_SPACE_LOCAL)
        return offsetof(struct emu_timing_constants, latency_global);
    if (insn->op == PTX_OP_TEX || insn->op == PTX_OP_TLD4 || insn->op == PTX_OP_SULD)
        return offsetof(struct emu_timing_constants,
                        latency_global); /* a global load through the L2, no texture cache */
    return insn->space == PTX_SPACE_SHARED ? offsetof(struct emu_timing_constants, latency_shared)
                                           : offsetof(struct emu_timing_constants, latency_alu);
}

/* What a PTX instruction that ptxas turns into a sequence of SASS
 * instructions (enum ptx_sequence) costs: the instructions of the sequence's
 * fast path by issue class, and those of them on its dependent chain. */
struct timing_sequence {
    uint8_t issued[PTX_CLASS_COUNT];
    uint8_t chain[PTX_CLASS_COUNT];
};
extern const struct timing_sequence timing_sequences[PTX_SEQ_COUNT];

/* The clocks until a sequence's result is ready: its chain's latencies. */
static inline uint64_t timing_sequence_latency(const struct emu_timing_constants *c,
                                               const struct timing_sequence *s)
{
    uint64_t clocks = 0;
    for (int k = 0; k < PTX_CLASS_COUNT; k++) {
        int latency;
        memcpy(&latency, (const char *)c + timing_class_latency_field((enum ptx_issue_class)k),
               sizeof latency);
        clocks += (uint64_t)s->chain[k] * (uint64_t)latency;
    }
    return clocks;
}

/* The clocks until an instruction's result is ready. */
static inline uint64_t timing_latency(const struct emu_timing_constants *c,
                                      const struct ptx_insn *insn)
{
    int clocks;
    memcpy(&clocks, (const char *)c + timing_latency_field(insn), sizeof clocks);
    return (uint64_t)clocks;
}

/* The next basic block: it issues after the current one's instructions,
 * one a clock, or after its latest. */
static inline void timing_next_block(struct timing_warp *tw)
{
    uint64_t end = tw->floor + tw->count;
    tw->floor = end > tw->last ? end : tw->last;
    tw->count = 0;
}

/* The warp waits for everything it has in flight (a barrier, a call, a return). */
static inline void timing_drain(struct timing_warp *tw)
{
    timing_next_block(tw);
    if (tw->floor < tw->start + tw->path)
        tw->floor = tw->start + tw->path;
}

/* When instruction `pc` of `fn` can issue: once its sources are ready in the
 * frame's scoreboard `ready` (a row per register, then per predicate), and not
 * before its basic block. Its results are then ready `latency` later. Its
 * dependency list has the rows it reads first (ptx_deps.c). */
static inline uint64_t timing_schedule(struct timing_warp *tw, const struct ptx_function *fn,
                                       uint32_t pc, uint64_t *ready, uint64_t latency)
{
    const uint32_t *dep = &fn->deps[fn->dep_start[pc]], *end = &fn->deps[fn->dep_start[pc + 1]];
    uint64_t at = tw->floor + 1;
    for (; dep < end; dep++) {
        if (*dep & PTX_DEP_WRITE)
            ready[*dep & ~PTX_DEP_WRITE] = at + latency;
        else if (ready[*dep] > at)
            at = ready[*dep];
    }
    return at;
}

/* One instruction issued by a warp: instruction `pc` of `fn`, whose frame's
 * scoreboard is `ready`. Within a basic block the instructions issue in the
 * order their dependencies allow, as ptxas schedules them (independent ones —
 * a thread tile's multiply-adds, loads and their uses — overlap; dependent
 * ones wait for their sources' latency), one a clock at most; basic blocks
 * follow each other, and a barrier, a call or a return waits for every
 * result in flight. The warp's path is when its last result is ready. A
 * merged ld.shared that follows its group's leader (ptx_merge.c) is part of
 * the leader's instruction: it is neither issued nor counted. An instruction
 * that ptxas turns into a sequence (a division, a square root) issues the
 * sequence's instructions, one a clock, and its result is ready after the
 * sequence's dependent chain. */
static inline void timing_issue(struct timing_warp *tw, const struct emu_device_model *d,
                                const struct ptx_function *fn, uint32_t pc, uint64_t *ready)
{
    const struct ptx_insn *insn = &fn->code[pc];
    const struct timing_sequence *seq =
        insn->sequence != PTX_SEQ_NONE ? &timing_sequences[insn->sequence] : NULL;
    uint64_t latency =
        seq ? timing_sequence_latency(&d->timing, seq) : timing_latency(&d->timing, insn);
    if (insn->flags & PTX_F_DRAIN)
        timing_drain(tw);
    else if (insn->flags & PTX_F_BLOCK_START)
        timing_next_block(tw);
    uint64_t at = timing_schedule(tw, fn, pc, ready, latency);
    tw->issued_at = at;
    tw->path_before = tw->path;
    if (insn->merge == PTX_MERGE_FOLLOWER && (tw->merged >> (insn->merge_group % 64) & 1))
        return;
    if (seq) {
        for (int k = 0; k < PTX_CLASS_COUNT; k++) {
            tw->issued[k] += seq->issued[k];
            tw->count += seq->issued[k];
        }
    } else {
        tw->issued[insn->issue_class]++;
        tw->count++;
    }
    tw->last = at > tw->last ? at : tw->last;
    uint64_t done = at + latency, issued = tw->floor + tw->count;
    done = done > issued ? done : issued;
    if (done - tw->start > tw->path)
        tw->path = done - tw->start;
}

/* Where a load's lanes turned out to point: a generic load's window, or a
 * global load whose sectors all hit in the L1 (TIMING_IN_L1). */
enum timing_window { TIMING_IN_GLOBAL, TIMING_IN_SHARED, TIMING_IN_LOCAL, TIMING_IN_L1 };

/* A load (instruction `pc` of `fn`, just issued by timing_issue, which
 * gave it a global load's latency) once its addresses are known: one into
 * shared memory, or into local memory, which the L1 holds, has shared
 * memory's latency instead, and a global one whose sectors all hit in the
 * L1 the L1's. */
static inline void timing_generic_load(struct timing_warp *tw, const struct emu_device_model *d,
                                       const struct ptx_function *fn, uint32_t pc, uint64_t *ready,
                                       enum timing_window window)
{
    if (window == TIMING_IN_GLOBAL)
        return;
    int latency = window == TIMING_IN_L1 ? d->timing.latency_l1 : d->timing.latency_shared;
    uint64_t done = tw->issued_at + (uint64_t)latency;
    const uint32_t *dep = &fn->deps[fn->dep_start[pc]], *end = &fn->deps[fn->dep_start[pc + 1]];
    for (const uint32_t *p = dep; p < end; p++)
        if (*p & PTX_DEP_WRITE)
            ready[*p & ~PTX_DEP_WRITE] = done;
    uint64_t issued = tw->floor + tw->count;
    done = done > issued ? done : issued;
    tw->path = done - tw->start > tw->path_before ? done - tw->start : tw->path_before;
}

/* A global request's instruction, just counted (timing_global_request,
 * timing_global_sectors): a load whose sectors all hit in the L1 has the
 * L1's latency (instruction `pc` of `fn`, the frame's scoreboard `ready`). */
static inline void timing_global_load(struct timing_warp *tw, const struct emu_device_model *d,
                                      const struct ptx_function *fn, uint32_t pc, uint64_t *ready)
{
    if (tw->l1_hit && fn->code[pc].op == PTX_OP_LD)
        timing_generic_load(tw, d, fn, pc, ready, TIMING_IN_L1);
}

/* A global request of the lanes in `mask` at `address[lane]`, `bytes`
 * each: counts its distinct sectors and logs its lines; a load's sectors
 * go through the block's L1 first, and only those it misses are logged
 * for the L2 (tw->l1_hit: all of them hit). */
void timing_global_request(struct timing_warp *tw, struct timing_launch *t, struct timing_log *log,
                           const struct ptx_insn *insn, uint32_t mask, const uint64_t *address,
                           unsigned bytes, enum timing_access kind);

/* A global load's or store's request whose sectors the caller found (the
 * compiled tier, from the lanes' addresses), in two windows of 64 sectors:
 * bit j of `bits0` is sector `base0` + j (a sector's number is its address
 * / 32; a window starts a line: base0 is a multiple of 4), and likewise for
 * the second window, which lies past the first. Counts and logs what
 * timing_global_request does for the same sectors. */
void timing_global_sectors(struct timing_warp *tw, struct timing_launch *t, struct timing_log *log,
                           const struct ptx_insn *insn, uint64_t base0, uint64_t bits0,
                           uint64_t base1, uint64_t bits1, enum timing_access kind);

/* A shared request: wavefronts are the most distinct 4-byte words any one of
 * the 32 banks must serve; atomics to one word serialize. */
void timing_shared_request(struct timing_warp *tw, struct timing_launch *t,
                           const struct ptx_insn *insn, uint32_t mask, const uint64_t *offset,
                           unsigned bytes, bool atomic);

/* A merged ld.shared group (ptx_merge.c) at run time: its leader, when every
 * lane's offset is aligned to the group's size, makes the group one access and
 * returns that size; otherwise each member is an access of its own. Returns 0
 * for a follower of a group that runs as one (nothing more to count). */
unsigned timing_shared_merge(struct timing_warp *tw, const struct ptx_insn *insn, uint32_t mask,
                             const uint64_t *offset, unsigned bytes);

/* A finished block (`complete`), or one stopped part way: its warps'
 * counts go to its SM, its log to the L2 model. */
void timing_block_done(struct timing_launch *t, uint64_t block_index, struct timing_warp *warps,
                       unsigned n_warps, struct timing_log *log, bool complete);

/* A lower bound of the launch's final modeled time (ms), from what ran so
 * far and the running warp: every term only grows as the launch goes on,
 * and a warp's path never exceeds its SM's final latency term, so a
 * budget checked against it never stops a kernel that would finish
 * within it. */
double timing_lower_bound_ms(struct timing_launch *t, const struct timing_warp *running);

/* The launch's modeled time in milliseconds; fills `out`. */
double timing_finish(struct timing_launch *t, struct kgemu_counters *out);

/* The lanes of the log's atomics that updated `address`, and the atomic
 * requests to the line at `line_address` (for tests). */
uint64_t timing_log_atomic_lanes(const struct timing_log *log, uint64_t address);
uint64_t timing_log_atomic_operations(const struct timing_log *log, uint64_t line_address);
/* The host memory the atomics' tables of a block's log, and of the launch,
 * hold (for tests: it is bounded). */
size_t timing_log_atomic_bytes(const struct timing_log *log);
size_t timing_atomic_bytes(struct timing_launch *t);
void timing_log_free(struct timing_log *log);

#endif
