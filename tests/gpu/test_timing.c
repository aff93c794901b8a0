/*
 * GPU tests of the timing model: cuEventElapsedTime must order kernels as a
 * real H100 does (coalescing, parallelism, fusion, bank conflicts, atomics),
 * give copies the time the DRAM bandwidth implies, be deterministic (the
 * same launch, any number of host threads), stop a hopelessly slow kernel at
 * its modeled-time budget but never one that finishes within it, and report its counters through
 * kgemu.h.
 */
#include "gpu_test.h"

#include <dlfcn.h>
#include <stdbool.h>

#include "emulator/kgemu.h"

#define M16  (16u * 1024 * 1024)
#define M100 100000000u

static const char *const source =
    "extern \"C\" __global__ void copy(const float *in, float *out, unsigned n)\n"
    "{\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) out[i] = in[i];\n"
    "}\n"
    "extern \"C\" __global__ void copy_strided(const float *in, float *out, unsigned n)\n"
    "{\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x, m = n / 32;\n"
    "    if (i < n) out[i] = in[(i % m) * 32 + i / m];\n"
    "}\n"
    "extern \"C\" __global__ void copy_one_thread(const float *in, float *out, unsigned n)\n"
    "{\n"
    "    for (unsigned i = 0; i < n; i++) out[i] = in[i];\n"
    "}\n"
    "extern \"C\" __global__ void copy_grid_stride(const float *in, float *out, unsigned n)\n"
    "{\n"
    "    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * "
    "blockDim.x)\n"
    "        out[i] = in[i];\n"
    "}\n"
    "extern \"C\" __global__ void col_sums(const float *m, float *out, int rows, int cols)\n"
    "{\n"
    "    int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    float total = 0.0f;\n"
    "    if (c < cols) {\n"
    "        for (int r = 0; r < rows; r++) total += m[r * cols + c];\n"
    "        out[c] = total;\n"
    "    }\n"
    "}\n"
    "#define CHASE(name, GENERIC)                                                      \\\n"
    "extern \"C\" __global__ void name(const int *next, int *out, int steps)           \\\n"
    "{                                                                                  \\\n"
    "    __shared__ int links[256];                                                     \\\n"
    "    links[threadIdx.x] = next[threadIdx.x];                                        \\\n"
    "    __syncthreads();                                                               \\\n"
    "    /* GENERIC: a pointer the compiler cannot place, so it reads with generic ld */ \\\n"
    "    const int *p = GENERIC && steps < 0 ? next : links;                            \\\n"
    "    int j = threadIdx.x;                                                           \\\n"
    "    for (int k = 0; k < steps; k++)                                                \\\n"
    "        j = p[j]; /* each load waits for the one before */                         \\\n"
    "    out[threadIdx.x] = j;                                                          \\\n"
    "}\n"
    "CHASE(chase_shared, 0)\n"
    "CHASE(chase_generic, 1)\n"
    "extern \"C\" __global__ void chase_global(const int *next, int *out, int steps)\n"
    "{\n"
    "    int j = threadIdx.x;\n"
    "    for (int k = 0; k < steps; k++) j = next[j]; /* each load waits for the one before */\n"
    "    out[threadIdx.x] = j;\n"
    "}\n"
    "extern \"C\" __global__ void normalize(const float *g, float *t, unsigned n)\n"
    "{ unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) t[i] = g[i] / 255.0f; }\n"
    "extern \"C\" __global__ void weigh(const float *t, const float *w, float *u, unsigned n)\n"
    "{ unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) u[i] = t[i] * w[i]; }\n"
    "extern \"C\" __global__ void activate(const float *u, float *out, unsigned n)\n"
    "{ unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tanhf(u[i]); }\n"
    "extern \"C\" __global__ void fused(const float *g, const float *w, float *out, unsigned n)\n"
    "{\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) out[i] = tanhf(g[i] / 255.0f * w[i]);\n"
    "}\n"
    "#define TRANSPOSE(name, PAD)                                                       \\\n"
    "extern \"C\" __global__ void name(const float *in, float *out, int rows, int cols) \\\n"
    "{                                                                                  \\\n"
    "    __shared__ float tile[32][32 + PAD];                                           \\\n"
    "    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;     \\\n"
    "    for (int j = 0; j < 32; j += 8)                                                \\\n"
    "        if (x < cols && y + j < rows)                                              \\\n"
    "            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];   \\\n"
    "    __syncthreads();                                                               \\\n"
    "    x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;         \\\n"
    "    for (int j = 0; j < 32; j += 8)                                                \\\n"
    "        if (x < rows && y + j < cols)                                              \\\n"
    "            out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];  \\\n"
    "}\n"
    "TRANSPOSE(transpose_padded, 1)\n"
    "TRANSPOSE(transpose_conflicted, 0)\n"
    "extern \"C\" __global__ void transpose_naive(const float *in, float *out, int rows, int "
    "cols)\n"
    "{\n"
    "    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;\n"
    "    for (int j = 0; j < 32; j += 8)\n"
    "        if (x < cols && y + j < rows)\n"
    "            out[(size_t)x * rows + y + j] = in[(size_t)(y + j) * cols + x];\n"
    "}\n"
    "extern \"C\" __global__ void hist_global(const float *x, unsigned n, int *hist)\n"
    "{\n"
    "    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * "
    "gridDim.x) {\n"
    "        int b = (int)((x[i] + 4.0f) / 0.8f);\n"
    "        if (b >= 0 && b < 10) atomicAdd(&hist[b], 1);\n"
    "    }\n"
    "}\n"
    "extern \"C\" __global__ void hist_shared(const float *x, unsigned n, int *hist)\n"
    "{\n"
    "    __shared__ int local[10];\n"
    "    if (threadIdx.x < 10) local[threadIdx.x] = 0;\n"
    "    __syncthreads();\n"
    "    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * "
    "gridDim.x) {\n"
    "        int b = (int)((x[i] + 4.0f) / 0.8f);\n"
    "        if (b >= 0 && b < 10) atomicAdd(&local[b], 1);\n"
    "    }\n"
    "    __syncthreads();\n"
    "    if (threadIdx.x < 10) atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);\n"
    "}\n"
    "#define DIVIDE(name, T, DIV)                                                       \\\n"
    "extern \"C\" __global__ void name(const T *in, T *out, int k)                       \\\n"
    "{                                                                                  \\\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;                            \\\n"
    "    T x = in[i], y = 1;                                                            \\\n"
    "    for (int j = 0; j < k; j++) y = DIV(x, y + 1); /* each waits for the last */   \\\n"
    "    out[i] = y;                                                                    \\\n"
    "}\n"
    "#define IEEE(a, b) ((a) / (b))\n"
    "DIVIDE(divide_ieee, float, IEEE)\n"
    "DIVIDE(divide_fast, float, __fdividef)\n"
    "DIVIDE(divide_f64, double, IEEE)\n";

static CUmodule module;
static int (*last_counters)(struct kgemu_counters *);
static int (*set_time_budget)(double);
static int (*last_fault)(struct kgemu_fault *);
static int (*set_registers)(void *, int);

static CUfunction kernel(const char *name)
{
    CUfunction f = NULL;
    CHECK_CU(cuModuleGetFunction(&f, module, name));
    return f;
}

/* Launches and returns what the events measured (ms). */
static float timed(CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned by, void **args)
{
    return gpu_test_timed(f, gx, gy, bx, by, 0, args);
}

static CUdeviceptr device_floats(size_t n, float value_scale)
{
    CUdeviceptr d = 0;
    float *h = malloc(n * sizeof *h);
    for (size_t i = 0; i < n; i++)
        h[i] = value_scale * (float)(i % 1000) / 1000.0f - value_scale / 2;
    CHECK_CU(cuMemAlloc(&d, n * sizeof *h));
    CHECK_CU(cuMemcpyHtoD(d, h, n * sizeof *h));
    free(h);
    return d;
}

static float copy_time(const char *name, CUdeviceptr in, CUdeviceptr out, unsigned n)
{
    void *args[] = {&in, &out, &n};
    return timed(kernel(name), (n + 255) / 256, 1, 256, 1, args);
}

static void coalescing_matters(CUdeviceptr in, CUdeviceptr out)
{
    float plain = copy_time("copy", in, out, M16);
    float strided = copy_time("copy_strided", in, out, M16);
    printf("copy 16M: coalesced %.4f ms, 128-byte stride %.4f ms (%.1fx)\n", plain, strided,
           strided / plain);
    CHECK(strided >= 3 * plain);
    /* 134 MB moved at ~3 TB/s */
    CHECK(plain >= 0.03f && plain <= 0.12f);
    struct kgemu_counters c;
    CHECK(last_counters(&c) == 1);
    /* every 128-byte line is read 8 times over (at least 99 % of them miss the L2) */
    CHECK(c.dram_read_bytes >= (uint64_t)M16 * 4 * 8 / 100 * 99);
}

static void parallelism_matters(CUdeviceptr in, CUdeviceptr out)
{
    unsigned n = 1u << 20;
    void *args[] = {&in, &out, &n};
    float one = timed(kernel("copy_one_thread"), 1, 1, 1, 1, args);
    float grid = copy_time("copy", in, out, n);
    printf("copy 1M: one thread %.4f ms, full grid %.4f ms (%.0fx)\n", one, grid, one / grid);
    CHECK(one >= 100 * grid);
    struct kgemu_counters c;
    last_counters(&c);
    CHECK(strcmp(c.limiter, "dram") == 0);
}

static void fusion_matters(CUdeviceptr g, CUdeviceptr w)
{
    unsigned n = M16;
    CUdeviceptr t, u, out;
    CHECK_CU(cuMemAlloc(&t, (size_t)n * 4));
    CHECK_CU(cuMemAlloc(&u, (size_t)n * 4));
    CHECK_CU(cuMemAlloc(&out, (size_t)n * 4));
    void *a1[] = {&g, &t, &n}, *a2[] = {&t, &w, &u, &n}, *a3[] = {&u, &out, &n};
    void *af[] = {&g, &w, &out, &n};
    unsigned blocks = (n + 255) / 256;
    float separate = timed(kernel("normalize"), blocks, 1, 256, 1, a1) +
                     timed(kernel("weigh"), blocks, 1, 256, 1, a2) +
                     timed(kernel("activate"), blocks, 1, 256, 1, a3);
    float fused = timed(kernel("fused"), blocks, 1, 256, 1, af);
    printf("hidden layer 16M: three kernels %.4f ms, fused %.4f ms (%.2fx)\n", separate, fused,
           separate / fused);
    CHECK(separate >= 1.8f * fused);
    cuMemFree(t), cuMemFree(u), cuMemFree(out);
}

/* One division of `name`'s loop (its k = 128 launch less its k = 64 one, per
 * warp and iteration): the SASS instructions it counted, by class. */
static void per_division(const char *name, CUdeviceptr in, CUdeviceptr out, double by_class[7],
                         float *ms)
{
    const unsigned blocks = 1024, threads = 256, warps = blocks * threads / 32;
    struct kgemu_counters c[2];
    for (int run = 0; run < 2; run++) {
        int k = 64 << run;
        void *args[] = {&in, &out, &k};
        ms[run] = timed(kernel(name), blocks, 1, threads, 1, args);
        CHECK(last_counters(&c[run]) == 1);
    }
    for (int k = 0; k < 7; k++)
        by_class[k] =
            (double)(c[1].warp_instructions[k] - c[0].warp_instructions[k]) / warps / 64.0;
}

/* What PTX hides: an IEEE division (the / operator, div.rn) is one PTX
 * instruction but a sequence of SASS instructions on a GPU (MUFU.RCP, FCHK,
 * five FFMAs, a branch around the slow path), __fdividef a MUFU.RCP and an
 * FMUL, a double division a MUFU.RCP64H and eight DFMAs. */
static void divisions_cost_their_sequences(CUdeviceptr in, CUdeviceptr out)
{
    double ieee[7], fast[7], f64[7];
    float ieee_ms[2], fast_ms[2], f64_ms[2];
    per_division("divide_ieee", in, out, ieee, ieee_ms);
    per_division("divide_fast", in, out, fast, fast_ms);
    per_division("divide_f64", in, out, f64, f64_ms);
    printf("per division: IEEE fp32 %.1f sfu %.1f control %.1f; __fdividef fp32 %.1f sfu %.1f; "
           "f64 fp64 %.1f sfu %.1f; 128 divisions: %.4f, %.4f, %.4f ms\n",
           ieee[0], ieee[3], ieee[5], fast[0], fast[3], f64[1], f64[3], ieee_ms[1], fast_ms[1],
           f64_ms[1]);
    CHECK(ieee[3] == 2 && fast[3] == 1 && f64[3] == 1); /* MUFU.RCP (and FCHK); MUFU.RCP64H */
    CHECK(ieee[0] >= 5 && ieee[5] >= 3 && fast[0] <= 2 && f64[1] >= 8);
    CHECK(ieee_ms[1] >= 1.5f * fast_ms[1]);
}

static void transposes(int rows, int cols)
{
    size_t n = (size_t)rows * cols;
    CUdeviceptr in = device_floats(n, 1), out;
    CHECK_CU(cuMemAlloc(&out, n * 4));
    void *args[] = {&in, &out, &rows, &cols};
    unsigned gx = (unsigned)(cols + 31) / 32, gy = (unsigned)(rows + 31) / 32;
    float padded = timed(kernel("transpose_padded"), gx, gy, 32, 8, args);
    float conflicted = timed(kernel("transpose_conflicted"), gx, gy, 32, 8, args);
    struct kgemu_counters c;
    last_counters(&c);
    CHECK_EQ(c.worst_bank_conflict_ways, 32);
    float naive = timed(kernel("transpose_naive"), gx, gy, 32, 8, args);
    printf("transpose %dx%d: 32x33 tile %.4f ms, 32x32 tile %.4f ms (%.2fx), naive %.4f ms "
           "(%.2fx)\n",
           rows, cols, padded, conflicted, conflicted / padded, naive, naive / padded);
    CHECK(conflicted >= 1.4f * padded);
    CHECK(naive >= 2 * padded);
    cuMemFree(in), cuMemFree(out);
}

static void atomics_matter(void)
{
    unsigned n = 8u << 20;
    CUdeviceptr x = device_floats(n, 8), hist;
    CHECK_CU(cuMemAlloc(&hist, 10 * sizeof(int)));
    void *args[] = {&x, &n, &hist};
    CHECK_CU(cuMemsetD32(hist, 0, 10));
    float global = timed(kernel("hist_global"), 1024, 1, 256, 1, args);
    int a[10], b[10];
    CHECK_CU(cuMemcpyDtoH(a, hist, sizeof a));
    CHECK_CU(cuMemsetD32(hist, 0, 10));
    float shared = timed(kernel("hist_shared"), 1024, 1, 256, 1, args);
    CHECK_CU(cuMemcpyDtoH(b, hist, sizeof b));
    CHECK(memcmp(a, b, sizeof a) == 0);
    printf("histogram 8M: global atomics %.4f ms, privatized %.4f ms (%.1fx)\n", global, shared,
           global / shared);
    CHECK(global >= 2 * shared);
    cuMemFree(x), cuMemFree(hist);
}

static void big_copy_takes_its_bandwidth(void)
{
    CUdeviceptr in, out;
    CHECK_CU(cuMemAlloc(&in, (size_t)M100 * 4));
    CHECK_CU(cuMemAlloc(&out, (size_t)M100 * 4));
    float ms = copy_time("copy", in, out, M100);
    printf("copy 100M: %.4f ms\n", ms);
    CHECK(ms >= 0.2f && ms <= 0.6f);
    cuMemFree(in), cuMemFree(out);
}

static void time_is_deterministic(CUdeviceptr in, CUdeviceptr out)
{
    float first = copy_time("copy_strided", in, out, M16 / 4);
    float again = copy_time("copy_strided", in, out, M16 / 4);
    setenv("KGEMU_THREADS", "1", 1);
    float one = copy_time("copy_strided", in, out, M16 / 4);
    setenv("KGEMU_THREADS", "2", 1);
    float two = copy_time("copy_strided", in, out, M16 / 4);
    unsetenv("KGEMU_THREADS");
    CHECK(first == again);
    CHECK(first == one);
    CHECK(first == two);
}

static void slow_kernels_stop_at_their_budget(CUdeviceptr in, CUdeviceptr out)
{
    unsigned n = M16;
    void *args[] = {&in, &out, &n};
    CHECK_EQ(set_time_budget(0.5), CUDA_SUCCESS);
    CHECK_CU(cuLaunchKernel(kernel("copy_one_thread"), 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    CHECK_CU_IS(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_TIMEOUT);
    struct kgemu_fault f;
    CHECK(last_fault(&f) == 1);
    CHECK(f.over_time_budget == 1);
    CHECK(strstr(f.message, "over its budget of 0.500 ms") != NULL);
    CHECK(f.bound_at_stop_ms > 0.5);
    /* the counters of the part that ran: the one block, stopped part way */
    struct kgemu_counters c;
    CHECK(last_counters(&c) == 1);
    CHECK_EQ(c.blocks_total, 1);
    CHECK_EQ(c.blocks_complete, 0);
    CHECK(c.global_requests > 0);
    CHECK(c.latency_ms > 0);
}

/* A grid of one small block per SM, each looping over its share, waits
 * on its loads' latency: it cannot be faster than its longest block,
 * however many blocks an SM could hold. */
static void few_blocks_wait_on_latency(CUdeviceptr in, CUdeviceptr out)
{
    unsigned n = M16;
    void *args[] = {&in, &out, &n};
    float full = copy_time("copy", in, out, n);
    float few = timed(kernel("copy_grid_stride"), 128, 1, 64, 1, args);
    struct kgemu_counters c;
    last_counters(&c);
    printf("copy 16M: full grid %.4f ms, 128 blocks of 64 threads %.4f ms (%.1fx, %s)\n", full, few,
           few / full, c.limiter);
    CHECK(strcmp(c.limiter, "latency") == 0);
    CHECK(few >= 4 * full);
}

/* Shared memory read through a generic pointer (C++ through a pointer,
 * every Numba kernel) has shared memory's latency, not global memory's:
 * a chain of dependent loads shows it. */
static void generic_shared_is_shared(void)
{
    int next[256], steps = 2000;
    for (int i = 0; i < 256; i++)
        next[i] = (i * 37 + 11) % 256;
    CUdeviceptr d_next, d_out;
    CHECK_CU(cuMemAlloc(&d_next, sizeof next));
    CHECK_CU(cuMemAlloc(&d_out, sizeof next));
    CHECK_CU(cuMemcpyHtoD(d_next, next, sizeof next));
    void *args[] = {&d_next, &d_out, &steps};
    float direct = timed(kernel("chase_shared"), 1, 1, 256, 1, args);
    float through = timed(kernel("chase_generic"), 1, 1, 256, 1, args);
    printf("a chain of 2000 shared loads: ld.shared %.4f ms, generic ld %.4f ms (%.2fx)\n", direct,
           through, through / direct);
    CHECK(through <= 1.2f * direct);
    cuMemFree(d_next), cuMemFree(d_out);
}

/* A chain of dependent global loads: within a block's share of the L1 (a
 * 1 KB array, read again and again) each hits there and takes the L1's
 * latency; a chain that reaches a new line at every step misses and waits
 * for memory each time. */
static void rereads_hit_the_l1(void)
{
    enum { SMALL = 256, LARGE = 1 << 22, STEP = 37 * 32 /* 37 lines */ };
    int steps = 2000, *next = malloc(LARGE * sizeof *next);
    CUdeviceptr d_small, d_large, d_out;
    for (int i = 0; i < LARGE; i++)
        next[i] = i < SMALL ? (i * 37 + 11) % SMALL : 0;
    CHECK_CU(cuMemAlloc(&d_small, SMALL * sizeof *next));
    CHECK_CU(cuMemcpyHtoD(d_small, next, SMALL * sizeof *next));
    for (int i = 0; i < LARGE; i++)
        next[i] = (i + STEP) % LARGE;
    CHECK_CU(cuMemAlloc(&d_large, LARGE * sizeof *next));
    CHECK_CU(cuMemcpyHtoD(d_large, next, LARGE * sizeof *next));
    CHECK_CU(cuMemAlloc(&d_out, 32 * sizeof *next));
    void *small_args[] = {&d_small, &d_out, &steps}, *large_args[] = {&d_large, &d_out, &steps};
    struct kgemu_counters c;
    float hits = timed(kernel("chase_global"), 1, 1, 32, 1, small_args);
    CHECK(last_counters(&c) == 1);
    CHECK(c.l1_hit_sectors * 100 >= c.global_sectors * 99); /* all but the first reads */
    float misses = timed(kernel("chase_global"), 1, 1, 32, 1, large_args);
    CHECK(last_counters(&c) == 1);
    CHECK(c.l1_hit_sectors == 0);
    printf("a chain of 2000 global loads: in the L1 %.4f ms, a new line each %.4f ms (%.1fx)\n",
           hits, misses, misses / hits);
    CHECK(misses >= 5 * hits);
    free(next);
    cuMemFree(d_small), cuMemFree(d_large), cuMemFree(d_out);
}

/* The budget stops a launch only when its final time is sure to be over
 * it: a budget a hair above a kernel's own time never stops it, whatever
 * the kernel's shape (regression: the reference of col-sums and of
 * hypot-stride was stopped at 1.25 times its own time). */
static float within_own_time(const char *name, unsigned gx, unsigned bx, void **args)
{
    CUfunction f = kernel(name);
    float alone = timed(f, gx, 1, bx, 1, args);
    CHECK_EQ(set_time_budget(alone * 1.001), CUDA_SUCCESS);
    CHECK_CU(cuLaunchKernel(f, gx, 1, 1, bx, 1, 1, 0, NULL, args, NULL));
    CUresult rc = cuCtxSynchronize();
    CHECK_EQ(set_time_budget(0), CUDA_SUCCESS);
    if (!CHECK_CU_IS(rc, CUDA_SUCCESS))
        printf("%s was stopped under a budget of 1.001 times its own %.4f ms\n", name, alone);
    return alone;
}

static void budgets_never_stop_a_kernel_within_them(CUdeviceptr in, CUdeviceptr out)
{
    unsigned n = M16, m = 1u << 20, one = 1;
    int rows = 1024, cols = 16384;
    void *copy_args[] = {&in, &out, &n}, *small_args[] = {&in, &out, &m};
    void *one_args[] = {&in, &out, &one}, *sums_args[] = {&in, &out, &rows, &cols};
    within_own_time("copy", (n + 255) / 256, 256, copy_args);
    within_own_time("copy_grid_stride", 128, 64, copy_args);
    within_own_time("copy_one_thread", 1, 1, small_args);
    within_own_time("copy_one_thread", 1, 1, one_args);
    within_own_time("col_sums", (unsigned)cols / 256, 256, sums_args);
}

/* ptxas's register count replaces the estimate: it sets occupancy, and a
 * block that needs more registers than an SM has cannot launch. */
static void registers_set_occupancy(CUdeviceptr in, CUdeviceptr out)
{
    CUfunction f = kernel("copy");
    unsigned n = 1u << 20;
    void *args[] = {&in, &out, &n};
    copy_time("copy", in, out, n);
    struct kgemu_counters c;
    last_counters(&c);
    CHECK_EQ(c.registers_exact, 0);
    CHECK(c.registers_per_thread >= 8 && c.registers_per_thread <= 32);
    CHECK_EQ(c.blocks_per_sm, 8); /* 256 threads: 2048 per SM allow 8 */
    CHECK_EQ(set_registers(f, 128), CUDA_SUCCESS);
    copy_time("copy", in, out, n);
    last_counters(&c);
    CHECK_EQ(c.registers_exact, 1);
    CHECK_EQ(c.registers_per_thread, 128);
    CHECK_EQ(c.blocks_per_sm, 2); /* 65,536 registers / (128 × 256) */
    CHECK_CU_IS(cuLaunchKernel(f, 1, 1, 1, 1024, 1, 1, 0, NULL, args, NULL),
                CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
    CHECK_EQ(set_registers(f, 0), CUDA_ERROR_INVALID_VALUE);
}

int main(void)
{
    CUdevice device;
    CUcontext ctx;
    CHECK_CU(cuInit(0));
    CHECK_CU(cuDeviceGet(&device, 0));
    CHECK_CU(cuCtxCreate(&ctx, NULL, 0, device));
    last_counters = (int (*)(struct kgemu_counters *))dlsym(RTLD_DEFAULT, "kgemu_last_counters");
    set_time_budget = (int (*)(double))dlsym(RTLD_DEFAULT, "kgemu_set_time_budget");
    last_fault = (int (*)(struct kgemu_fault *))dlsym(RTLD_DEFAULT, "kgemu_last_fault");
    set_registers = (int (*)(void *, int))dlsym(RTLD_DEFAULT, "kgemu_set_registers");
    if (!CHECK(last_counters && set_time_budget && last_fault && set_registers) ||
        !CHECK_CU(gpu_test_load_source(&module, source, "timing.cu")))
        return gpu_test_summary();
    CUdeviceptr in = device_floats(M16, 1), w = device_floats(M16, 1), out;
    CHECK_CU(cuMemAlloc(&out, (size_t)M16 * 4));
    coalescing_matters(in, out);
    parallelism_matters(in, out);
    fusion_matters(in, w);
    divisions_cost_their_sequences(in, out);
    transposes(4096, 4096);
    transposes(10000, 10000);
    atomics_matter();
    big_copy_takes_its_bandwidth();
    time_is_deterministic(in, out);
    registers_set_occupancy(in, out);
    few_blocks_wait_on_latency(in, out);
    generic_shared_is_shared();
    rereads_hit_the_l1();
    budgets_never_stop_a_kernel_within_them(in, out);
    slow_kernels_stop_at_their_budget(in, out); /* last: a timeout ends the context */
    return gpu_test_summary();
}
