/*
 * Internal to emulator/: the compiled tier (JIT.md). A kernel's runs of
 * straight-line instructions the compiler covers ("regions") become native
 * functions through LLVM's ORC LLJIT; the interpreter's warp loop
 * (warp_run) calls a region where one starts and interprets everything
 * else, on the same warp state, so both tiers give identical results,
 * faults and counters.
 */
#ifndef KGRADE_EMULATOR_JIT_H
#define KGRADE_EMULATOR_JIT_H

#include <stdbool.h>
#include <stdint.h>

#include "ptx.h"

struct warp;
struct frame;

/* A region: runs its instructions for the lanes of `mask` (the top SIMT
 * entry's); 0, or 1 after a fault or the budget stopped the warp. */
typedef int (*jit_region_fn)(struct warp *w, struct frame *f, uint32_t mask);

struct jit_kernel {
    uint32_t n_code;
    jit_region_fn *region; /* per pc: the region starting there, or NULL */
    uint32_t *region_end;  /* per pc: the pc after that region */
    unsigned n_regions;
    double compile_seconds;
};

/* Whether KGEMU_TIER asks for the compiled tier ("jit"; default "interp"). */
bool jit_enabled(void);

/* The compiled form of kernel `fn`, compiled at its first launch and cached
 * per hash of its decoded code; NULL when nothing of it can be compiled
 * (it runs in the interpreter, counted as a fallback). Thread-safe. */
const struct jit_kernel *jit_kernel_get(const struct ptx_function *fn);

static inline jit_region_fn jit_region_at(const struct jit_kernel *k, uint32_t pc, uint32_t *end)
{
    if (pc >= k->n_code || !k->region[pc])
        return NULL;
    *end = k->region_end[pc];
    return k->region[pc];
}

#endif
