/*
 * The calibration tables: kernels of three published tables, written again from
 * their descriptions (tests/calibrate/kernels/), with the figures their authors
 * published, and how to run each one at a size of our choosing and check what it
 * computed.
 *
 * - SGEMM: Simon Boehm's worklog "How to Optimize a CUDA Matmul Kernel for
 *   cuBLAS-like Performance" (2022), GFLOP/s on an RTX A6000 at 4096².
 * - Reductions: Mark Harris's "Optimizing Parallel Reduction in CUDA" (2007),
 *   milliseconds for 4M ints on a G80 (GeForce 8800 GTX).
 * - Transposes: Ruetsch and Micikevicius's "Optimizing Matrix Transpose in CUDA"
 *   (2009), with the figures of Mark Harris's blog "An Efficient Matrix
 *   Transpose in CUDA C/C++" (2013), GB/s on a Tesla M2050.
 *
 * Kernels are compiled the way the grader compiles a student's (grader_compile
 * for sm_90, so ptxas's register counts reach the virtual GPU through
 * kgemu_set_registers) and timed with events, which on the virtual GPU give the
 * timing model's modeled time. Shared by build/calibrate (make calibrate: large
 * sizes, the printed tables) and tests/gpu/test_literature.c (small sizes, the
 * orderings that must hold). Runs from the repository's root, where the kernels'
 * paths lead.
 */
#ifndef KGRADE_TESTS_CALIBRATE_LITERATURE_H
#define KGRADE_TESTS_CALIBRATE_LITERATURE_H

#include <cuda.h>
#include <stdbool.h>
#include <stddef.h>

#include "emulator/kgemu.h"

#define LIT_KERNEL_DIR "tests/calibrate/kernels/"
#define LIT_TABLES     3
#define LIT_KERNELS    7 /* at most, per table */

/* The unit of a table's figures. */
enum lit_unit {
    LIT_GFLOPS, /* SGEMM: 2·n³ floating-point operations per second, higher is better */
    LIT_MS,     /* reductions: the time of the whole reduction, lower is better */
    LIT_GBPS,   /* transposes: bytes read and written per second, higher is better */
};

/* One kernel of a table and how it is launched. */
struct lit_kernel {
    const char *file;  /* in LIT_KERNEL_DIR */
    const char *entry; /* its extern "C" kernel */
    const char *name;  /* the step as the source names it */
    double published;  /* the source's figure, in the table's unit */
    unsigned tile;     /* the output tile of a block (SGEMM, transposes: its side;
                          reductions: the elements one pass of a block sums) */
    unsigned block_x, block_y;
    unsigned max_blocks; /* reductions: a cap on the grid (0: none) */
    bool copies;         /* transposes: the output is the input, not its transpose */
};

/* What one run of one kernel gave. */
struct lit_outcome {
    double ms;                      /* the events' elapsed time: modeled on the virtual GPU */
    double figure;                  /* in the table's unit */
    double bytes;                   /* DRAM bytes the algorithm must move (bandwidth: bytes / ms) */
    long mismatches;                /* wrong output elements (0: correct) */
    struct kgemu_counters counters; /* the virtual GPU's account of the main launch
                                       (limiter "" on another driver) */
    double seconds;                 /* host time the run took (compile, emulation, check) */
};

/* The driver's context and the virtual GPU's extensions (NULL on another driver). */
struct lit_gpu {
    CUcontext context;
    int (*set_registers)(void *function, int registers);
    int (*last_counters)(struct kgemu_counters *counters);
};

struct lit_table {
    const char *name;         /* "sgemm", "reduce", "transpose" */
    const char *title;        /* what the table measures */
    const char *source;       /* where its published figures come from */
    const char *published_on; /* the GPU and size of the published figures */
    enum lit_unit unit;
    const struct lit_kernel *kernels;
    int n_kernels;
    /* Runs kernel `k` at size `n` (SGEMM: C's side, a multiple of 128, with K =
     * n / 8; transposes: the matrix's side, a multiple of 32; reductions: the
     * elements). False when it could not run (printed). */
    bool (*run)(struct lit_gpu *gpu, const struct lit_kernel *k, long n, struct lit_outcome *out);
    long multiple; /* sizes must be multiples of it */
    /* What size `n` means for the table ("2048 x 2048, K = 256"), into out. */
    void (*describe)(long n, char *out, size_t size);
};

extern const struct lit_table lit_tables[LIT_TABLES];

/* The table named `name`, or NULL. */
const struct lit_table *lit_table_named(const char *name);

/* cuInit, a context on device 0 and the kgemu.h functions; false (printed) on failure. */
bool lit_gpu_start(struct lit_gpu *gpu);
void lit_gpu_stop(struct lit_gpu *gpu);

/* "GFLOP/s", "ms" or "GB/s". */
const char *lit_unit_name(enum lit_unit unit);

/* True when a larger figure is better in `unit`. */
bool lit_unit_higher_is_better(enum lit_unit unit);

#endif
