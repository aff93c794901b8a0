/*
 * The SGEMM table's runner: C = alpha·A·B + beta·C with C n × n and the inner
 * dimension K = n / LIT_SGEMM_K_SHARE (the grid, hence how the blocks fill the
 * SMs, depends on n alone; K sets the work per block, and emulating it is what
 * takes time), on small integers (so every kernel's sums are exact and its
 * output is compared bit for bit); one launch between events; GFLOP/s =
 * 2·n²·K / time as in Boehm's worklog. The host checks every row at small
 * sizes and LIT_SGEMM_ROWS rows spread over the matrix at large ones.
 */
#include "lit_gpu.h"

#include <stdio.h>
#include <stdlib.h>

#define LIT_SGEMM_ROWS    64
#define LIT_SGEMM_K_SHARE 8
#define ALPHA             1.0f
#define BETA              1.0f

static float *small_ints(size_t count, unsigned stream)
{
    float *m = malloc(count * sizeof *m);
    for (size_t i = 0; m && i < count; i++)
        m[i] = (float)lit_small_int(i, stream);
    return m;
}

/* The rows whose every element is checked: all, or LIT_SGEMM_ROWS spread out. */
static long checked_row(long i, long n, long rows)
{
    long step = n / rows;
    return i * step + i % step;
}

/* A is n × k, B k × n, C n × n. */
static long mismatches(const float *a, const float *b, const float *c, const float *got, long n,
                       long k)
{
    long rows = n < LIT_SGEMM_ROWS ? n : LIT_SGEMM_ROWS, wrong = 0;
    for (long i = 0; i < rows; i++) {
        long r = checked_row(i, n, rows);
        for (long j = 0; j < n; j++) {
            float sum = 0;
            for (long x = 0; x < k; x++)
                sum += a[r * k + x] * b[x * n + j];
            wrong += got[r * n + j] != ALPHA * sum + BETA * c[r * n + j];
        }
    }
    return wrong;
}

bool lit_run_sgemm(struct lit_gpu *gpu, const struct lit_kernel *k, long n, struct lit_outcome *out)
{
    long inner = n / LIT_SGEMM_K_SHARE;
    size_t count = (size_t)n * (size_t)n, bytes = count * sizeof(float);
    size_t ab_bytes = (size_t)n * (size_t)inner * sizeof(float);
    float *a = small_ints(ab_bytes / sizeof(float), 1),
          *b = small_ints(ab_bytes / sizeof(float), 2);
    float *c = small_ints(count, 3), *got = malloc(bytes);
    struct lit_loaded kernel = {0};
    CUdeviceptr da = 0, db = 0, dc = 0;
    int dim = (int)n, dim_k = (int)inner;
    float alpha = ALPHA, beta = BETA;
    void *args[] = {&dim, &dim, &dim_k, &alpha, &da, &db, &beta, &dc};
    unsigned grid = (unsigned)n / k->tile;
    bool ran =
        a && b && c && got && lit_load(gpu, k, &kernel) && (da = lit_upload(a, ab_bytes)) &&
        (db = lit_upload(b, ab_bytes)) && (dc = lit_upload(c, bytes)) &&
        lit_timed_launch(gpu, kernel.function, grid, grid, k->block_x, k->block_y, args, out) &&
        lit_download(got, dc, bytes);
    if (ran) {
        out->mismatches = mismatches(a, b, c, got, n, inner);
        out->figure = 2.0 * (double)n * (double)n * (double)inner / (out->ms * 1e-3) / 1e9;
        out->bytes = 2.0 * (double)ab_bytes + 2.0 * (double)bytes; /* the least traffic */
    }
    cuMemFree(da), cuMemFree(db), cuMemFree(dc);
    lit_unload(&kernel);
    free(a), free(b), free(c), free(got);
    return ran;
}

void lit_describe_sgemm(long n, char *out, size_t size)
{
    snprintf(out, size, "C %ld x %ld, K = %ld", n, n, n / LIT_SGEMM_K_SHARE);
}
