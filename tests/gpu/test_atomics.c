/*
 * Atomic operations on the virtual GPU, from many blocks at once:
 * - a counter that must end equal to the number of threads launched, and
 *   whose returned old values must be a permutation of 0..n-1;
 * - histograms, with global atomics and privatized in shared memory;
 * - 64-bit atomicAdd past 2^32, float and double atomicAdd (with values
 *   whose sums are exact in any order), and the documented flush-to-zero
 *   of float atomicAdd on global memory (CUDA Programming Guide,
 *   "Floating-Point Standard": global float atomic adds behave as
 *   FADD.F32.FTZ.RN, shared ones keep subnormals);
 * - atomicMin/Max (signed, unsigned, 64-bit), And/Or/Xor, Exch (nothing
 *   lost: the old values and the final one are the initial value and all
 *   the written ones), Inc/Dec with their wrap-around, CAS loops (a float
 *   maximum and a counter), and the _block scope variant.
 */
#include <math.h>

#include "gpu_test.h"

#define BLOCKS  97
#define THREADS 203 /* not a multiple of 32: the last warp of each block is partial */
#define N       (BLOCKS * THREADS)
#define BINS    256
#define SHOW    5

static const char source[] =
    "extern \"C\" __global__ void count(unsigned *counter, unsigned *old)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    old[i] = atomicAdd(counter, 1u);\n"
    "}\n"
    "extern \"C\" __global__ void histogram(const unsigned char *v, unsigned *hist, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        atomicAdd(&hist[v[i]], 1u);\n"
    "}\n"
    "extern \"C\" __global__ void histogram_shared(const unsigned char *v, unsigned *hist, int n)\n"
    "{\n"
    "    __shared__ unsigned h[256];\n"
    "    for (int b = threadIdx.x; b < 256; b += blockDim.x) h[b] = 0;\n"
    "    __syncthreads();\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "        atomicAdd(&h[v[i]], 1u);\n"
    "    __syncthreads();\n"
    "    for (int b = threadIdx.x; b < 256; b += blockDim.x)\n"
    "        if (h[b]) atomicAdd(&hist[b], h[b]);\n"
    "}\n"
    "struct totals {\n"
    "    unsigned long long u64;\n"
    "    double f64;\n"
    "    float f32;\n"
    "    int smin, smax;\n"
    "    unsigned umin, umax;\n"
    "    long long lmin, lmax;\n"
    "    unsigned long long ulmin, ulmax;\n"
    "    int and_, or_, xor_;\n"
    "    unsigned long long land, lor, lxor;\n"
    "    unsigned inc, dec;\n"
    "    int cas_max_bits;\n"
    "    unsigned cas_count;\n"
    "    unsigned block_count;\n"
    "    int exch;\n"
    "    float ftz_global;\n"
    "    float ftz_shared;\n"
    "};\n"
    "extern \"C\" __global__ void mixed(const int *v, struct totals *t, int *exch_old,\n"
    "                                  unsigned inc_limit, unsigned dec_limit)\n"
    "{\n"
    "    __shared__ float sub;\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    int x = v[i];\n"
    "    long long wide = (long long)x * 1000003;\n"
    "    if (threadIdx.x == 0) sub = 0.0f;\n"
    "    __syncthreads();\n"
    "    atomicAdd(&t->u64, (unsigned long long)(unsigned)x * 4099ull);\n"
    "    atomicAdd(&t->f64, (double)(x & 0xfff) * 0.0625);\n"
    "    atomicAdd(&t->f32, (float)(x & 0xff) * 0.25f);\n"
    "    atomicMin(&t->smin, x);\n"
    "    atomicMax(&t->smax, x);\n"
    "    atomicMin(&t->umin, (unsigned)x);\n"
    "    atomicMax(&t->umax, (unsigned)x);\n"
    "    atomicMin(&t->lmin, wide);\n"
    "    atomicMax(&t->lmax, wide);\n"
    "    atomicMin(&t->ulmin, (unsigned long long)wide);\n"
    "    atomicMax(&t->ulmax, (unsigned long long)wide);\n"
    "    atomicAnd(&t->and_, x | 0x10000001);\n"
    "    atomicOr(&t->or_, x & 0x0f0f0f0f);\n"
    "    atomicXor(&t->xor_, x);\n"
    "    atomicAnd(&t->land, ~((unsigned long long)(x & 63) << (x & 31)));\n"
    "    atomicOr(&t->lor, 1ull << ((unsigned)x % 64u));\n"
    "    atomicXor(&t->lxor, (unsigned long long)wide);\n"
    "    atomicInc(&t->inc, inc_limit);\n"
    "    atomicDec(&t->dec, dec_limit);\n"
    "    exch_old[i] = atomicExch(&t->exch, x);\n"
    "    /* a float maximum by CAS on the bits (all values positive) */\n"
    "    float f = (float)(x & 0xfffff) / 3.0f;\n"
    "    int seen = t->cas_max_bits;\n"
    "    while (__int_as_float(seen) < f) {\n"
    "        int prev = atomicCAS(&t->cas_max_bits, seen, __float_as_int(f));\n"
    "        if (prev == seen) break;\n"
    "        seen = prev;\n"
    "    }\n"
    "    /* a counter by CAS */\n"
    "    unsigned c = t->cas_count, prev;\n"
    "    while ((prev = atomicCAS(&t->cas_count, c, c + 1)) != c) c = prev;\n"
    "    atomicAdd_block(&t->block_count, 1u);\n"
    "    /* subnormal float adds: global ones flush to zero, shared ones do not */\n"
    "    if (i == 0) atomicAdd(&t->ftz_global, 1e-45f);\n"
    "    if (threadIdx.x == 0) atomicAdd(&sub, 1e-45f);\n"
    "    __syncthreads();\n"
    "    if (i == 0) t->ftz_shared = sub;\n"
    "}\n";

struct totals {
    unsigned long long u64;
    double f64;
    float f32;
    int smin, smax;
    unsigned umin, umax;
    long long lmin, lmax;
    unsigned long long ulmin, ulmax;
    int and_, or_, xor_;
    unsigned long long land, lor, lxor;
    unsigned inc, dec;
    int cas_max_bits;
    unsigned cas_count;
    unsigned block_count;
    int exch;
    float ftz_global;
    float ftz_shared;
};

struct kernels {
    CUmodule module;
    CUfunction count, histogram, histogram_shared, mixed;
};

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void test_count(struct kernels *k)
{
    static unsigned old[N];
    static unsigned char seen[N];
    unsigned counter = 0;
    CUdeviceptr dcounter = gpu_test_upload(&counter, sizeof counter);
    CUdeviceptr dold = gpu_test_upload(NULL, sizeof old);
    void *args[] = {&dcounter, &dold};
    if (gpu_test_run(k->count, BLOCKS, THREADS, args) &&
        gpu_test_download(&counter, dcounter, sizeof counter) &&
        gpu_test_download(old, dold, sizeof old)) {
        CHECK_EQ(counter, N);
        int bad = 0;
        memset(seen, 0, sizeof seen);
        for (int i = 0; i < N; i++) {
            if (old[i] >= N || seen[old[i]]) {
                if (bad++ < SHOW)
                    fprintf(stderr, "  thread %d got old value %u (out of range or repeated)\n", i,
                            old[i]);
                continue;
            }
            seen[old[i]] = 1;
        }
        CHECK_EQ(bad, 0);
    }
}

static void test_histograms(struct kernels *k)
{
    enum { VALUES = 300007 };
    static unsigned char v[VALUES];
    unsigned want[BINS] = {0}, got[BINS];
    for (int i = 0; i < VALUES; i++) {
        /* skewed: many hits on a few bins, so lanes of a warp collide */
        v[i] = (unsigned char)(gpu_test_rng() % 4 == 0 ? gpu_test_rng() % 4 : gpu_test_rng() % 256);
        want[v[i]]++;
    }
    int n = VALUES;
    CUdeviceptr dv = gpu_test_upload(v, sizeof v);
    CUfunction kernels[2] = {k->histogram, k->histogram_shared};
    for (int which = 0; which < 2; which++) {
        CUdeviceptr dh = gpu_test_upload(NULL, sizeof got);
        void *args[] = {&dv, &dh, &n};
        if (gpu_test_run(kernels[which], 61, 192, args) && gpu_test_download(got, dh, sizeof got))
            CHECK_SAME(got, want, BINS);
    }
    cuMemFree(dv);
}

static void test_mixed(struct kernels *k)
{
    static int v[N], exch_old[N + 1], exch_want[N + 1];
    for (int i = 0; i < N; i++)
        v[i] = i < 8 ? (int[]){0, -1, 1, 0x7fffffff, (int)0x80000000, 42, -42, 7}[i]
                     : (int)(uint32_t)gpu_test_rng();
    const unsigned inc_limit = 1000, dec_limit = 777;
    struct totals t0, t, want;
    memset(&t0, 0, sizeof t0);
    t0.smin = 0x7fffffff;
    t0.smax = (int)0x80000000;
    t0.umin = 0xffffffffu;
    t0.lmin = 0x7fffffffffffffffll;
    t0.lmax = (long long)0x8000000000000000ull;
    t0.ulmin = ~0ull;
    t0.and_ = -1;
    t0.land = ~0ull;
    t0.dec = 5;
    t0.exch = 123456789;
    t0.cas_max_bits = 0; /* +0.0f */
    want = t0;
    for (int i = 0; i < N; i++) {
        int x = v[i];
        long long wide = (long long)x * 1000003;
        want.u64 += (unsigned long long)(unsigned)x * 4099ull;
        want.f64 += (double)(x & 0xfff) * 0.0625;
        want.f32 += (float)(x & 0xff) * 0.25f;
        want.smin = x < want.smin ? x : want.smin;
        want.smax = x > want.smax ? x : want.smax;
        want.umin = (unsigned)x < want.umin ? (unsigned)x : want.umin;
        want.umax = (unsigned)x > want.umax ? (unsigned)x : want.umax;
        want.lmin = wide < want.lmin ? wide : want.lmin;
        want.lmax = wide > want.lmax ? wide : want.lmax;
        want.ulmin = (unsigned long long)wide < want.ulmin ? (unsigned long long)wide : want.ulmin;
        want.ulmax = (unsigned long long)wide > want.ulmax ? (unsigned long long)wide : want.ulmax;
        want.and_ &= x | 0x10000001;
        want.or_ |= x & 0x0f0f0f0f;
        want.xor_ ^= x;
        want.land &= ~((unsigned long long)(x & 63) << (x & 31));
        want.lor |= 1ull << ((unsigned)x % 64u);
        want.lxor ^= (unsigned long long)wide;
        want.inc = want.inc >= inc_limit ? 0 : want.inc + 1;
        want.dec = want.dec == 0 || want.dec > dec_limit ? dec_limit : want.dec - 1;
        float f = (float)(x & 0xfffff) / 3.0f, m;
        memcpy(&m, &want.cas_max_bits, sizeof m);
        if (f > m)
            memcpy(&want.cas_max_bits, &f, sizeof f);
    }
    want.cas_count = N;
    want.block_count = N;
    want.ftz_global = 0.0f;      /* 0 + 2^-149, flushed */
    want.ftz_shared = 0x1p-149f; /* kept */
    CUdeviceptr dv = gpu_test_upload(v, sizeof v), dt = gpu_test_upload(&t0, sizeof t0);
    CUdeviceptr dold = gpu_test_upload(NULL, N * sizeof(int));
    unsigned il = inc_limit, dl = dec_limit;
    void *args[] = {&dv, &dt, &dold, &il, &dl};
    if (!gpu_test_run(k->mixed, BLOCKS, THREADS, args) || !gpu_test_download(&t, dt, sizeof t) ||
        !gpu_test_download(exch_old, dold, N * sizeof(int))) {
        cuMemFree(dv);
        return;
    }
    cuMemFree(dv);
    CHECK_EQ(t.u64, want.u64);
    CHECK(t.f64 == want.f64);
    CHECK(t.f32 == want.f32);
    CHECK_EQ(t.smin, want.smin);
    CHECK_EQ(t.smax, want.smax);
    CHECK_EQ(t.umin, want.umin);
    CHECK_EQ(t.umax, want.umax);
    CHECK_EQ(t.lmin, want.lmin);
    CHECK_EQ(t.lmax, want.lmax);
    CHECK_EQ(t.ulmin, want.ulmin);
    CHECK_EQ(t.ulmax, want.ulmax);
    CHECK_EQ(t.and_, want.and_);
    CHECK_EQ(t.or_, want.or_);
    CHECK_EQ(t.xor_, want.xor_);
    CHECK_EQ(t.land, want.land);
    CHECK_EQ(t.lor, want.lor);
    CHECK_EQ(t.lxor, want.lxor);
    CHECK_EQ(t.inc, want.inc);
    CHECK_EQ(t.dec, want.dec);
    CHECK_EQ(t.cas_max_bits, want.cas_max_bits);
    CHECK_EQ(t.cas_count, want.cas_count);
    CHECK_EQ(t.block_count, want.block_count);
    if (!CHECK(memcmp(&t.ftz_global, &want.ftz_global, sizeof(float)) == 0))
        fprintf(stderr,
                "  atomicAdd(global float 0, 2^-149) left %a: global float atomic adds "
                "flush subnormals to zero\n",
                (double)t.ftz_global);
    if (!CHECK(memcmp(&t.ftz_shared, &want.ftz_shared, sizeof(float)) == 0))
        fprintf(stderr, "  atomicAdd(shared float 0, 2^-149) left %a, expected 2^-149\n",
                (double)t.ftz_shared);
    /* Exchange loses nothing: old values + final = initial + written. */
    exch_old[N] = t.exch;
    memcpy(exch_want, v, N * sizeof(int));
    exch_want[N] = t0.exch;
    qsort(exch_old, N + 1, sizeof(int), compare_ints);
    qsort(exch_want, N + 1, sizeof(int), compare_ints);
    CHECK_SAME(exch_old, exch_want, N + 1);
}

/* atomicCAS on unsigned short (atom.cas.b16, sm_70): a CAS loop per
 * thread increments one of 8 counters; every increment lands (regression:
 * the loader refused 16-bit atomics). */
static void test_cas16(void)
{
    static const char cas_source[] =
        "extern \"C\" __global__ void count16(unsigned short *counters)\n"
        "{\n"
        "    unsigned short *c = &counters[threadIdx.x % 8], old = *c, assumed;\n"
        "    do {\n"
        "        assumed = old;\n"
        "        old = atomicCAS(c, assumed, (unsigned short)(assumed + 1));\n"
        "    } while (old != assumed);\n"
        "}\n";
    enum { CAS_BLOCKS = 9 };
    unsigned short counters[8], want[8];
    CUmodule module;
    CUfunction f;
    if (!CHECK_CU(gpu_test_load_source(&module, cas_source, "cas16.cu")) ||
        !CHECK_CU(cuModuleGetFunction(&f, module, "count16")))
        return;
    memset(want, 0, sizeof want);
    for (int t = 0; t < THREADS; t++)
        want[t % 8] += CAS_BLOCKS;
    CUdeviceptr d = gpu_test_upload(NULL, sizeof counters);
    CHECK_CU(cuMemsetD8(d, 0, sizeof counters));
    void *args[] = {&d};
    if (gpu_test_run(f, CAS_BLOCKS, THREADS, args) &&
        gpu_test_download(counters, d, sizeof counters))
        CHECK_SAME(counters, want, 8);
    cuMemFree(d);
    CHECK_CU(cuModuleUnload(module));
}

int main(void)
{
    CUcontext context;
    struct kernels k;
    if (!gpu_test_start(&context))
        return gpu_test_summary();
    if (CHECK_CU(gpu_test_load_source(&k.module, source, "atomics.cu")) &&
        CHECK_CU(cuModuleGetFunction(&k.count, k.module, "count")) &&
        CHECK_CU(cuModuleGetFunction(&k.histogram, k.module, "histogram")) &&
        CHECK_CU(cuModuleGetFunction(&k.histogram_shared, k.module, "histogram_shared")) &&
        CHECK_CU(cuModuleGetFunction(&k.mixed, k.module, "mixed"))) {
        test_count(&k);
        test_histograms(&k);
        test_mixed(&k);
        CHECK_CU(cuModuleUnload(k.module));
    }
    test_cas16();
    CHECK_CU(cuCtxDestroy(context));
    return gpu_test_summary();
}
