/*
 * Loads and stores by the shape of their lanes' addresses, on the virtual
 * GPU. The compiled tier loads a row of consecutive elements as one vector,
 * a 16-wide block's halves reading the same 16 elements as 16 lanes
 * repeated, halves reading one element each as two loads, and anything
 * else by a gather; it finds each shape's sectors for the timing model
 * without a loop over the lanes (emulator/JIT.md, "Loads and stores by
 * shape"). Under KGEMU_TIER=compare (tests/run-tests.sh) every launch here
 * must give both tiers the same memory, counters and modeled time; and
 * every result is checked against the host's:
 * - rows: the last warp partial, 4-byte signed loads widened into 8-byte
 *   stores, 8-byte loads;
 * - rows with gaps (every third lane off), loads and stores;
 * - a naive SGEMM in 16 × 16 blocks (A's element per half, B's row
 *   repeated), at a size that is no multiple of 16;
 * - one element for the whole warp (8 bytes), scattered lanes (a gather);
 * - stores of many lanes to one address: the highest lane's value lands,
 *   as the interpreter's ascending order leaves it;
 * - shared memory: a padded tile's rows, columns, one element per half
 *   and a row read by both halves;
 * - at the edges: a row whose lowest active lane is 5, over buffers of
 *   exactly its elements (the row's lane 0 would be before them); pairs
 *   2,000 elements apart, the lower half reading the higher address;
 *   8-byte repeated rows across a line; a shared row ending at the last
 *   word of the block's shared memory.
 */
#include "gpu_test.h"

#define N      1000 /* elements: the last warp is partial */
#define TILE   16
#define MATRIX 40 /* the SGEMM's side: no multiple of the tile */

static const char source[] =
    "extern \"C\" __global__ void widen_rows(const int *in, long long *out, const double *d,\n"
    "                                      double *e, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        out[i] = (long long)in[i] * 3;\n"
    "        e[i] = d[i] * 0.5;\n"
    "    }\n"
    "}\n"
    "extern \"C\" __global__ void gaps(const int *in, int *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n && i % 3 != 0)\n"
    "        out[i] = in[i] + 1;\n"
    "}\n"
    "extern \"C\" __global__ void sgemm(const float *a, const float *b, float *c, int n)\n"
    "{\n"
    "    int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (row < n && col < n) {\n"
    "        float sum = 0.0f;\n"
    "        for (int k = 0; k < n; k++)\n"
    "            sum += a[row * n + k] * b[k * n + col];\n"
    "        c[row * n + col] = sum;\n"
    "    }\n"
    "}\n"
    "extern \"C\" __global__ void uniform_and_scattered(const double *d, const int *in,\n"
    "                                                 double *e, int *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        e[i] = d[blockIdx.x] + i;\n"
    "        out[i] = in[(i * 37) % n];\n"
    "    }\n"
    "}\n"
    "/* 16 x 2 blocks: each half stores to one word, both halves to one row */\n"
    "extern \"C\" __global__ void last_lane_wins(int *word, int *row)\n"
    "{\n"
    "    word[threadIdx.y] = threadIdx.x + 100 * threadIdx.y;\n"
    "    row[threadIdx.x] = threadIdx.y;\n"
    "}\n"
    "/* 16 x 16 blocks over a 16 x 16 tile of in */\n"
    "extern \"C\" __global__ void shared_shapes(const int *in, int *out)\n"
    "{\n"
    "    __shared__ int t[16][17];\n"
    "    int x = threadIdx.x, y = threadIdx.y;\n"
    "    t[y][x] = in[y * 16 + x];\n"
    "    __syncthreads();\n"
    "    out[y * 16 + x] = t[x][y] * 1000000 + t[y][0] * 1000 + t[0][x];\n"
    "}\n"
    "extern \"C\" __global__ void row_from_lane5(const int *in, int *out)\n"
    "{\n"
    "    int t = threadIdx.x;\n"
    "    if (t >= 5)\n"
    "        out[t - 5] = in[t - 5] + 1;\n"
    "}\n"
    "/* 64 threads: each half of a warp reads one element, 2000 apart, the\n"
    " * lower half the higher one; then 8-byte rows of 16 read by both halves */\n"
    "extern \"C\" __global__ void far_pairs(const float *a, const double *b, float *out,\n"
    "                                      double *wide, int off)\n"
    "{\n"
    "    int t = threadIdx.x, h = 1 - t / 16 % 2;\n"
    "    out[t] = a[h * 2000 + t / 32 * 3];\n"
    "    wide[t] = b[off + t % 16];\n"
    "}\n"
    "/* 32 threads, (32 + n) words of dynamic shared memory */\n"
    "extern \"C\" __global__ void shared_edge(int *out, int n)\n"
    "{\n"
    "    extern __shared__ int s[];\n"
    "    int t = threadIdx.x;\n"
    "    if (t >= 2)\n"
    "        s[t + n] = t * 3;\n"
    "    __syncthreads();\n"
    "    out[t] = t >= 2 ? s[t + n] : -1;\n"
    "}\n";

static void test_rows(CUfunction f)
{
    int *in = malloc(N * sizeof *in);
    long long *out = malloc(N * sizeof *out), *want = malloc(N * sizeof *want);
    double *d = malloc(N * sizeof *d), *e = malloc(N * sizeof *e), *e_want = malloc(N * sizeof *e);
    for (int i = 0; i < N; i++) {
        in[i] = (int)(gpu_test_rng() % 2000001) - 1000000; /* negative ones widen with their sign */
        want[i] = (long long)in[i] * 3;
        d[i] = (double)(gpu_test_rng() % 1000) / 7.0;
        e_want[i] = d[i] * 0.5;
    }
    CUdeviceptr din = gpu_test_upload(in, N * sizeof *in), dd = gpu_test_upload(d, N * sizeof *d);
    CUdeviceptr dout = gpu_test_upload(want, N * sizeof *want),
                de = gpu_test_upload(e, N * sizeof *e);
    CHECK_CU(cuMemsetD8(dout, 0, N * sizeof *out));
    int n = N;
    void *args[] = {&din, &dout, &dd, &de, &n};
    if (gpu_test_run(f, (N + 127) / 128, 128, args)) {
        gpu_test_download(out, dout, N * sizeof *out);
        gpu_test_download(e, de, N * sizeof *e);
        CHECK_SAME(out, want, N);
        CHECK_SAME(e, e_want, N);
    }
    cuMemFree(din);
    cuMemFree(dd);
    free(in);
    free(out);
    free(want);
    free(d);
    free(e);
    free(e_want);
}

static void test_gaps(CUfunction f)
{
    int in[N], out[N], want[N];
    for (int i = 0; i < N; i++) {
        in[i] = (int)gpu_test_rng();
        out[i] = -7;
        want[i] = i % 3 != 0 ? in[i] + 1 : -7;
    }
    CUdeviceptr din = gpu_test_upload(in, sizeof in), dout = gpu_test_upload(out, sizeof out);
    int n = N;
    void *args[] = {&din, &dout, &n};
    if (gpu_test_run(f, (N + 255) / 256, 256, args) && gpu_test_download(out, dout, sizeof out))
        CHECK_SAME(out, want, N);
    cuMemFree(din);
}

static void test_sgemm(CUfunction f)
{
    static float a[MATRIX * MATRIX], b[MATRIX * MATRIX], c[MATRIX * MATRIX], want[MATRIX * MATRIX];
    for (int i = 0; i < MATRIX * MATRIX; i++) {
        a[i] = (float)(gpu_test_rng() % 17) - 8.0f; /* small integers: sums are exact */
        b[i] = (float)(gpu_test_rng() % 13) - 6.0f;
    }
    for (int r = 0; r < MATRIX; r++)
        for (int col = 0; col < MATRIX; col++) {
            float sum = 0.0f;
            for (int k = 0; k < MATRIX; k++)
                sum += a[r * MATRIX + k] * b[k * MATRIX + col];
            want[r * MATRIX + col] = sum;
        }
    CUdeviceptr da = gpu_test_upload(a, sizeof a), db = gpu_test_upload(b, sizeof b);
    CUdeviceptr dc = gpu_test_upload(c, sizeof c);
    int n = MATRIX, blocks = (MATRIX + TILE - 1) / TILE;
    void *args[] = {&da, &db, &dc, &n};
    if (gpu_test_run3(f, blocks, blocks, 1, TILE, TILE, 1, 0, args) &&
        gpu_test_download(c, dc, sizeof c))
        CHECK_SAME(c, want, MATRIX * MATRIX);
    cuMemFree(da);
    cuMemFree(db);
}

static void test_uniform_and_scattered(CUfunction f)
{
    enum { THREADS = 64, BLOCKS = (N + THREADS - 1) / THREADS };
    double d[BLOCKS], e[N], e_want[N];
    int in[N], out[N], want[N];
    for (int b = 0; b < BLOCKS; b++)
        d[b] = (double)b * 1.25;
    for (int i = 0; i < N; i++)
        in[i] = (int)gpu_test_rng();
    for (int i = 0; i < N; i++) {
        e_want[i] = d[i / THREADS] + i;
        want[i] = in[(i * 37) % N];
    }
    CUdeviceptr dd = gpu_test_upload(d, sizeof d), din = gpu_test_upload(in, sizeof in);
    CUdeviceptr de = gpu_test_upload(e, sizeof e), dout = gpu_test_upload(out, sizeof out);
    int n = N;
    void *args[] = {&dd, &din, &de, &dout, &n};
    if (gpu_test_run(f, BLOCKS, THREADS, args)) {
        gpu_test_download(e, de, sizeof e);
        gpu_test_download(out, dout, sizeof out);
        CHECK_SAME(e, e_want, N);
        CHECK_SAME(out, want, N);
    }
    cuMemFree(dd);
    cuMemFree(din);
}

static void test_last_lane_wins(CUfunction f)
{
    int word[2] = {0}, row[TILE] = {0}, word_want[2] = {15, 115}, row_want[TILE];
    for (int x = 0; x < TILE; x++)
        row_want[x] = 1; /* the second half's lanes come last */
    CUdeviceptr dword = gpu_test_upload(word, sizeof word), drow = gpu_test_upload(row, sizeof row);
    void *args[] = {&dword, &drow};
    if (gpu_test_run3(f, 1, 1, 1, TILE, 2, 1, 0, args)) {
        gpu_test_download(word, dword, sizeof word);
        gpu_test_download(row, drow, sizeof row);
        CHECK_SAME(word, word_want, 2);
        CHECK_SAME(row, row_want, TILE);
    }
}

static void test_shared_shapes(CUfunction f)
{
    int in[TILE * TILE], out[TILE * TILE], want[TILE * TILE];
    for (int i = 0; i < TILE * TILE; i++)
        in[i] = (int)(gpu_test_rng() % 1000);
    for (int y = 0; y < TILE; y++)
        for (int x = 0; x < TILE; x++)
            want[y * TILE + x] = in[x * TILE + y] * 1000000 + in[y * TILE] * 1000 + in[x];
    CUdeviceptr din = gpu_test_upload(in, sizeof in), dout = gpu_test_upload(out, sizeof out);
    void *args[] = {&din, &dout};
    if (gpu_test_run3(f, 1, 1, 1, TILE, TILE, 1, 0, args) &&
        gpu_test_download(out, dout, sizeof out))
        CHECK_SAME(out, want, TILE * TILE);
    cuMemFree(din);
}

static void test_row_from_lane5(CUfunction f)
{
    enum { ELEMENTS = 27 };
    int in[ELEMENTS], out[ELEMENTS], want[ELEMENTS];
    for (int i = 0; i < ELEMENTS; i++) {
        in[i] = (int)(gpu_test_rng() % 100000);
        want[i] = in[i] + 1;
    }
    CUdeviceptr din = gpu_test_upload(in, sizeof in), dout = gpu_test_upload(out, sizeof out);
    void *args[] = {&din, &dout};
    if (gpu_test_run(f, 1, 32, args) && gpu_test_download(out, dout, sizeof out))
        CHECK_SAME(out, want, ELEMENTS);
    cuMemFree(din);
}

static void test_far_pairs(CUfunction f)
{
    enum { THREADS = 64, A = 2000 + 8, B = 64, OFF = 13 }; /* b[13..28]: across a line */
    float a[A], out[THREADS], want[THREADS];
    double b[B], wide[THREADS], wide_want[THREADS];
    for (int i = 0; i < A; i++)
        a[i] = (float)i * 0.5f;
    for (int i = 0; i < B; i++)
        b[i] = (double)i * 1.5;
    for (int t = 0; t < THREADS; t++) {
        want[t] = a[(1 - t / 16 % 2) * 2000 + t / 32 * 3];
        wide_want[t] = b[OFF + t % 16];
    }
    CUdeviceptr da = gpu_test_upload(a, sizeof a), db = gpu_test_upload(b, sizeof b);
    CUdeviceptr dout = gpu_test_upload(out, sizeof out), dwide = gpu_test_upload(wide, sizeof wide);
    int off = OFF;
    void *args[] = {&da, &db, &dout, &dwide, &off};
    if (gpu_test_run(f, 1, THREADS, args)) {
        gpu_test_download(out, dout, sizeof out);
        gpu_test_download(wide, dwide, sizeof wide);
        CHECK_SAME(out, want, THREADS);
        CHECK_SAME(wide, wide_want, THREADS);
    }
    cuMemFree(da);
    cuMemFree(db);
}

static void test_shared_edge(CUfunction f)
{
    for (int n = 0; n <= 3; n++) {
        int out[32], want[32];
        for (int t = 0; t < 32; t++)
            want[t] = t >= 2 ? t * 3 : -1;
        CUdeviceptr dout = gpu_test_upload(out, sizeof out);
        void *args[] = {&dout, &n};
        if (gpu_test_run3(f, 1, 1, 1, 32, 1, 1, (unsigned)(32 + n) * sizeof(int), args) &&
            gpu_test_download(out, dout, sizeof out))
            CHECK_SAME(out, want, 32);
    }
}

int main(void)
{
    CUcontext context;
    CUmodule module;
    CUfunction rows, gaps, sgemm, uniform, last, shared, from5, far, edge;
    if (!gpu_test_start(&context))
        return gpu_test_summary();
    if (CHECK_CU(gpu_test_load_source(&module, source, "shapes.cu")) &&
        CHECK_CU(cuModuleGetFunction(&rows, module, "widen_rows")) &&
        CHECK_CU(cuModuleGetFunction(&gaps, module, "gaps")) &&
        CHECK_CU(cuModuleGetFunction(&sgemm, module, "sgemm")) &&
        CHECK_CU(cuModuleGetFunction(&uniform, module, "uniform_and_scattered")) &&
        CHECK_CU(cuModuleGetFunction(&last, module, "last_lane_wins")) &&
        CHECK_CU(cuModuleGetFunction(&shared, module, "shared_shapes")) &&
        CHECK_CU(cuModuleGetFunction(&from5, module, "row_from_lane5")) &&
        CHECK_CU(cuModuleGetFunction(&far, module, "far_pairs")) &&
        CHECK_CU(cuModuleGetFunction(&edge, module, "shared_edge"))) {
        test_rows(rows);
        test_gaps(gaps);
        test_sgemm(sgemm);
        test_uniform_and_scattered(uniform);
        test_last_lane_wins(last);
        test_shared_shapes(shared);
        test_row_from_lane5(from5);
        test_far_pairs(far);
        test_shared_edge(edge);
        CHECK_CU(cuModuleUnload(module));
    }
    CHECK_CU(cuCtxDestroy(context));
    return gpu_test_summary();
}
