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
#include <stdint.h>

#include "emu.h"
#include "ptx.h"

/* What one warp counts while it runs. */
struct timing_warp {
    uint64_t issued[PTX_CLASS_COUNT];
    uint64_t path;          /* clocks of its dependent chain */
    bool after_global_load; /* back-to-back loads overlap their latency */
    uint64_t global_requests;
    uint64_t global_sectors;
    uint64_t lsu_clocks;
    uint64_t shared_requests;
    uint64_t shared_wavefronts;
    uint64_t global_atomics;
    uint32_t worst_ways, worst_ways_line;       /* the worst bank conflict and its line */
    uint32_t worst_sectors, worst_sectors_line; /* the most scattered request and its line */
};

enum timing_access { TIMING_READ, TIMING_WRITE, TIMING_ATOMIC };

/* One 128-byte line touched by a request: which of its 4 sectors. */
struct timing_access_entry {
    uint64_t address; /* the line's address (atomics: the element's address) */
    uint8_t sectors;  /* bit s: sector s of the line */
    uint8_t kind;     /* enum timing_access */
};

/* A block's ordered log of global accesses. */
struct timing_log {
    struct timing_access_entry *entries;
    size_t count, capacity;
    bool overflowed; /* out of memory: the rest was not logged */
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

/* One instruction issued by a warp (its class and latency). */
static inline void timing_issue(struct timing_warp *tw, const struct emu_device_model *d,
                                const struct ptx_insn *insn)
{
    const struct emu_timing_constants *c = &d->timing;
    tw->issued[insn->issue_class]++;
    if (insn->op == PTX_OP_LD && insn->space == PTX_SPACE_GENERIC)
        return; /* its latency is known once its lanes' addresses are (timing_generic_load) */
    bool global_load = insn->op == PTX_OP_LD && insn->space != PTX_SPACE_SHARED &&
                       insn->space != PTX_SPACE_PARAM && insn->space != PTX_SPACE_LOCAL;
    switch ((enum ptx_issue_class)insn->issue_class) {
    case PTX_CLASS_FP64:
        tw->path += (uint64_t)c->latency_fp64;
        break;
    case PTX_CLASS_SFU:
        tw->path += (uint64_t)c->latency_sfu;
        break;
    case PTX_CLASS_MEMORY:
        if (global_load && !tw->after_global_load)
            tw->path += (uint64_t)c->latency_global;
        else
            tw->path +=
                (uint64_t)(insn->space == PTX_SPACE_SHARED ? c->latency_shared : c->latency_alu);
        break;
    case PTX_CLASS_CONTROL:
        tw->path += (uint64_t)c->latency_control;
        break;
    default:
        tw->path += (uint64_t)c->latency_alu;
        break;
    }
    tw->after_global_load = global_load;
}

/* Where a generic load's lanes turned out to point. */
enum timing_window { TIMING_IN_GLOBAL, TIMING_IN_SHARED, TIMING_IN_LOCAL };

/* The latency of a generic load, once its addresses are known: a global
 * one's (overlapping a global load just before it), shared memory's for
 * shared memory, and for local memory, which the L1 holds, the same. */
static inline void timing_generic_load(struct timing_warp *tw, const struct emu_device_model *d,
                                       enum timing_window window)
{
    const struct emu_timing_constants *c = &d->timing;
    bool global = window == TIMING_IN_GLOBAL;
    if (global)
        tw->path += (uint64_t)(tw->after_global_load ? c->latency_alu : c->latency_global);
    else
        tw->path += (uint64_t)c->latency_shared;
    tw->after_global_load = global;
}

/* A global request of the lanes in `mask` at `address[lane]`, `bytes`
 * each: counts its distinct sectors and logs its lines. */
void timing_global_request(struct timing_warp *tw, struct timing_launch *t, struct timing_log *log,
                           const struct ptx_insn *insn, uint32_t mask, const uint64_t *address,
                           unsigned bytes, enum timing_access kind);

/* A shared request: wavefronts are the most distinct 4-byte words any one of
 * the 32 banks must serve; atomics to one word serialize. */
void timing_shared_request(struct timing_warp *tw, struct timing_launch *t,
                           const struct ptx_insn *insn, uint32_t mask, const uint64_t *offset,
                           unsigned bytes, bool atomic);

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

void timing_log_reset(struct timing_log *log);
void timing_log_free(struct timing_log *log);

#endif
