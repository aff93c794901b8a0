/*
 * The transposes table's runner: an n × n float matrix transposed (or, for the
 * copy, copied) in one launch of 32 × 8-thread blocks, one per 32 × 32 tile,
 * between events; effective bandwidth = 2·n²·4 bytes / time, as the sources
 * count it. Every element of the output is checked.
 */
#include "lit_gpu.h"

#include <stdio.h>
#include <stdlib.h>

static long mismatches(const float *in, const float *got, long n, bool copies)
{
    long wrong = 0;
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            wrong += got[j * n + i] != (copies ? in[j * n + i] : in[i * n + j]);
    return wrong;
}

bool lit_run_transpose(struct lit_gpu *gpu, const struct lit_kernel *k, long n,
                       struct lit_outcome *out)
{
    size_t count = (size_t)n * (size_t)n, bytes = count * sizeof(float);
    float *in = malloc(bytes), *got = malloc(bytes);
    for (size_t i = 0; in && got && i < count; i++) {
        in[i] = (float)(i % 8191);
        got[i] = -1.0f; /* what the output holds until the kernel writes it */
    }
    struct lit_loaded kernel = {0};
    CUdeviceptr din = 0, dout = 0;
    int width = (int)n;
    void *args[] = {&din, &dout, &width};
    unsigned grid = (unsigned)n / k->tile;
    bool ran =
        in && got && lit_load(gpu, k, &kernel) && (din = lit_upload(in, bytes)) &&
        (dout = lit_upload(got, bytes)) &&
        lit_timed_launch(gpu, kernel.function, grid, grid, k->block_x, k->block_y, args, out) &&
        lit_download(got, dout, bytes);
    if (ran) {
        out->mismatches = mismatches(in, got, n, k->copies);
        out->bytes = 2.0 * (double)bytes;
        out->figure = out->bytes / (out->ms * 1e-3) / 1e9;
    }
    cuMemFree(din), cuMemFree(dout);
    lit_unload(&kernel);
    free(in), free(got);
    return ran;
}

void lit_describe_transpose(long n, char *out, size_t size)
{
    snprintf(out, size, "%ld x %ld floats", n, n);
}
