/*
 * Shared memory and __syncthreads on the virtual GPU: a block-wise reverse,
 * tiled transposes (32x33 padded and 32x32 tiles) of matrices whose sizes
 * are not multiples of 32, a tiled matrix multiply, a tree reduction,
 * dynamic shared memory (extern __shared__, sized at launch, alone and next
 * to static arrays, holding two types), and __syncthreads_count, _and and
 * _or. Every output element is compared with the host's.
 *
 * The matrix multiply accumulates with fmaf in k order on both sides (tiles
 * padded with zeros as the kernel pads them), so the float results are
 * compared bit for bit.
 */
#include <math.h>

#include "gpu_test.h"

#define SHOW 5

static const char source[] =
    "#define TILE 32\n"
    "extern \"C\" __global__ void block_reverse(const int *in, int *out, int n)\n"
    "{\n"
    "    __shared__ int s[256];\n"
    "    int base = blockIdx.x * 256, t = threadIdx.x;\n"
    "    int count = n - base < 256 ? n - base : 256;\n"
    "    if (t < count) s[t] = in[base + t];\n"
    "    __syncthreads();\n"
    "    if (t < count) out[base + t] = s[count - 1 - t];\n"
    "}\n"
    "/* out (cols x rows) = transpose of in (rows x cols); blocks of 32 x 8. */\n"
    "#define TRANSPOSE(NAME, PAD)                                                 \\\n"
    "extern \"C\" __global__ void NAME(const float *in, float *out, int rows, int cols) \\\n"
    "{                                                                            \\\n"
    "    __shared__ float tile[TILE][TILE + PAD];                                 \\\n"
    "    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y; \\\n"
    "    for (int j = 0; j < TILE; j += 8)                                        \\\n"
    "        if (x < cols && y + j < rows)                                        \\\n"
    "            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x]; \\\n"
    "    __syncthreads();                                                         \\\n"
    "    x = blockIdx.y * TILE + threadIdx.x;                                     \\\n"
    "    y = blockIdx.x * TILE + threadIdx.y;                                     \\\n"
    "    for (int j = 0; j < TILE; j += 8)                                        \\\n"
    "        if (x < rows && y + j < cols)                                        \\\n"
    "            out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j]; \\\n"
    "}\n"
    "TRANSPOSE(transpose_33, 1)\n"
    "TRANSPOSE(transpose_32, 0)\n"
    "/* C (m x n) = A (m x k) B (k x n), 16 x 16 tiles. */\n"
    "extern \"C\" __global__ void matmul(const float *A, const float *B, float *C, int m,\n"
    "                                    int n, int k)\n"
    "{\n"
    "    __shared__ float As[16][16], Bs[16][16];\n"
    "    int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;\n"
    "    float acc = 0.0f;\n"
    "    for (int t = 0; t < k; t += 16) {\n"
    "        As[threadIdx.y][threadIdx.x] =\n"
    "            row < m && t + threadIdx.x < k ? A[row * k + t + threadIdx.x] : 0.0f;\n"
    "        Bs[threadIdx.y][threadIdx.x] =\n"
    "            t + threadIdx.y < k && col < n ? B[(t + threadIdx.y) * n + col] : 0.0f;\n"
    "        __syncthreads();\n"
    "        for (int j = 0; j < 16; j++)\n"
    "            acc = fmaf(As[threadIdx.y][j], Bs[j][threadIdx.x], acc);\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (row < m && col < n) C[row * n + col] = acc;\n"
    "}\n"
    "/* Sum of each block's elements by a tree in shared memory (blockDim 512). */\n"
    "extern \"C\" __global__ void tree_sum(const int *in, long long *out, int n)\n"
    "{\n"
    "    __shared__ long long s[512];\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    s[threadIdx.x] = i < n ? in[i] : 0;\n"
    "    __syncthreads();\n"
    "    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {\n"
    "        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];\n"
    "        __syncthreads();\n"
    "    }\n"
    "    if (threadIdx.x == 0) out[blockIdx.x] = s[0];\n"
    "}\n"
    "/* Inclusive scan of each block (Hillis-Steele) in dynamic shared memory:\n"
    " * blockDim ints, then (8-aligned) blockDim doubles. */\n"
    "extern \"C\" __global__ void dyn_scan(const int *in, long long *out, double *halves)\n"
    "{\n"
    "    extern __shared__ int dyn[];\n"
    "    int *vals = dyn;\n"
    "    double *d = (double *)(dyn + ((blockDim.x + 1) & ~1u));\n"
    "    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;\n"
    "    vals[t] = in[i];\n"
    "    d[t] = in[i] * 0.5;\n"
    "    __syncthreads();\n"
    "    for (int off = 1; off < blockDim.x; off <<= 1) {\n"
    "        int add = t >= off ? vals[t - off] : 0;\n"
    "        __syncthreads();\n"
    "        vals[t] += add;\n"
    "        __syncthreads();\n"
    "    }\n"
    "    out[i] = vals[t];\n"
    "    halves[i] = d[blockDim.x - 1 - t];\n"
    "}\n"
    "/* Static and dynamic shared memory in one kernel: they must not overlap. */\n"
    "extern \"C\" __global__ void static_and_dynamic(int *out)\n"
    "{\n"
    "    __shared__ int fixed[64];\n"
    "    extern __shared__ int dyn[];\n"
    "    int t = threadIdx.x;\n"
    "    fixed[t] = 1000 + t;\n"
    "    dyn[t] = 2000 + t;\n"
    "    dyn[t + 64] = 3000 + t;\n"
    "    __syncthreads();\n"
    "    out[blockIdx.x * 192 + t] = fixed[63 - t];\n"
    "    out[blockIdx.x * 192 + 64 + t] = dyn[127 - t];\n"
    "    out[blockIdx.x * 192 + 128 + t] = dyn[63 - t];\n"
    "}\n"
    "/* A 4-byte static variable and an extern array (the shfl_scan sample's\n"
    " * layout): the array starts at 16, past the static end. */\n"
    "extern \"C\" __global__ void count_and_extern(const int *in, int *out)\n"
    "{\n"
    "    __shared__ int count;\n"
    "    extern __shared__ int tail[];\n"
    "    if (threadIdx.x == 0) count = in[0];\n"
    "    tail[threadIdx.x] = in[threadIdx.x];\n"
    "    __syncthreads();\n"
    "    out[threadIdx.x] = tail[blockDim.x - 1 - threadIdx.x] + count;\n"
    "}\n"
    "extern \"C\" __global__ void sync_reduce(const int *in, int threshold, int *out)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int p = in[i] > threshold;\n"
    "    int count = __syncthreads_count(p);\n"
    "    int all = __syncthreads_and(p);\n"
    "    int any = __syncthreads_or(p);\n"
    "    out[3 * i] = count;\n"
    "    out[3 * i + 1] = all != 0;\n"
    "    out[3 * i + 2] = any != 0;\n"
    "}\n";

struct kernels {
    CUmodule module;
    CUfunction reverse, transpose_33, transpose_32, matmul, tree_sum, dyn_scan, both, sync_reduce,
        count_and_extern;
};

static void test_reverse(struct kernels *k)
{
    enum { N = 100003 };
    static int in[N], out[N], want[N];
    for (int i = 0; i < N; i++)
        in[i] = (int)(uint32_t)gpu_test_rng();
    for (int base = 0; base < N; base += 256) {
        int count = N - base < 256 ? N - base : 256;
        for (int t = 0; t < count; t++)
            want[base + t] = in[base + count - 1 - t];
    }
    int n = N;
    CUdeviceptr din = gpu_test_upload(in, sizeof in), dout = gpu_test_upload(NULL, sizeof out);
    void *args[] = {&din, &dout, &n};
    if (gpu_test_run(k->reverse, (N + 255) / 256, 256, args) &&
        gpu_test_download(out, dout, sizeof out))
        CHECK_SAME(out, want, N);
    cuMemFree(din);
}

static void test_transpose(CUfunction f, int rows, int cols)
{
    size_t count = (size_t)rows * cols;
    float *in = malloc(count * sizeof(float)), *out = malloc(count * sizeof(float));
    float *want = malloc(count * sizeof(float));
    if (!CHECK(in && out && want))
        return;
    for (size_t i = 0; i < count; i++)
        in[i] = (float)(uint32_t)gpu_test_rng() / 7.0f;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            want[(size_t)c * rows + r] = in[(size_t)r * cols + c];
    CUdeviceptr din = gpu_test_upload(in, count * sizeof(float));
    CUdeviceptr dout = gpu_test_upload(NULL, count * sizeof(float));
    void *args[] = {&din, &dout, &rows, &cols};
    if (gpu_test_run3(f, (unsigned)(cols + 31) / 32, (unsigned)(rows + 31) / 32, 1, 32, 8, 1, 0,
                      args) &&
        gpu_test_download(out, dout, count * sizeof(float))) {
        if (!CHECK_SAME(out, want, count))
            fprintf(stderr, "  (transposing %d x %d)\n", rows, cols);
    }
    cuMemFree(din);
    free(in);
    free(out);
    free(want);
}

static void test_transposes(struct kernels *k)
{
    static const int sizes[][2] = {{1000, 777}, {33, 65}, {1, 1000}, {1000, 1}, {64, 64}, {31, 2}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        test_transpose(k->transpose_33, sizes[s][0], sizes[s][1]);
        test_transpose(k->transpose_32, sizes[s][0], sizes[s][1]);
    }
}

static void test_matmul(struct kernels *k, int m, int n, int kk)
{
    float *a = malloc((size_t)m * kk * sizeof(float)), *b = malloc((size_t)kk * n * sizeof(float));
    float *c = malloc((size_t)m * n * sizeof(float)), *want = malloc((size_t)m * n * sizeof(float));
    if (!CHECK(a && b && c && want))
        return;
    for (int i = 0; i < m * kk; i++)
        a[i] = (float)((int)(gpu_test_rng() % 2001) - 1000) / 64.0f;
    for (int i = 0; i < kk * n; i++)
        b[i] = (float)((int)(gpu_test_rng() % 2001) - 1000) / 1024.0f + 0.1f;
    int padded = (kk + 15) / 16 * 16;
    for (int r = 0; r < m; r++)
        for (int col = 0; col < n; col++) {
            float acc = 0.0f;
            for (int j = 0; j < padded; j++)
                acc = fmaf(j < kk ? a[r * kk + j] : 0.0f, j < kk ? b[j * n + col] : 0.0f, acc);
            want[r * n + col] = acc;
        }
    CUdeviceptr da = gpu_test_upload(a, (size_t)m * kk * sizeof(float));
    CUdeviceptr db = gpu_test_upload(b, (size_t)kk * n * sizeof(float));
    CUdeviceptr dc = gpu_test_upload(NULL, (size_t)m * n * sizeof(float));
    void *args[] = {&da, &db, &dc, &m, &n, &kk};
    if (gpu_test_run3(k->matmul, (unsigned)(n + 15) / 16, (unsigned)(m + 15) / 16, 1, 16, 16, 1, 0,
                      args) &&
        gpu_test_download(c, dc, (size_t)m * n * sizeof(float)))
        CHECK_SAME(c, want, (size_t)m * n);
    cuMemFree(da);
    cuMemFree(db);
    free(a);
    free(b);
    free(c);
    free(want);
}

static void test_tree_sum(struct kernels *k)
{
    enum { N = 200000, BLOCK = 512, BLOCKS = (N + BLOCK - 1) / BLOCK };
    static int in[N];
    static long long out[BLOCKS], want[BLOCKS];
    memset(want, 0, sizeof want);
    for (int i = 0; i < N; i++) {
        in[i] = (int)(uint32_t)gpu_test_rng();
        want[i / BLOCK] += in[i];
    }
    int n = N;
    CUdeviceptr din = gpu_test_upload(in, sizeof in), dout = gpu_test_upload(NULL, sizeof out);
    void *args[] = {&din, &dout, &n};
    if (gpu_test_run(k->tree_sum, BLOCKS, BLOCK, args) && gpu_test_download(out, dout, sizeof out))
        CHECK_SAME(out, want, BLOCKS);
    cuMemFree(din);
}

static void test_dynamic(struct kernels *k, unsigned block, unsigned blocks)
{
    size_t n = (size_t)block * blocks;
    int *in = malloc(n * sizeof(int));
    long long *out = malloc(n * sizeof(long long)), *want = malloc(n * sizeof(long long));
    double *halves = malloc(n * sizeof(double)), *want_halves = malloc(n * sizeof(double));
    if (!CHECK(in && out && want && halves && want_halves))
        return;
    for (size_t i = 0; i < n; i++)
        in[i] = (int)(gpu_test_rng() % 2000001) - 1000000;
    for (size_t b = 0; b < blocks; b++) {
        long long sum = 0;
        for (size_t t = 0; t < block; t++) {
            sum = (int)((unsigned)sum + (unsigned)in[b * block + t]); /* ints in shared memory */
            want[b * block + t] = sum;
            want_halves[b * block + t] = in[b * block + block - 1 - t] * 0.5;
        }
    }
    unsigned shared = ((block + 1) & ~1u) * sizeof(int) + block * sizeof(double);
    CUdeviceptr din = gpu_test_upload(in, n * sizeof(int));
    CUdeviceptr dout = gpu_test_upload(NULL, n * sizeof(long long));
    CUdeviceptr dhalves = gpu_test_upload(NULL, n * sizeof(double));
    void *args[] = {&din, &dout, &dhalves};
    if (gpu_test_run3(k->dyn_scan, blocks, 1, 1, block, 1, 1, shared, args) &&
        gpu_test_download(out, dout, n * sizeof(long long)) &&
        gpu_test_download(halves, dhalves, n * sizeof(double))) {
        CHECK_SAME(out, want, n);
        CHECK_SAME(halves, want_halves, n);
    }
    cuMemFree(din);
    free(in);
    free(out);
    free(want);
    free(halves);
    free(want_halves);
}

static void test_static_and_dynamic(struct kernels *k)
{
    enum { BLOCKS = 5 };
    int out[BLOCKS * 192], want[BLOCKS * 192];
    for (int b = 0; b < BLOCKS; b++)
        for (int t = 0; t < 64; t++) {
            want[b * 192 + t] = 1000 + 63 - t;
            want[b * 192 + 64 + t] = 3000 + 63 - t;
            want[b * 192 + 128 + t] = 2000 + 63 - t;
        }
    CUdeviceptr dout = gpu_test_upload(NULL, sizeof out);
    void *args[] = {&dout};
    if (gpu_test_run3(k->both, BLOCKS, 1, 1, 64, 1, 1, 128 * sizeof(int), args) &&
        gpu_test_download(out, dout, sizeof out))
        CHECK_SAME(out, want, BLOCKS * 192);
}

/* Regression: the extern array starts at a 16-byte boundary after 4 static
 * bytes, and the block used to be sized 4 + dynamic, so the last threads'
 * stores faulted ("offset 516 of shared memory, which has 516 bytes"). */
static void test_static_then_extern(struct kernels *k)
{
    enum { THREADS = 128 };
    int in[THREADS], out[THREADS], want[THREADS];
    for (int t = 0; t < THREADS; t++)
        in[t] = 7 * t + 1;
    for (int t = 0; t < THREADS; t++)
        want[t] = in[THREADS - 1 - t] + in[0];
    CUdeviceptr din = gpu_test_upload(in, sizeof in), dout = gpu_test_upload(NULL, sizeof out);
    void *args[] = {&din, &dout};
    if (gpu_test_run3(k->count_and_extern, 3, 1, 1, THREADS, 1, 1, THREADS * sizeof(int), args) &&
        gpu_test_download(out, dout, sizeof out))
        CHECK_SAME(out, want, THREADS);
    cuMemFree(din);
    cuMemFree(dout);
}

static int shared_size(CUfunction f)
{
    int bytes = -1;
    CHECK_CU(cuFuncGetAttribute(&bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
    return bytes;
}

/* Each kernel of the module is charged its own static shared memory, as a
 * GPU reports it, and is timed as if it were alone in its module
 * (regression: every kernel was charged the module's total, which cut
 * occupancy and changed modeled times up to 3x). */
static void test_per_kernel_shared(struct kernels *k)
{
    CHECK_EQ(shared_size(k->reverse), 256 * 4);
    CHECK_EQ(shared_size(k->transpose_33), 32 * 33 * 4);
    CHECK_EQ(shared_size(k->transpose_32), 32 * 32 * 4);
    CHECK_EQ(shared_size(k->matmul), 2 * 16 * 16 * 4);
    CHECK_EQ(shared_size(k->tree_sum), 512 * 8);
    CHECK_EQ(shared_size(k->dyn_scan), 0);
    CHECK_EQ(shared_size(k->both), 64 * 4);
    CHECK_EQ(shared_size(k->count_and_extern), 4);
    CHECK_EQ(shared_size(k->sync_reduce), 0);
    const char *alone_source = strstr(source, "extern \"C\" __global__ void tree_sum(");
    const char *end = strstr(alone_source, "/* Inclusive scan");
    char alone[2048];
    CUmodule module;
    CUfunction tree_sum;
    enum { N = 1 << 20 };
    CUdeviceptr in = gpu_test_upload(NULL, N * sizeof(int)),
                out = gpu_test_upload(NULL, N / 512 * sizeof(long long));
    int n = N;
    void *args[] = {&in, &out, &n};
    snprintf(alone, sizeof alone, "%.*s", (int)(end - alone_source), alone_source);
    if (CHECK_CU(gpu_test_load_source(&module, alone, "tree_sum.cu")) &&
        CHECK_CU(cuModuleGetFunction(&tree_sum, module, "tree_sum"))) {
        float in_module = gpu_test_timed(k->tree_sum, N / 512, 1, 512, 1, 0, args);
        float by_itself = gpu_test_timed(tree_sum, N / 512, 1, 512, 1, 0, args);
        printf("  tree_sum: %.4f ms in a module of nine kernels, %.4f ms alone\n", in_module,
               by_itself);
        CHECK(in_module > 0 && in_module == by_itself);
        CHECK_CU(cuModuleUnload(module));
    }
    cuMemFree(in);
    cuMemFree(out);
}

/* cp.async and mbarrier, through inline PTX as cuda_pipeline.h and
 * cuda::barrier write them. */
static const char async_source[] =
    "__device__ unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }\n"
    "__device__ void bar_init(unsigned b, unsigned count)\n"
    "{ asm volatile(\"mbarrier.init.shared.b64 [%0], %1;\" :: \"r\"(b), \"r\"(count)); }\n"
    "__device__ unsigned long long arrive(unsigned b)\n"
    "{ unsigned long long s;\n"
    "  asm volatile(\"mbarrier.arrive.shared::cta.b64 %0, [%1];\" : \"=l\"(s) : \"r\"(b) : "
    "\"memory\");\n"
    "  return s; }\n"
    "__device__ unsigned long long arrive_drop(unsigned b)\n"
    "{ unsigned long long s;\n"
    "  asm volatile(\"mbarrier.arrive_drop.shared.b64 %0, [%1];\" : \"=l\"(s) : \"r\"(b) : "
    "\"memory\");\n"
    "  return s; }\n"
    "__device__ bool test_wait(unsigned b, unsigned long long s)\n"
    "{ unsigned done; asm volatile(\"{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [%1], %2;\"\n"
    "  \" selp.u32 %0, 1, 0, p; }\" : \"=r\"(done) : \"r\"(b), \"l\"(s) : \"memory\"); return "
    "done; }\n"
    "__device__ bool try_wait_parity(unsigned b, unsigned parity)\n"
    "{ unsigned done; asm volatile(\"{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%1], "
    "%2;\"\n"
    "  \" selp.u32 %0, 1, 0, p; }\" : \"=r\"(done) : \"r\"(b), \"r\"(parity) : \"memory\");\n"
    "  return done; }\n"
    "/* Each thread copies one float with cp.async (zeros past n), arrives with\n"
    " * cp.async.mbarrier.arrive.noinc, and waits for phase 0 by parity; the\n"
    " * block then reverses the tile. */\n"
    "extern \"C\" __global__ void async_reverse(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float stage[256];\n"
    "    __shared__ unsigned long long bar;\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    unsigned b = smem(&bar);\n"
    "    if (threadIdx.x == 0) bar_init(b, blockDim.x);\n"
    "    __syncthreads();\n"
    "    const float *from = in + (i < n ? i : 0);\n"
    "    asm volatile(\"cp.async.ca.shared.global [%0], [%1], 4, %2;\"\n"
    "                 :: \"r\"(smem(&stage[threadIdx.x])), \"l\"(from), \"r\"(i < n ? 4 : 0) : "
    "\"memory\");\n"
    "    asm volatile(\"cp.async.commit_group;\");\n"
    "    asm volatile(\"cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\" :: \"r\"(b) : "
    "\"memory\");\n"
    "    while (!try_wait_parity(b, 0)) ;\n"
    "    asm volatile(\"cp.async.wait_all;\" ::: \"memory\");\n"
    "    if (i < n) out[i] = stage[blockDim.x - 1 - threadIdx.x];\n"
    "}\n"
    "/* Two phases of one mbarrier, arrived at by lane 0 of each warp; the last\n"
    " * warp leaves after the first (arrive_drop). Each round's values are\n"
    " * written before the arrival and summed after the wait. */\n"
    "extern \"C\" __global__ void two_phases(int *out, unsigned long long *pending)\n"
    "{\n"
    "    __shared__ unsigned long long bar;\n"
    "    __shared__ int data[2][32];\n"
    "    unsigned b = smem(&bar), warp = threadIdx.x / 32, warps = blockDim.x / 32;\n"
    "    if (threadIdx.x == 0) bar_init(b, warps);\n"
    "    __syncthreads();\n"
    "    for (int round = 0; round < 2; round++) {\n"
    "        if (round == 1 && warp == warps - 1) return;\n"
    "        unsigned long long state = 0;\n"
    "        if (threadIdx.x % 32 == 0) {\n"
    "            data[round][warp] = round * 100 + warp;\n"
    "            state = round == 0 && warp == warps - 1 ? arrive_drop(b) : arrive(b);\n"
    "            unsigned count;\n"
    "            asm volatile(\"mbarrier.pending_count.b64 %0, %1;\" : \"=r\"(count) : "
    "\"l\"(state));\n"
    "            if (round == 0 && blockIdx.x == 0) pending[warp] = count;\n"
    "        }\n"
    "        state = __shfl_sync(0xffffffff, state, 0);\n"
    "        while (!test_wait(b, state)) ;\n"
    "        int sum = 0;\n"
    "        for (unsigned w = 0; w < warps - round; w++) sum += data[round][w];\n"
    "        out[(blockIdx.x * 2 + round) * blockDim.x + threadIdx.x] = sum;\n"
    "    }\n"
    "}\n";

static void test_async_reverse(CUfunction f, int n)
{
    enum { THREADS = 256 };
    int blocks = (n + THREADS - 1) / THREADS;
    float *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)n * sizeof *out);
    float *want = malloc((size_t)n * sizeof *want);
    if (!CHECK(in && out && want))
        return;
    for (int i = 0; i < n; i++)
        in[i] = (float)i * 0.5f;
    for (int i = 0; i < n; i++) {
        int block = i / THREADS, t = i % THREADS, j = block * THREADS + THREADS - 1 - t;
        want[i] = j < n ? in[j] : 0.0f; /* past n: the zeros cp.async filled */
    }
    CUdeviceptr din = gpu_test_upload(in, (size_t)n * sizeof *in);
    CUdeviceptr dout = gpu_test_upload(NULL, (size_t)n * sizeof *out);
    void *args[] = {&din, &dout, &n};
    if (gpu_test_run(f, (unsigned)blocks, THREADS, args) &&
        gpu_test_download(out, dout, (size_t)n * sizeof *out))
        CHECK_SAME(out, want, (size_t)n);
    cuMemFree(din);
    cuMemFree(dout);
    free(in);
    free(out);
    free(want);
}

static void test_two_phases(CUfunction f)
{
    enum { BLOCKS = 3, THREADS = 128, WARPS = THREADS / 32 };
    int out[BLOCKS * 2 * THREADS], want[BLOCKS * 2 * THREADS];
    unsigned long long pending[WARPS];
    for (int b = 0; b < BLOCKS; b++)
        for (int round = 0; round < 2; round++)
            for (int t = 0; t < THREADS; t++) {
                int sum = 0, last = t / 32 == WARPS - 1;
                for (int w = 0; w < WARPS - round; w++)
                    sum += round * 100 + w;
                want[(b * 2 + round) * THREADS + t] = round == 1 && last ? -1 : sum;
            }
    CUdeviceptr dout = gpu_test_upload(NULL, sizeof out),
                dpending = gpu_test_upload(NULL, sizeof pending);
    CHECK_CU(cuMemsetD32(dout, 0xFFFFFFFFu, BLOCKS * 2 * THREADS));
    void *args[] = {&dout, &dpending};
    if (gpu_test_run(f, BLOCKS, THREADS, args) && gpu_test_download(out, dout, sizeof out) &&
        gpu_test_download(pending, dpending, sizeof pending)) {
        CHECK_SAME(out, want, (size_t)BLOCKS * 2 * THREADS);
        /* the state is the barrier before the arrival: 4, 3, 2 and 1 pending */
        for (int w = 0; w < WARPS; w++)
            CHECK_EQ(pending[w], (unsigned long long)(WARPS - w));
    }
    cuMemFree(dout);
    cuMemFree(dpending);
}

static void test_async(void)
{
    CUmodule module;
    CUfunction reverse, phases;
    if (!CHECK_CU(gpu_test_load_source(&module, async_source, "async.cu")) ||
        !CHECK_CU(cuModuleGetFunction(&reverse, module, "async_reverse")) ||
        !CHECK_CU(cuModuleGetFunction(&phases, module, "two_phases")))
        return;
    test_async_reverse(reverse, 256 * 7);
    test_async_reverse(reverse, 1000);
    test_two_phases(phases);
    CHECK_CU(cuModuleUnload(module));
}

static void test_sync_reduce(struct kernels *k, unsigned block)
{
    enum { BLOCKS = 12 };
    size_t n = (size_t)block * BLOCKS;
    int *in = malloc(n * sizeof(int)), *out = malloc(3 * n * sizeof(int));
    int *want = malloc(3 * n * sizeof(int));
    if (!CHECK(in && out && want))
        return;
    for (size_t b = 0; b < BLOCKS; b++)
        for (size_t t = 0; t < block; t++) {
            size_t i = b * block + t;
            switch (b % 4) {
            case 0: /* all false */
                in[i] = -1;
                break;
            case 1: /* all true */
                in[i] = 1000;
                break;
            case 2: /* one true, the last thread */
                in[i] = t == block - 1 ? 5 : 0;
                break;
            default:
                in[i] = (int)(gpu_test_rng() % 100);
                break;
            }
        }
    int threshold = 0;
    for (size_t b = 0; b < BLOCKS; b++) {
        int count = 0;
        for (size_t t = 0; t < block; t++)
            count += in[b * block + t] > threshold;
        for (size_t t = 0; t < block; t++) {
            size_t i = b * block + t;
            want[3 * i] = count;
            want[3 * i + 1] = count == (int)block;
            want[3 * i + 2] = count > 0;
        }
    }
    CUdeviceptr din = gpu_test_upload(in, n * sizeof(int));
    CUdeviceptr dout = gpu_test_upload(NULL, 3 * n * sizeof(int));
    void *args[] = {&din, &threshold, &dout};
    if (gpu_test_run(k->sync_reduce, BLOCKS, block, args) &&
        gpu_test_download(out, dout, 3 * n * sizeof(int)))
        CHECK_SAME(out, want, 3 * n);
    cuMemFree(din);
    free(in);
    free(out);
    free(want);
}

int main(void)
{
    CUcontext context;
    struct kernels k;
    if (!gpu_test_start(&context))
        return gpu_test_summary();
    if (CHECK_CU(gpu_test_load_source(&k.module, source, "shared.cu")) &&
        CHECK_CU(cuModuleGetFunction(&k.reverse, k.module, "block_reverse")) &&
        CHECK_CU(cuModuleGetFunction(&k.transpose_33, k.module, "transpose_33")) &&
        CHECK_CU(cuModuleGetFunction(&k.transpose_32, k.module, "transpose_32")) &&
        CHECK_CU(cuModuleGetFunction(&k.matmul, k.module, "matmul")) &&
        CHECK_CU(cuModuleGetFunction(&k.tree_sum, k.module, "tree_sum")) &&
        CHECK_CU(cuModuleGetFunction(&k.dyn_scan, k.module, "dyn_scan")) &&
        CHECK_CU(cuModuleGetFunction(&k.both, k.module, "static_and_dynamic")) &&
        CHECK_CU(cuModuleGetFunction(&k.sync_reduce, k.module, "sync_reduce")) &&
        CHECK_CU(cuModuleGetFunction(&k.count_and_extern, k.module, "count_and_extern"))) {
        test_reverse(&k);
        test_transposes(&k);
        test_matmul(&k, 100, 130, 70);
        test_matmul(&k, 16, 16, 16);
        test_matmul(&k, 1, 37, 200);
        test_tree_sum(&k);
        test_dynamic(&k, 256, 40);
        test_dynamic(&k, 64, 100);
        test_dynamic(&k, 1000, 7);
        test_dynamic(&k, 33, 9);
        test_static_and_dynamic(&k);
        test_static_then_extern(&k);
        test_per_kernel_shared(&k);
        test_async();
        test_sync_reduce(&k, 256);
        test_sync_reduce(&k, 100);
        test_sync_reduce(&k, 1024);
        CHECK_CU(cuModuleUnload(k.module));
    }
    CHECK_CU(cuCtxDestroy(context));
    return gpu_test_summary();
}
