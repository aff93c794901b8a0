/*
 * Where threads are and what they can reach, on the virtual GPU.
 *
 * - 64-bit indexing: a 2.2 GB allocation of bytes, written and read by a
 *   few blocks at size_t indices around 2^31 and near its end, checked
 *   byte for byte over those regions (the rest stays zero);
 * - grid-stride loops over sizes that are not multiples of the grid, each
 *   element visited exactly once;
 * - 1-D, 2-D and 3-D grids and blocks, up to the device's limits: every
 *   thread records its blockIdx, threadIdx, blockDim, gridDim and %laneid
 *   in the slot its coordinates name, and every slot is checked.
 */
#include "gpu_test.h"

#define BIG_BYTES    2200000000ull /* > 2^31, as the issue asks */
#define SPARSE       256           /* elements written near the end */
#define WINDOW_BYTES (1u << 20)    /* checked byte for byte around each written region */
#define RECORD_WORDS 13
#define SHOW         6

static const char source[] =
    "typedef unsigned long long size64;\n"
    "extern \"C\" __global__ void sparse_write(unsigned char *p, size64 base, size64 stride)\n"
    "{\n"
    "    size64 t = (size64)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    size64 i = base + t * stride;\n"
    "    p[i] = (unsigned char)(t * 7 + 1);\n"
    "}\n"
    "extern \"C\" __global__ void sparse_read(const unsigned char *p, size64 base, size64 stride,\n"
    "    unsigned *out)\n"
    "{\n"
    "    size64 t = (size64)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    out[t] = p[base + t * stride] + 1000u;\n"
    "}\n"
    "/* Words at byte offsets >= 2^31 through a 32-bit element pointer. */\n"
    "extern \"C\" __global__ void word_rw(unsigned *w, size64 first)\n"
    "{\n"
    "    size64 i = first + threadIdx.x;\n"
    "    w[i] = (unsigned)(i ^ 0x5a5a5a5au) + w[i];\n"
    "}\n"
    "extern \"C\" __global__ void grid_stride(const int *in, int *out, int *visits, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
    "         i += blockDim.x * gridDim.x) {\n"
    "        out[i] = in[i] * 3 - i;\n"
    "        visits[i] += 1;\n"
    "    }\n"
    "}\n"
    "extern \"C\" __global__ void where(unsigned *rec)\n"
    "{\n"
    "    unsigned bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;\n"
    "    unsigned tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;\n"
    "    unsigned long long block = bx + (unsigned long long)gridDim.x * (by + gridDim.y * bz);\n"
    "    unsigned thread = tx + blockDim.x * (ty + blockDim.y * tz);\n"
    "    unsigned long long slot =\n"
    "        block * (blockDim.x * blockDim.y * blockDim.z) + thread;\n"
    "    unsigned *r = rec + slot * 13;\n"
    "    unsigned lane;\n"
    "    asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));\n"
    "    r[0] = bx; r[1] = by; r[2] = bz;\n"
    "    r[3] = tx; r[4] = ty; r[5] = tz;\n"
    "    r[6] = blockDim.x; r[7] = blockDim.y; r[8] = blockDim.z;\n"
    "    r[9] = gridDim.x; r[10] = gridDim.y; r[11] = gridDim.z;\n"
    "    r[12] = lane;\n"
    "}\n";

struct kernels {
    CUmodule module;
    CUfunction sparse_write, sparse_read, word_rw, grid_stride, where;
};

/* Bytes [from, from + size) of the big buffer equal `want`. */
static void check_window(CUdeviceptr big, uint64_t from, const unsigned char *want, size_t size,
                         const char *what)
{
    unsigned char *got = malloc(size);
    if (!CHECK(got != NULL))
        return;
    if (CHECK_CU(cuMemcpyDtoH(got, big + from, size))) {
        size_t wrong = 0;
        for (size_t i = 0; i < size; i++)
            if (got[i] != want[i] && wrong++ < SHOW)
                fprintf(stderr, "  %s: byte %llu is %u, expected %u\n", what,
                        (unsigned long long)(from + i), got[i], want[i]);
        if (wrong)
            fprintf(stderr, "  %s: %zu bytes wrong\n", what, wrong);
        CHECK(wrong == 0);
    }
    free(got);
}

static void test_big_allocation(struct kernels *k)
{
    CUdeviceptr big = 0;
    if (!CHECK_CU(cuMemAlloc(&big, BIG_BYTES)))
        return;
    CHECK_CU(cuMemsetD8(big + BIG_BYTES - WINDOW_BYTES, 0, WINDOW_BYTES));
    CHECK_CU(cuMemsetD8(big + (1ull << 31) - WINDOW_BYTES / 2, 0, WINDOW_BYTES));
    /* 256 bytes at a stride of 4093, ending at the very last byte. */
    unsigned long long stride = 4093, base = BIG_BYTES - 1 - (SPARSE - 1) * stride;
    void *args[] = {&big, &base, &stride};
    gpu_test_run(k->sparse_write, SPARSE / 64, 64, args);
    unsigned char *want = calloc(1, WINDOW_BYTES);
    if (!CHECK(want != NULL))
        return;
    uint64_t from = BIG_BYTES - WINDOW_BYTES;
    for (unsigned t = 0; t < SPARSE; t++)
        want[base + t * stride - from] = (unsigned char)(t * 7 + 1);
    check_window(big, from, want, WINDOW_BYTES, "the end of the 2.2 GB buffer");

    /* Reads back through the kernel: loads at the same 64-bit offsets. */
    CUdeviceptr out = gpu_test_upload(NULL, SPARSE * sizeof(unsigned));
    unsigned got[SPARSE], expect[SPARSE];
    void *read_args[] = {&big, &base, &stride, &out};
    if (gpu_test_run(k->sparse_read, SPARSE / 64, 64, read_args) &&
        gpu_test_download(got, out, sizeof got)) {
        for (unsigned t = 0; t < SPARSE; t++)
            expect[t] = (unsigned char)(t * 7 + 1) + 1000u;
        CHECK_SAME(got, expect, SPARSE);
    }

    /* Bytes straddling 2^31: one block of 256 threads, stride 1. */
    unsigned long long one = 1, mid = (1ull << 31) - 128;
    void *mid_args[] = {&big, &mid, &one};
    gpu_test_run(k->sparse_write, 1, SPARSE, mid_args);
    memset(want, 0, WINDOW_BYTES);
    from = (1ull << 31) - WINDOW_BYTES / 2;
    for (unsigned t = 0; t < SPARSE; t++)
        want[mid + t - from] = (unsigned char)(t * 7 + 1);
    check_window(big, from, want, WINDOW_BYTES, "the bytes around 2^31");

    /* 32-bit words whose byte offsets pass 2^31 (element indices > 2^29),
     * read-modify-write over what the host put there. */
    unsigned long long first_word = (1ull << 31) / 4 + 4096;
    unsigned words[256], word_want[256];
    for (unsigned t = 0; t < 256; t++)
        words[t] = (unsigned)gpu_test_rng();
    CHECK_CU(cuMemcpyHtoD(big + first_word * 4, words, sizeof words));
    void *word_args[] = {&big, &first_word};
    if (gpu_test_run(k->word_rw, 1, 256, word_args) &&
        CHECK_CU(cuMemcpyDtoH(word_want, big + first_word * 4, sizeof word_want))) {
        for (unsigned t = 0; t < 256; t++)
            words[t] += (unsigned)((first_word + t) ^ 0x5a5a5a5au);
        CHECK_SAME(word_want, words, 256);
    }
    free(want);
    CHECK_CU(cuMemFree(big));
}

static void test_grid_stride(struct kernels *k)
{
    static const int sizes[][3] = {/* n, blocks, threads */
                                   {100003, 13, 96},
                                   {1, 7, 32},
                                   {4096, 4, 1024},
                                   {65537, 1, 33},
                                   {50000, 200, 256}};
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
        int n = sizes[c][0];
        int *in = malloc(n * sizeof(int)), *out = malloc(n * sizeof(int));
        int *visits = malloc(n * sizeof(int)), *want = malloc(n * sizeof(int));
        int *ones = malloc(n * sizeof(int));
        if (!CHECK(in && out && visits && want && ones))
            return;
        for (int i = 0; i < n; i++) {
            in[i] = (int)(gpu_test_rng() % 100000) - 50000;
            want[i] = in[i] * 3 - i;
            ones[i] = 1;
        }
        CUdeviceptr din = gpu_test_upload(in, n * sizeof(int));
        CUdeviceptr dout = gpu_test_upload(NULL, n * sizeof(int));
        CUdeviceptr dvisits = gpu_test_upload(NULL, n * sizeof(int));
        void *args[] = {&din, &dout, &dvisits, &n};
        if (gpu_test_run(k->grid_stride, (unsigned)sizes[c][1], (unsigned)sizes[c][2], args) &&
            gpu_test_download(out, dout, n * sizeof(int)) &&
            gpu_test_download(visits, dvisits, n * sizeof(int))) {
            CHECK_SAME(out, want, (size_t)n);
            CHECK_SAME(visits, ones, (size_t)n);
        }
        cuMemFree(din);
        free(in);
        free(out);
        free(visits);
        free(want);
        free(ones);
    }
}

/* Every thread of grid × block wrote its record into its own slot. */
static void test_where(struct kernels *k, const unsigned grid[3], const unsigned block[3])
{
    unsigned long long threads_per_block = (unsigned long long)block[0] * block[1] * block[2];
    unsigned long long total = threads_per_block * grid[0] * grid[1] * grid[2];
    size_t bytes = total * RECORD_WORDS * sizeof(unsigned);
    unsigned *rec = malloc(bytes);
    CUdeviceptr d = 0;
    if (!CHECK(rec != NULL) || !CHECK_CU(cuMemAlloc(&d, bytes)) ||
        !CHECK_CU(cuMemsetD8(d, 0xff, bytes))) {
        free(rec);
        return;
    }
    void *args[] = {&d};
    if (gpu_test_run3(k->where, grid[0], grid[1], grid[2], block[0], block[1], block[2], 0, args) &&
        gpu_test_download(rec, d, bytes)) {
        unsigned long long wrong = 0, slot = 0;
        for (unsigned bz = 0; bz < grid[2]; bz++)
            for (unsigned by = 0; by < grid[1]; by++)
                for (unsigned bx = 0; bx < grid[0]; bx++)
                    for (unsigned tz = 0; tz < block[2]; tz++)
                        for (unsigned ty = 0; ty < block[1]; ty++)
                            for (unsigned tx = 0; tx < block[0]; tx++, slot++) {
                                unsigned linear = tx + block[0] * (ty + block[1] * tz);
                                unsigned want[RECORD_WORDS] = {
                                    bx,      by,       bz,         tx,       ty,
                                    tz,      block[0], block[1],   block[2], grid[0],
                                    grid[1], grid[2],  linear % 32};
                                const unsigned *r = rec + slot * RECORD_WORDS;
                                if (memcmp(r, want, sizeof want) == 0)
                                    continue;
                                if (wrong++ < SHOW)
                                    fprintf(stderr,
                                            "  grid (%u,%u,%u) block (%u,%u,%u): thread "
                                            "(%u,%u,%u) of block (%u,%u,%u) recorded "
                                            "blockIdx (%u,%u,%u) threadIdx (%u,%u,%u) "
                                            "blockDim (%u,%u,%u) gridDim (%u,%u,%u) lane %u\n",
                                            grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                            tx, ty, tz, bx, by, bz, r[0], r[1], r[2], r[3], r[4],
                                            r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12]);
                            }
        if (wrong)
            fprintf(stderr, "  grid (%u,%u,%u) block (%u,%u,%u): %llu of %llu threads wrong\n",
                    grid[0], grid[1], grid[2], block[0], block[1], block[2], wrong, total);
        CHECK(wrong == 0);
    } else {
        cuMemFree(d);
    }
    free(rec);
}

static void test_shapes(struct kernels *k)
{
    static const unsigned shapes[][6] = {
        /* grid x y z, block x y z */
        {1, 1, 1, 1, 1, 1},     {37, 1, 1, 96, 1, 1},       {3, 4, 2, 8, 4, 2},
        {2, 3, 5, 5, 3, 7},     {4, 3, 1, 32, 32, 1},       {2, 1, 1, 1024, 1, 1},
        {1, 1, 2, 1, 1, 64},    {3, 2, 1, 1, 17, 3},        {1, 65535, 1, 1, 1, 1},
        {70001, 1, 1, 1, 1, 1}, {2, 2, 65535 / 8, 2, 1, 1},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        test_where(k, shapes[s], shapes[s] + 3);
}

/* The special registers a launch without clusters or a driver environment
 * has (cooperative groups and CUTLASS read them), and griddepcontrol, which
 * has nothing to wait for when launches run one after another. */
static const char constants_source[] =
    "#define READ(name, i) asm volatile(\"mov.u32 %0, \" name \";\" : \"=r\"(v[i]))\n"
    "extern \"C\" __global__ void constants(unsigned *out)\n"
    "{\n"
    "    unsigned v[10];\n"
    "    asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n"
    "    READ(\"%%cluster_ctarank\", 0); READ(\"%%cluster_nctarank\", 1);\n"
    "    READ(\"%%clusterid.x\", 2); READ(\"%%nclusterid.y\", 3);\n"
    "    READ(\"%%cluster_nctaid.x\", 4); READ(\"%%envreg1\", 5); READ(\"%%envreg31\", 6);\n"
    "    READ(\"%%reserved_smem_offset_begin\", 7); READ(\"%%is_explicit_cluster\", 8);\n"
    "    READ(\"%%cluster_ctaid.z\", 9);\n"
    "    unsigned b = blockIdx.x + gridDim.x * blockIdx.y;\n"
    "    if (threadIdx.x < 10) out[b * 10 + threadIdx.x] = v[threadIdx.x];\n"
    "    asm volatile(\"griddepcontrol.launch_dependents;\");\n"
    "}\n";

static void test_constant_registers(void)
{
    enum { GX = 3, GY = 2 };
    unsigned out[GX * GY * 10], want[GX * GY * 10];
    CUmodule module;
    CUfunction f;
    if (!CHECK_CU(gpu_test_load_source(&module, constants_source, "constants.cu")) ||
        !CHECK_CU(cuModuleGetFunction(&f, module, "constants")))
        return;
    for (unsigned y = 0; y < GY; y++)
        for (unsigned x = 0; x < GX; x++) {
            unsigned row[10] = {0, 1, x, GY, 1, 0, 0, 0, 0, 0};
            memcpy(&want[(x + GX * y) * 10], row, sizeof row);
        }
    CUdeviceptr dout = gpu_test_upload(NULL, sizeof out);
    void *args[] = {&dout};
    if (gpu_test_run3(f, GX, GY, 1, 32, 1, 1, 0, args) && gpu_test_download(out, dout, sizeof out))
        CHECK_SAME(out, want, GX * GY * 10);
    cuMemFree(dout);
    CHECK_CU(cuModuleUnload(module));
}

int main(void)
{
    CUcontext context;
    struct kernels k;
    if (!gpu_test_start(&context))
        return gpu_test_summary();
    if (CHECK_CU(gpu_test_load_source(&k.module, source, "indexing.cu")) &&
        CHECK_CU(cuModuleGetFunction(&k.sparse_write, k.module, "sparse_write")) &&
        CHECK_CU(cuModuleGetFunction(&k.sparse_read, k.module, "sparse_read")) &&
        CHECK_CU(cuModuleGetFunction(&k.word_rw, k.module, "word_rw")) &&
        CHECK_CU(cuModuleGetFunction(&k.grid_stride, k.module, "grid_stride")) &&
        CHECK_CU(cuModuleGetFunction(&k.where, k.module, "where"))) {
        test_big_allocation(&k);
        test_grid_stride(&k);
        test_shapes(&k);
        CHECK_CU(cuModuleUnload(k.module));
    }
    test_constant_registers();
    CHECK_CU(cuCtxDestroy(context));
    return gpu_test_summary();
}
