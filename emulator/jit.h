/*
 * Internal to emulator/: the compiled tier (JIT.md). A kernel's regions —
 * runs of instructions between the ones that change the warp's control
 * state (branches, calls, returns, exits, traps, barriers, waits) — become
 * native functions through LLVM's ORC LLJIT; the interpreter's warp loop
 * (warp_run) calls a region where one starts and interprets the rest, on
 * the same warp state, so both tiers give identical results, faults and
 * counters. Inside a region, what the compiler does not translate runs
 * through the interpreter's own code (interp_execute), counted as
 * interpreted.
 */
#ifndef KGRADE_EMULATOR_JIT_H
#define KGRADE_EMULATOR_JIT_H

#include <stdbool.h>
#include <stdint.h>

#include "emu.h"
#include "ptx.h"

struct warp;
struct frame;

/* What a region returns. */
enum jit_status {
    JIT_RAN,       /* all its instructions ran: the warp goes on after it */
    JIT_FAULTED,   /* a fault was recorded: the warp stops */
    JIT_INTERPRET, /* nothing ran (the budget's next check falls inside): interpret it */
    JIT_BRANCHED,  /* it ended with a branch, which moved the SIMT stack's top entry */
};

/* A region: runs its instructions for the lanes of `mask` (the top SIMT
 * entry's) in frame f of warp w; `latency` is the device's timing constants.
 * It always counts for the timing model (unread when the model is off). */
typedef int (*jit_region_fn)(struct warp *w, struct frame *f, uint32_t mask,
                             const struct emu_timing_constants *latency);

struct jit_kernel {
    uint32_t n_code;
    jit_region_fn *region; /* per pc: the region starting there, or NULL */
    uint32_t *region_end;  /* per pc: the pc after that region */
    unsigned n_regions;
    double compile_seconds;
};

/* The compiled form of function `fn` from the process's cache (keyed by a
 * hash of its decoded code), compiled first when `compile` and it is not
 * there; NULL when it is not, when nothing of it compiles or when LLVM
 * failed (it all runs in the interpreter). Thread-safe. */
const struct jit_kernel *jit_kernel_find(const struct ptx_function *fn, bool compile);

/* jit_kernel_find for kernel `fn` of module `pm`, and then for each
 * function it calls directly, and theirs, whose code is published in the
 * function (ptx_function.jit) for the warp loop to run in their frames:
 * numba's float64 pow calls libdevice's __internal_accurate_pow. */
const struct jit_kernel *jit_kernel_with_calls(const struct ptx_module *pm,
                                               const struct ptx_function *fn, bool compile);

/* How many warp instructions a launch of `fn` runs in the interpreter before
 * the kernel is compiled: KGEMU_JIT_AFTER (0: at once), else in proportion
 * to its size, so that a compile costs about what it saves. */
uint64_t jit_compile_after(const struct ptx_function *fn);

static inline jit_region_fn jit_region_at(const struct jit_kernel *k, uint32_t pc, uint32_t *end)
{
    if (pc >= k->n_code || !k->region[pc])
        return NULL;
    *end = k->region_end[pc];
    return k->region[pc];
}

#endif
