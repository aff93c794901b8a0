/*
 * Internal to tests/calibrate/: what the tables' runners (run_*.c) share — a
 * kernel compiled and loaded as the grader loads a student's, device buffers,
 * launches, and the events that time them.
 *
 * Every function prints what went wrong (the call, the CUresult, and the
 * virtual GPU's account of a fault) and returns false or 0, so a runner only
 * passes the failure up.
 */
#ifndef KGRADE_TESTS_CALIBRATE_LIT_GPU_H
#define KGRADE_TESTS_CALIBRATE_LIT_GPU_H

#include <stddef.h>

#include "literature.h"

/* A loaded kernel. */
struct lit_loaded {
    CUmodule module;
    CUfunction function;
};

/* Compiles LIT_KERNEL_DIR/k->file with grader_compile for sm_90 (as `kgrade
 * grade` does, -lineinfo included), loads its PTX, finds k->entry and hands
 * ptxas's register count to the virtual GPU. */
bool lit_load(struct lit_gpu *gpu, const struct lit_kernel *k, struct lit_loaded *out);
void lit_unload(struct lit_loaded *loaded);

/* A device buffer holding `bytes` of `host`; 0 on failure. */
CUdeviceptr lit_upload(const void *host, size_t bytes);

/* Copies `bytes` of `d` to `host`. */
bool lit_download(void *host, CUdeviceptr d, size_t bytes);

/* Launches and waits. */
bool lit_launch(CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned by, void **args);

/* Events around launches: lit_timer_start, the launches, lit_timer_stop. */
struct lit_timer {
    CUevent start, stop;
};
bool lit_timer_start(struct lit_timer *t);
/* The elapsed time (ms) since lit_timer_start; destroys the events. */
bool lit_timer_stop(struct lit_timer *t, double *ms);

/* One launch between events: its time in out->ms, its counters in out->counters. */
bool lit_timed_launch(const struct lit_gpu *gpu, CUfunction f, unsigned gx, unsigned gy,
                      unsigned bx, unsigned by, void **args, struct lit_outcome *out);

/* The virtual GPU's counters of the last launch, into out->counters (zeros on
 * another driver). */
void lit_note_counters(const struct lit_gpu *gpu, struct lit_outcome *out);

/* A deterministic small integer in [-2, 2] for element `i` of stream `stream`: sums
 * of products of such numbers are exact in float at every size used here. */
int lit_small_int(unsigned long i, unsigned stream);

/* The runners of the three tables (run_sgemm.c, run_reduce.c, run_transpose.c). */
bool lit_run_sgemm(struct lit_gpu *gpu, const struct lit_kernel *k, long n,
                   struct lit_outcome *out);
bool lit_run_reduce(struct lit_gpu *gpu, const struct lit_kernel *k, long n,
                    struct lit_outcome *out);
bool lit_run_transpose(struct lit_gpu *gpu, const struct lit_kernel *k, long n,
                       struct lit_outcome *out);
void lit_describe_sgemm(long n, char *out, size_t size);
void lit_describe_reduce(long n, char *out, size_t size);
void lit_describe_transpose(long n, char *out, size_t size);

#endif
