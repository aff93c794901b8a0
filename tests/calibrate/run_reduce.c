/*
 * The reductions table's runner: the sum of n ints, as Harris times it — the
 * kernel launched on the input, then again on the partial sums (one per block)
 * until one is left, every launch between the same two events. Kernel 7 caps
 * its grid (k->max_blocks), so each thread sums many elements. The result is
 * compared with the host's sum.
 */
#include "lit_gpu.h"

#include <stdio.h>
#include <stdlib.h>

/* Blocks a pass over `count` elements takes. */
static unsigned blocks_for(const struct lit_kernel *k, unsigned long count)
{
    unsigned long blocks = (count + k->tile - 1) / k->tile;
    if (k->max_blocks && blocks > k->max_blocks)
        blocks = k->max_blocks;
    return (unsigned)blocks;
}

/* Every pass, `in` (n elements) to one sum in *sum; the time in out->ms and the
 * first (largest) pass's counters in out->counters. */
static bool reduce_passes(const struct lit_gpu *gpu, CUfunction f, const struct lit_kernel *k,
                          CUdeviceptr in, CUdeviceptr scratch[2], unsigned long n,
                          struct lit_outcome *out, int *sum)
{
    struct lit_timer t;
    if (!lit_timer_start(&t))
        return false;
    bool ran = true;
    CUdeviceptr from = in;
    unsigned count = (unsigned)n;
    for (int pass = 0; ran && (pass == 0 || count > 1); pass++) {
        unsigned blocks = blocks_for(k, count);
        CUdeviceptr to = scratch[pass % 2];
        void *args[] = {&from, &to, &count};
        ran = lit_launch(f, blocks, 1, k->block_x, 1, args);
        if (pass == 0)
            lit_note_counters(gpu, out);
        from = to;
        count = blocks;
    }
    ran = lit_timer_stop(&t, &out->ms) && ran;
    return ran && lit_download(sum, from, sizeof *sum);
}

bool lit_run_reduce(struct lit_gpu *gpu, const struct lit_kernel *k, long n,
                    struct lit_outcome *out)
{
    size_t bytes = (size_t)n * sizeof(int), partial = (size_t)blocks_for(k, (unsigned long)n);
    int *data = malloc(bytes), sum = 0;
    long want = 0;
    for (long i = 0; data && i < n; i++)
        want += data[i] = lit_small_int((unsigned long)i, 4) + 2; /* 0 to 4 */
    struct lit_loaded kernel = {0};
    CUdeviceptr in = 0, scratch[2] = {0, 0};
    bool ran = data && lit_load(gpu, k, &kernel) && (in = lit_upload(data, bytes)) &&
               (scratch[0] = lit_upload(data, partial * sizeof(int))) &&
               (scratch[1] = lit_upload(data, partial * sizeof(int))) &&
               reduce_passes(gpu, kernel.function, k, in, scratch, (unsigned long)n, out, &sum);
    if (ran) {
        out->mismatches = sum != want;
        out->figure = out->ms;
        out->bytes = (double)bytes;
    }
    cuMemFree(in), cuMemFree(scratch[0]), cuMemFree(scratch[1]);
    lit_unload(&kernel);
    free(data);
    return ran;
}

void lit_describe_reduce(long n, char *out, size_t size)
{
    snprintf(out, size, "%ld ints", n);
}
