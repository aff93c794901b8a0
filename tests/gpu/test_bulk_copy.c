/*
 * sm_90's bulk copies on the virtual GPU: cp.async.bulk between global and
 * shared memory, completing on an mbarrier's transaction count or in a
 * bulk group.
 *
 * The first kernel is what CUDA C++ writes: cuda::memcpy_async into shared
 * memory with a cuda::barrier and a 16-byte aligned size (<cuda/barrier>),
 * which NVRTC compiles for sm_90 into cp.async.bulk …
 * .mbarrier::complete_tx::bytes followed by mbarrier.expect_tx (the copy's
 * bytes may complete before they are expected), an arrive and a try_wait
 * loop. It copies tiles the way siboehm's SGEMM kernel 12 does: a whole
 * tile from one thread, 16 bytes from every thread, 4-byte cp.async from
 * every thread, into two buffers with two barriers taken in turn, so each
 * barrier goes through several phases. The second kernel is inline PTX in
 * the order a tensor-memory-accelerator kernel uses: one thread's
 * mbarrier.arrive.expect_tx before the copy, the others waiting on the
 * phase's parity, then the tile written back with the shared-to-global
 * form in a bulk group (commit_group, wait_group.read). Results are
 * checked element by element; a copy's size, alignment and bounds fault
 * with their messages; the timing model counts the bytes a copy reads; the
 * loader refuses cp.async.bulk.tensor by name.
 */
#include "gpu_test.h"

#define TILE    2048 /* floats: 8 KB */
#define THREADS 256
#define TILES   5
#define BLOCKS  3

static const char source[] =
    "#include <cuda/barrier>\n"
    "typedef cuda::barrier<cuda::thread_scope_block> barrier_t;\n"
    "#define TILE 2048\n"
    "\n"
    "/* A tile of 256 threads: its first quarter copied whole by thread 0, the\n"
    " * next half 16 bytes a thread, the last quarter 4 bytes a thread (two\n"
    " * copies each). */\n"
    "__device__ void load(float *buf, const float *src, barrier_t &bar)\n"
    "{\n"
    "    unsigned t = threadIdx.x;\n"
    "    if (t == 0)\n"
    "        cuda::memcpy_async(buf, src, cuda::aligned_size_t<16>(TILE / 4 * sizeof(float)), "
    "bar);\n"
    "    cuda::memcpy_async(buf + TILE / 4 + 4 * t, src + TILE / 4 + 4 * t,\n"
    "                       cuda::aligned_size_t<16>(4 * sizeof(float)), bar);\n"
    "    for (int k = 0; k < 2; k++)\n"
    "        cuda::memcpy_async(buf + 3 * TILE / 4 + 256 * k + t, src + 3 * TILE / 4 + 256 * k + "
    "t,\n"
    "                           cuda::aligned_size_t<4>(sizeof(float)), bar);\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void __launch_bounds__(256) tiles(const float *in, float *out,\n"
    "                                                         int tiles)\n"
    "{\n"
    "    __shared__ alignas(16) float buf[2][TILE];\n"
    "#pragma nv_diag_suppress static_var_with_dynamic_init\n"
    "    __shared__ barrier_t bars[2];\n"
    "    if (threadIdx.x == 0) {\n"
    "        init(&bars[0], blockDim.x);\n"
    "        init(&bars[1], blockDim.x);\n"
    "    }\n"
    "    __syncthreads();\n"
    "    const float *src = in + (size_t)blockIdx.x * tiles * TILE;\n"
    "    float *dst = out + (size_t)blockIdx.x * tiles * TILE;\n"
    "    load(buf[0], src, bars[0]);\n"
    "    for (int t = 0; t < tiles; t++) {\n"
    "        if (t + 1 < tiles)\n"
    "            load(buf[(t + 1) % 2], src + (t + 1) * TILE, bars[(t + 1) % 2]);\n"
    "        bars[t % 2].arrive_and_wait();\n"
    "        for (int i = threadIdx.x; i < TILE; i += blockDim.x)\n"
    "            dst[t * TILE + i] = 2.0f * buf[t % 2][i];\n"
    "        __syncthreads(); /* before the buffer is loaded again */\n"
    "    }\n"
    "}\n"
    "\n"
    "/* Thread 0 expects the tile's bytes and arrives, then copies; every\n"
    " * thread waits for phase 0; each adds 1 to its elements in shared\n"
    " * memory, and thread 0 writes the tile back with a bulk copy. */\n"
    "extern \"C\" __global__ void expect_first(const float *in, float *out)\n"
    "{\n"
    "    __shared__ alignas(16) float tile[TILE];\n"
    "    __shared__ alignas(8) unsigned long long bar;\n"
    "    unsigned b = (unsigned)__cvta_generic_to_shared(&bar);\n"
    "    unsigned s = (unsigned)__cvta_generic_to_shared(tile);\n"
    "    const float *src = in + (size_t)blockIdx.x * TILE;\n"
    "    float *dst = out + (size_t)blockIdx.x * TILE;\n"
    "    if (threadIdx.x == 0)\n"
    "        asm volatile(\"mbarrier.init.shared::cta.b64 [%0], %1;\" :: \"r\"(b), \"r\"(1));\n"
    "    __syncthreads();\n"
    "    if (threadIdx.x == 0) {\n"
    "        asm volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\"\n"
    "                     :: \"r\"(b), \"r\"(TILE * 4) : \"memory\");\n"
    "        asm volatile(\"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes\"\n"
    "                     \" [%0], [%1], %2, [%3];\"\n"
    "                     :: \"r\"(s), \"l\"(src), \"r\"(TILE * 4), \"r\"(b) : \"memory\");\n"
    "    }\n"
    "    unsigned done = 0;\n"
    "    while (!done)\n"
    "        asm volatile(\"{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], "
    "0;\"\n"
    "                     \" selp.u32 %0, 1, 0, p; }\" : \"=r\"(done) : \"r\"(b) : \"memory\");\n"
    "    for (int i = threadIdx.x; i < TILE; i += blockDim.x)\n"
    "        tile[i] += 1.0f;\n"
    "    asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n"
    "    __syncthreads();\n"
    "    if (threadIdx.x == 0) {\n"
    "        asm volatile(\"cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\"\n"
    "                     :: \"l\"(dst), \"r\"(s), \"r\"(TILE * 4) : \"memory\");\n"
    "        asm volatile(\"cp.async.bulk.commit_group;\");\n"
    "        asm volatile(\"cp.async.bulk.wait_group.read 0;\" ::: \"memory\");\n"
    "    }\n"
    "}\n"
    "\n"
    "__device__ unsigned phase_done(unsigned b, unsigned parity)\n"
    "{\n"
    "    unsigned done;\n"
    "    asm volatile(\"{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\"\n"
    "                 \" selp.u32 %0, 1, 0, p; }\" : \"=r\"(done) : \"r\"(b), \"r\"(parity) : "
    "\"memory\");\n"
    "    return done;\n"
    "}\n"
    "\n"
    "/* One thread's phases of an mbarrier of one arrival: out[k] = whether the\n"
    " * phase is complete at step k. Phase 0 expects 64 bytes at its arrival,\n"
    " * completed in two parts; in phase 1 the bytes complete before they are\n"
    " * expected. */\n"
    "extern \"C\" __global__ void transactions(unsigned *out)\n"
    "{\n"
    "    __shared__ alignas(8) unsigned long long bar;\n"
    "    unsigned b = (unsigned)__cvta_generic_to_shared(&bar);\n"
    "    asm volatile(\"mbarrier.init.shared::cta.b64 [%0], %1;\" :: \"r\"(b), \"r\"(1));\n"
    "    out[0] = phase_done(b, 0);\n"
    "    asm volatile(\"mbarrier.arrive.expect_tx.relaxed.cta.shared::cta.b64 _, [%0], 64;\"\n"
    "                 :: \"r\"(b) : \"memory\");\n"
    "    out[1] = phase_done(b, 0);\n"
    "    asm volatile(\"mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], 32;\" :: "
    "\"r\"(b));\n"
    "    out[2] = phase_done(b, 0);\n"
    "    asm volatile(\"mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], 32;\" :: "
    "\"r\"(b));\n"
    "    out[3] = phase_done(b, 0);\n"
    "    asm volatile(\"mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], 16;\" :: "
    "\"r\"(b));\n"
    "    asm volatile(\"mbarrier.arrive.shared::cta.b64 _, [%0];\" :: \"r\"(b) : \"memory\");\n"
    "    out[4] = phase_done(b, 1);\n"
    "    asm volatile(\"mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], 16;\" :: \"r\"(b));\n"
    "    out[5] = phase_done(b, 1);\n"
    "}\n"
    "\n"
    "/* One bulk copy of `bytes` from in + offset (bytes) to shared memory. */\n"
    "extern \"C\" __global__ void one_copy(const char *in, long long offset, unsigned bytes)\n"
    "{\n"
    "    __shared__ alignas(16) char tile[4096];\n"
    "    __shared__ alignas(8) unsigned long long bar;\n"
    "    unsigned b = (unsigned)__cvta_generic_to_shared(&bar);\n"
    "    unsigned s = (unsigned)__cvta_generic_to_shared(tile);\n"
    "    asm volatile(\"mbarrier.init.shared::cta.b64 [%0], %1;\" :: \"r\"(b), \"r\"(1));\n"
    "    asm volatile(\"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes\"\n"
    "                 \" [%0], [%1], %2, [%3];\"\n"
    "                 :: \"r\"(s), \"l\"(in + offset), \"r\"(bytes), \"r\"(b) : \"memory\");\n"
    "}\n";

struct kernels {
    CUmodule module;
    CUfunction tiles, expect_first, transactions, one_copy;
};

static int load(struct kernels *k)
{
    static char cccl[4200];
    snprintf(cccl, sizeof cccl, "%s/cccl", gpu_test_toolkit_include());
    const char *options[] = {gpu_test_toolkit_include(), cccl, "-std=c++17"};
    return CHECK_CU(gpu_test_load_source_options(&k->module, source, "bulk_copy.cu", 3, options)) &&
           CHECK_CU(cuModuleGetFunction(&k->tiles, k->module, "tiles")) &&
           CHECK_CU(cuModuleGetFunction(&k->expect_first, k->module, "expect_first")) &&
           CHECK_CU(cuModuleGetFunction(&k->transactions, k->module, "transactions")) &&
           CHECK_CU(cuModuleGetFunction(&k->one_copy, k->module, "one_copy"));
}

/* Every element of `in` made distinct, so a misplaced copy shows. */
static void fill(float *in, int n)
{
    for (int i = 0; i < n; i++)
        in[i] = (float)i * 0.5f - 77.0f;
}

static void test_memcpy_async(const struct kernels *k)
{
    int n = BLOCKS * TILES * TILE, tiles = TILES;
    float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    float *want = malloc(n * sizeof *want);
    if (!CHECK(in && out && want))
        goto done;
    fill(in, n);
    for (int i = 0; i < n; i++)
        want[i] = 2.0f * in[i];
    CUdeviceptr din = gpu_test_upload(in, n * sizeof *in),
                dout = gpu_test_upload(NULL, n * sizeof *out);
    void *args[] = {&din, &dout, &tiles};
    if (din && dout && gpu_test_run(k->tiles, BLOCKS, THREADS, args) &&
        gpu_test_download(out, dout, n * sizeof *out))
        CHECK_SAME(out, want, n);
    cuMemFree(din);
done:
    free(in);
    free(out);
    free(want);
}

static void test_expect_first(const struct kernels *k)
{
    int n = BLOCKS * TILE;
    float in[BLOCKS * TILE], out[BLOCKS * TILE], want[BLOCKS * TILE];
    fill(in, n);
    for (int i = 0; i < n; i++)
        want[i] = in[i] + 1.0f;
    CUdeviceptr din = gpu_test_upload(in, sizeof in), dout = gpu_test_upload(NULL, sizeof out);
    void *args[] = {&din, &dout};
    if (din && dout && gpu_test_run(k->expect_first, BLOCKS, 128, args) &&
        gpu_test_download(out, dout, sizeof out))
        CHECK_SAME(out, want, n);
    cuMemFree(din);
}

/* A phase completes when its arrivals and its bytes are all in, in either
 * order. */
static void test_transactions(const struct kernels *k)
{
    unsigned out[6], want[6] = {0, 0, 0, 1, 0, 1};
    CUdeviceptr dout = gpu_test_upload(NULL, sizeof out);
    void *args[] = {&dout};
    if (dout && gpu_test_run(k->transactions, 1, 1, args) &&
        gpu_test_download(out, dout, sizeof out))
        CHECK_SAME(out, want, 6);
}

/* A copy that reads the whole input once: the timing model counts its
 * bytes as read from DRAM, and its sectors. */
static void test_timing(const struct kernels *k)
{
    int (*counters_of)(struct kgemu_counters *);
    *(void **)&counters_of = dlsym(RTLD_DEFAULT, "kgemu_last_counters");
    if (counters_of == NULL)
        return;
    static char in[4096];
    CUdeviceptr din = gpu_test_upload(in, sizeof in);
    long long offset = 0;
    unsigned bytes = sizeof in;
    void *args[] = {&din, &offset, &bytes};
    struct kgemu_counters c;
    memset(&c, 0, sizeof c);
    if (din && gpu_test_run(k->one_copy, 1, 1, args) && CHECK_EQ(counters_of(&c), 1)) {
        CHECK_EQ(c.global_sectors, sizeof in / 32);
        CHECK_EQ(c.dram_read_bytes, sizeof in);
        CHECK(c.shared_requests >= sizeof in / 512); /* 32 lanes × 16 bytes a request */
    }
    cuMemFree(din);
}

/* A size that is not a multiple of 16, a misaligned source, a source past
 * the end of its buffer: each faults, and the message says why. */
static void test_faults(void)
{
    static const struct {
        long long offset;
        unsigned bytes;
        CUresult code;
        const char *says;
    } cases[] = {
        {0, 24, CUDA_ERROR_ILLEGAL_INSTRUCTION, "a multiple of 16 bytes"},
        {8, 64, CUDA_ERROR_MISALIGNED_ADDRESS, "not a multiple of 16"},
        {4096 - 32, 64, CUDA_ERROR_ILLEGAL_ADDRESS, "buffer #1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CUcontext ctx;
        if (!gpu_test_start(&ctx))
            return;
        CUdeviceptr din = gpu_test_upload(NULL, 4096);
        struct kernels kk;
        long long offset = cases[i].offset;
        unsigned bytes = cases[i].bytes;
        void *args[] = {&din, &offset, &bytes};
        if (din && load(&kk)) {
            CHECK_CU_IS(cuLaunchKernel(kk.one_copy, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL),
                        CUDA_SUCCESS);
            CHECK_CU_IS(cuCtxSynchronize(), cases[i].code);
            struct kgemu_fault fault = gpu_test_last_fault();
            if (!CHECK(strstr(fault.message, cases[i].says) != NULL))
                fprintf(stderr, "  the virtual GPU said: %s\n", fault.message);
        }
        CHECK_CU(cuCtxDestroy(ctx));
    }
}

/* The tensor forms are refused at load, by name. */
static void test_tensor_refused(void)
{
    const char *ptx = ".version 8.0\n.target sm_90\n.address_size 64\n"
                      ".visible .entry k(.param .u64 map)\n{\n"
                      ".reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n"
                      "ld.param.u64 %rd1, [map];\n"
                      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::"
                      "bytes [%r1], [%rd1, {%r2, %r3}], [%r1];\n"
                      "ret;\n}\n";
    char log[GPU_TEST_LOG_BYTES] = "";
    CUmodule module;
    CUresult rc = gpu_test_load_ptx_log(&module, ptx, log, sizeof log);
    if (!CHECK_CU_IS(rc, CUDA_ERROR_INVALID_PTX) ||
        !CHECK(strstr(log, "does not implement 'cp.async.bulk.tensor") != NULL) ||
        !CHECK(strstr(log, "line 9") != NULL))
        fprintf(stderr, "  the loader said: %s\n", log);
    if (rc == CUDA_SUCCESS)
        cuModuleUnload(module);
}

int main(void)
{
    CUcontext ctx;
    struct kernels k;
    if (!gpu_test_start(&ctx) || !load(&k))
        return gpu_test_summary();
    test_memcpy_async(&k);
    test_expect_first(&k);
    test_transactions(&k);
    if (gpu_test_is_virtual()) {
        test_timing(&k);
        test_tensor_refused();
    }
    CHECK_CU(cuModuleUnload(k.module));
    CHECK_CU(cuCtxDestroy(ctx));
    if (gpu_test_is_virtual())
        test_faults();
    return gpu_test_summary();
}
