/*
 * Warp-level operations on the virtual GPU, against a host model of the
 * PTX instructions they compile to:
 * - __shfl_sync, __shfl_up_sync, __shfl_down_sync, __shfl_xor_sync with
 *   widths 32, 16, 8, 4, 2 and per-lane source lanes, deltas and masks
 *   (shfl.sync's semantics from the PTX ISA: segments from the c operand,
 *   out-of-segment sources return the caller's own value), on 32- and
 *   64-bit values, and inside divergent code with partial member masks;
 * - votes: __all_sync, __any_sync, __ballot_sync, __activemask (at the top
 *   of a partial warp and inside divergent branches), __match_any_sync,
 *   __match_all_sync, and the __reduce_*_sync family (redux.sync);
 * - a warp sum by butterfly shuffles and an inclusive scan by shuffles up.
 * Blocks of 96 threads (whole warps) and of 100 (a last warp of 4 lanes).
 */
#include "gpu_test.h"

#define FULL          0xffffffffu
#define N_OUT         30
#define BLOCKS        40
#define SHOW          6
#define PARTIAL       100 /* threads per block in the partial-warp test */
#define N_PARTIAL_OUT 5

static const char source[] =
    "#define FULL 0xffffffffu\n"
    "extern \"C\" __global__ void warp_ops(const int *in, const int *sel, long long *out)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int lane = threadIdx.x % 32;\n"
    "    int v = in[i], s = sel[i];\n"
    "    int p = v & 1, d = s % 9, m = s & 31;\n"
    "    long long *o = out + (size_t)i * 30;\n"
    "    o[0] = __shfl_sync(FULL, v, s);\n"
    "    o[1] = __shfl_sync(FULL, v, s, 16);\n"
    "    o[2] = __shfl_sync(FULL, v, s, 4);\n"
    "    o[3] = __shfl_up_sync(FULL, v, d);\n"
    "    o[4] = __shfl_up_sync(FULL, v, d, 8);\n"
    "    o[5] = __shfl_down_sync(FULL, v, d);\n"
    "    o[6] = __shfl_down_sync(FULL, v, d, 16);\n"
    "    o[7] = __shfl_xor_sync(FULL, v, m);\n"
    "    o[8] = __shfl_xor_sync(FULL, v, m, 8);\n"
    "    o[9] = __shfl_sync(FULL, (long long)v * 1000003ll, s, 2);\n"
    "    o[10] = __all_sync(FULL, p);\n"
    "    o[11] = __any_sync(FULL, p);\n"
    "    o[12] = __ballot_sync(FULL, p);\n"
    "    if (v & 2)\n"
    "        o[13] = __activemask();\n"
    "    else\n"
    "        o[13] = ~__activemask();\n"
    "    o[14] = -1;\n"
    "    if (lane % 3 == 0)\n"
    "        o[14] = __ballot_sync(0x49249249u, p);\n"

    "    unsigned sum = (unsigned)v;\n"
    "    for (int off = 16; off > 0; off >>= 1)\n"
    "        sum += __shfl_xor_sync(FULL, sum, off);\n"
    "    o[23] = sum;\n"
    "    unsigned scan = (unsigned)v;\n"
    "    for (int off = 1; off < 32; off <<= 1) {\n"
    "        unsigned up = __shfl_up_sync(FULL, scan, off);\n"
    "        if (lane >= off) scan += up;\n"
    "    }\n"
    "    o[24] = scan;\n"
    "    if (lane < 16)\n"
    "        o[25] = __shfl_sync(0x0000ffffu, v, (lane + 5) & 15);\n"
    "    else\n"
    "        o[25] = __shfl_down_sync(0xffff0000u, v, 1, 16);\n"
    "    o[26] = __shfl_sync(FULL, v, s, 1);\n"
    "    o[27] = __shfl_xor_sync(FULL, v, m, 2);\n"
    "    double dv = v * 0.5;\n"
    "    o[28] = (long long)(__shfl_down_sync(FULL, dv, d, 32) * 2.0);\n"
    "    __syncwarp();\n"
    "    o[29] = __shfl_up_sync(FULL, v, d, 2);\n"
    "}\n"
    "/* Blocks of 100 threads: the last warp has lanes 0..3 only. */\n"
    "extern \"C\" __global__ void partial(const int *in, long long *out)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int lane = threadIdx.x % 32;\n"
    "    int v = in[i];\n"
    "    unsigned active = __activemask();\n"
    "    long long *o = out + (size_t)i * 5;\n"
    "    o[0] = active;\n"
    "    o[1] = __ballot_sync(active, v & 1);\n"
    "    o[2] = __shfl_sync(active, v, (lane + 1) % (32 - __clz(active)));\n"
    "    unsigned sum = (unsigned)v;\n"
    "    for (int off = 1; off < 32; off <<= 1) {\n"
    "        unsigned other = __shfl_xor_sync(active, sum, off);\n"
    "        if ((lane ^ off) < 32 - __clz(active)) sum += other;\n"
    "    }\n"
    "    o[3] = lane < 4 || active == FULL ? sum : 0;\n"
    "    o[4] = __all_sync(active, v > -1000000);\n"
    "}\n";

/* match.sync and redux.sync, each in a module of its own (so that one the
 * loader refuses fails only its outputs): outputs 15-16 and 17-22. */
/* warpSize in PTX is the constant WARP_SZ (regression: the loader refused
 * it, so a textbook warp reduction was an internal_error). */
static const char warp_size_source[] =
    "extern \"C\" __global__ void warp_sums(const int *in, int *out, int *size)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x, v = in[i];\n"
    "    for (int offset = warpSize / 2; offset > 0; offset /= 2)\n"
    "        v += __shfl_down_sync(0xffffffff, v, offset);\n"
    "    if (threadIdx.x % warpSize == 0) out[i / warpSize] = v;\n"
    "    if (i == 0) *size = warpSize;\n"
    "}\n";

static void test_warp_size(void)
{
    enum { THREADS = 128, WARPS = 8 * THREADS / 32 };
    static int v[WARPS * 32];
    int sums[WARPS], want[WARPS], size = 0;
    CUmodule module;
    CUfunction f;
    if (!CHECK_CU(gpu_test_load_source(&module, warp_size_source, "warp_size.cu")) ||
        !CHECK_CU(cuModuleGetFunction(&f, module, "warp_sums")))
        return;
    for (int w = 0; w < WARPS; w++) {
        want[w] = 0;
        for (int l = 0; l < 32; l++)
            want[w] += v[w * 32 + l] = (int)(gpu_test_rng() % 1000);
    }
    CUdeviceptr dv = gpu_test_upload(v, sizeof v), dsums = gpu_test_upload(NULL, sizeof sums),
                dsize = gpu_test_upload(NULL, sizeof size);
    void *args[] = {&dv, &dsums, &dsize};
    if (gpu_test_run(f, WARPS * 32 / THREADS, THREADS, args) &&
        gpu_test_download(sums, dsums, sizeof sums) &&
        gpu_test_download(&size, dsize, sizeof size)) {
        CHECK_SAME(sums, want, WARPS);
        CHECK_EQ(size, 32);
    }
    cuMemFree(dv);
    cuMemFree(dsums);
    cuMemFree(dsize);
    CHECK_CU(cuModuleUnload(module));
}

static const char match_source[] =
    "#define FULL 0xffffffffu\n"
    "extern \"C\" __global__ void part(const int *in, long long *out)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int lane = threadIdx.x % 32;\n"
    "    int v = in[i];\n"
    "    long long *o = out + (size_t)i * 30;\n"
    "    o[15] = __match_any_sync(FULL, v & 7);\n"
    "    int pred;\n"
    "    int same = blockIdx.x % 2 ? lane / 8 : 5;\n"
    "    unsigned all = __match_all_sync(FULL, same, &pred);\n"
    "    o[16] = (long long)all | (long long)pred << 32;\n"
    "}\n";

static const char redux_source[] =
    "#define FULL 0xffffffffu\n"
    "extern \"C\" __global__ void part(const int *in, long long *out)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int v = in[i];\n"
    "    long long *o = out + (size_t)i * 30;\n"
    "    o[17] = __reduce_add_sync(FULL, (unsigned)v);\n"
    "    o[18] = __reduce_min_sync(FULL, v);\n"
    "    o[19] = __reduce_max_sync(FULL, (unsigned)v);\n"
    "    o[20] = __reduce_and_sync(FULL, (unsigned)v | 0x80000001u);\n"
    "    o[21] = __reduce_or_sync(FULL, (unsigned)v & 0x01010101u);\n"
    "    o[22] = __reduce_xor_sync(FULL, (unsigned)v);\n"
    "}\n";

struct part {
    const char *source, *name;
    int first, last; /* the outputs it writes */
    CUmodule module; /* NULL when it did not load */
};

static struct part parts[] = {
    {match_source, "warp_match.cu", 15, 16, NULL},
    {redux_source, "warp_redux.cu", 17, 22, NULL},
};
#define N_PARTS ((int)(sizeof parts / sizeof parts[0]))

/* Runs the parts that loaded into `dout`; marks the outputs of the others. */
static void run_parts(CUdeviceptr dv, CUdeviceptr dout, unsigned threads, int *skip)
{
    for (int p = 0; p < N_PARTS; p++) {
        CUfunction f;
        void *args[] = {&dv, &dout};
        int ran = parts[p].module != NULL &&
                  CHECK_CU(cuModuleGetFunction(&f, parts[p].module, "part")) &&
                  gpu_test_run(f, BLOCKS, threads, args);
        for (int k = parts[p].first; k <= parts[p].last; k++)
            skip[k] = !ran;
    }
}

enum shfl_mode { UP, DOWN, BFLY, IDX };

/* shfl.sync d, a, b, c for `lane`, from the PTX ISA's pseudocode: the
 * source lane, or the caller's own when the source is out of its segment. */
static int shfl_source(enum shfl_mode mode, int lane, unsigned b, unsigned c)
{
    unsigned bval = b & 31, cval = c & 31, segmask = (c >> 8) & 31;
    unsigned max_lane = ((unsigned)lane & segmask) | (cval & ~segmask);
    unsigned min_lane = (unsigned)lane & segmask;
    int j, ok;
    switch (mode) {
    case UP:
        j = lane - (int)bval;
        ok = j >= (int)max_lane;
        break;
    case DOWN:
        j = lane + (int)bval;
        ok = j <= (int)max_lane;
        break;
    case BFLY:
        j = lane ^ (int)bval;
        ok = j <= (int)max_lane;
        break;
    default:
        j = (int)(min_lane | (bval & ~segmask));
        ok = j <= (int)max_lane;
        break;
    }
    return ok ? j : lane;
}

/* The c operand CUDA's intrinsics pass for a width. */
static unsigned c_of(enum shfl_mode mode, int width)
{
    return (unsigned)(32 - width) << 8 | (mode == UP ? 0u : 0x1fu);
}

static long long shfl(const int *v, enum shfl_mode mode, int lane, unsigned b, int width)
{
    return v[shfl_source(mode, lane, b, c_of(mode, width))];
}

/* The expected outputs of one warp (32 lanes) of warp_ops. */
static void warp_reference(const int *v, const int *sel, int block, long long (*o)[N_OUT])
{
    unsigned ballot = 0, ballot3 = 0, sum = 0, mn_and = FULL, mx = 0, or_ = 0, xor_ = 0;
    int mn = v[0];
    for (int l = 0; l < 32; l++) {
        ballot |= (unsigned)(v[l] & 1) << l;
        if (l % 3 == 0)
            ballot3 |= (unsigned)(v[l] & 1) << l;
        sum += (unsigned)v[l];
        mn = v[l] < mn ? v[l] : mn;
        mx = (unsigned)v[l] > mx ? (unsigned)v[l] : mx;
        mn_and &= (unsigned)v[l] | 0x80000001u;
        or_ |= (unsigned)v[l] & 0x01010101u;
        xor_ ^= (unsigned)v[l];
    }
    unsigned taken = 0; /* lanes with v & 2 */
    for (int l = 0; l < 32; l++)
        taken |= (unsigned)((v[l] >> 1) & 1) << l;
    long long wide[32];
    for (int l = 0; l < 32; l++)
        wide[l] = (long long)v[l] * 1000003ll;
    unsigned scan = 0;
    for (int l = 0; l < 32; l++) {
        int s = sel[l], d = s % 9, m = s & 31;
        long long *r = o[l];
        r[0] = shfl(v, IDX, l, (unsigned)s, 32);
        r[1] = shfl(v, IDX, l, (unsigned)s, 16);
        r[2] = shfl(v, IDX, l, (unsigned)s, 4);
        r[3] = shfl(v, UP, l, (unsigned)d, 32);
        r[4] = shfl(v, UP, l, (unsigned)d, 8);
        r[5] = shfl(v, DOWN, l, (unsigned)d, 32);
        r[6] = shfl(v, DOWN, l, (unsigned)d, 16);
        r[7] = shfl(v, BFLY, l, (unsigned)m, 32);
        r[8] = shfl(v, BFLY, l, (unsigned)m, 8);
        r[9] = wide[shfl_source(IDX, l, (unsigned)s, c_of(IDX, 2))];
        r[10] = ballot == FULL;
        r[11] = ballot != 0;
        r[12] = ballot;
        /* the lanes of the other branch see ~(their mask) = the taken ones */
        r[13] = taken;
        r[14] = l % 3 == 0 ? (long long)ballot3 : -1;
        unsigned match = 0;
        for (int k = 0; k < 32; k++)
            match |= (unsigned)((v[k] & 7) == (v[l] & 7)) << k;
        r[15] = match;
        r[16] = block % 2 ? 0 : (long long)FULL | 1ll << 32;
        r[17] = sum;
        r[18] = mn;
        r[19] = mx;
        r[20] = mn_and;
        r[21] = or_;
        r[22] = xor_;
        r[23] = sum;
        scan += (unsigned)v[l];
        r[24] = scan;
        r[25] = l < 16 ? v[(l + 5) & 15] : v[shfl_source(DOWN, l, 1, c_of(DOWN, 16))];
        r[26] = shfl(v, IDX, l, (unsigned)s, 1);
        r[27] = shfl(v, BFLY, l, (unsigned)m, 2);
        r[28] = (long long)(v[shfl_source(DOWN, l, (unsigned)d, c_of(DOWN, 32))] * 0.5 * 2.0);
        r[29] = shfl(v, UP, l, (unsigned)d, 2);
    }
}

static void test_warp_ops(CUmodule module, unsigned threads)
{
    unsigned n = BLOCKS * threads;
    int *v = malloc(n * sizeof(int)), *sel = malloc(n * sizeof(int));
    long long(*out)[N_OUT] = malloc(n * sizeof *out), (*want)[N_OUT] = malloc(n * sizeof *want);
    CUfunction f;
    if (!CHECK(v && sel && out && want) || !CHECK_CU(cuModuleGetFunction(&f, module, "warp_ops")))
        return;
    for (unsigned i = 0; i < n; i++) {
        unsigned block = i / threads;
        /* some warps all odd (votes all true), some all even */
        v[i] = block % 5 == 1   ? (int)(gpu_test_rng() | 1)
               : block % 5 == 2 ? (int)(gpu_test_rng() & ~1ull)
                                : (int)(uint32_t)gpu_test_rng();
        sel[i] = (int)(gpu_test_rng() % 80); /* source lanes past 31 too */
    }
    for (unsigned w = 0; w < n / 32; w++)
        warp_reference(v + 32 * w, sel + 32 * w, (int)(32 * w / threads), want + 32 * w);
    CUdeviceptr dv = gpu_test_upload(v, n * sizeof(int)),
                ds = gpu_test_upload(sel, n * sizeof(int));
    CUdeviceptr dout = gpu_test_upload(NULL, n * sizeof *out);
    void *args[] = {&dv, &ds, &dout};
    int skip[N_OUT] = {0};
    run_parts(dv, dout, threads, skip);
    if (gpu_test_run(f, BLOCKS, threads, args) && gpu_test_download(out, dout, n * sizeof *out)) {
        for (int k = 0; k < N_OUT; k++) {
            int wrong = 0;
            if (skip[k])
                continue; /* its module did not load: counted already */
            for (unsigned i = 0; i < n; i++)
                if (out[i][k] != want[i][k] && wrong++ < SHOW)
                    fprintf(stderr,
                            "  output %d of thread %u (lane %u, v=0x%x, sel=%d): 0x%llx, "
                            "expected 0x%llx\n",
                            k, i, i % 32, (unsigned)v[i], sel[i], (unsigned long long)out[i][k],
                            (unsigned long long)want[i][k]);
            if (wrong)
                fprintf(stderr, "  output %d: %d of %u wrong (see the kernel's o[%d])\n", k, wrong,
                        n, k);
            CHECK(wrong == 0);
        }
    }
    cuMemFree(dv);
    cuMemFree(ds);
    free(v);
    free(sel);
    free(out);
    free(want);
}

static void test_partial(CUmodule module)
{
    enum { N = BLOCKS * PARTIAL };
    static int v[N];
    static long long out[N][N_PARTIAL_OUT], want[N][N_PARTIAL_OUT];
    CUfunction f;
    if (!CHECK_CU(cuModuleGetFunction(&f, module, "partial")))
        return;
    for (int i = 0; i < N; i++)
        v[i] = (int)(gpu_test_rng() % 100000) - 50000;
    for (int b = 0; b < BLOCKS; b++)
        for (int w = 0; w * 32 < PARTIAL; w++) {
            int first = b * PARTIAL + w * 32;
            int lanes = PARTIAL - w * 32 < 32 ? PARTIAL - w * 32 : 32;
            unsigned active = lanes == 32 ? FULL : (1u << lanes) - 1;
            unsigned ballot = 0, sum = 0;
            for (int l = 0; l < lanes; l++) {
                ballot |= (unsigned)(v[first + l] & 1) << l;
                sum += (unsigned)v[first + l];
            }
            for (int l = 0; l < lanes; l++) {
                want[first + l][0] = active;
                want[first + l][1] = ballot;
                want[first + l][2] = v[first + (l + 1) % lanes];
                want[first + l][3] = sum;
                want[first + l][4] = 1;
            }
        }
    CUdeviceptr dv = gpu_test_upload(v, sizeof v), dout = gpu_test_upload(NULL, sizeof out);
    void *args[] = {&dv, &dout};
    if (gpu_test_run(f, BLOCKS, PARTIAL, args) && gpu_test_download(out, dout, sizeof out))
        CHECK_SAME(&out[0][0], &want[0][0], (size_t)N * N_PARTIAL_OUT);
    cuMemFree(dv);
}

int main(void)
{
    CUcontext context;
    CUmodule module;
    if (!gpu_test_start(&context))
        return gpu_test_summary();
    for (int p = 0; p < N_PARTS; p++)
        if (!CHECK_CU(gpu_test_load_source(&parts[p].module, parts[p].source, parts[p].name)))
            parts[p].module = NULL;
    if (CHECK_CU(gpu_test_load_source(&module, source, "warp.cu"))) {
        test_warp_ops(module, 96);
        test_warp_ops(module, 256);
        test_partial(module);
        CHECK_CU(cuModuleUnload(module));
    }
    test_warp_size();
    for (int p = 0; p < N_PARTS; p++)
        if (parts[p].module != NULL)
            CHECK_CU(cuModuleUnload(parts[p].module));
    CHECK_CU(cuCtxDestroy(context));
    return gpu_test_summary();
}
