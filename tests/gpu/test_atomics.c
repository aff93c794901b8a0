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
 *   maximum and a counter), and the _block scope variant;
 * - every operation on shared memory by one warp, whose lanes update in
 *   ascending order: each lane's old value and the final ones as a host
 *   loop gives them (the virtual GPU does a block's shared atomics without
 *   host atomics: one host thread runs the block);
 * - integer adds of one warp into a few words of one line, which the
 *   virtual GPU sums per address before one host atomic each: each lane's
 *   old value as if the lanes added one by one, past 2^32 and 2^64;
 * - adds whose results nothing reads, which the compiled tier holds back
 *   (JIT.md, "Deferred adds"): the warp's own load of the line sees them,
 *   its store to an added word lands after them, another warp sees them
 *   after a barrier, and memory has them all when the kernel ends;
 * - adds to 1M distinct elements, each once: right, and in bounded host
 *   memory (the timing model counts atomics by address only up to a bound).
 */
#include <math.h>
#include <stddef.h>

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

/* ------------------------------------------------- one warp, in lane order */

#define WARP      32
#define WARP_OPS  14 /* the old values shared_ops keeps per lane */
#define OP_BLOCKS 5

static const char warp_source[] =
    "struct ops {\n"
    "    unsigned add, and_, or_, xor_, exch, inc, dec, cas;\n"
    "    int smin, smax;\n"
    "    unsigned long long add64, max64;\n"
    "    float fadd;\n"
    "    unsigned short cas16, pad;\n"
    "};\n"
    "extern \"C\" __global__ void shared_ops(const int *v, unsigned long long *olds, struct ops "
    "*out)\n"
    "{\n"
    "    __shared__ struct ops s;\n"
    "    int l = threadIdx.x, x = v[blockIdx.x * 32 + l];\n"
    "    if (l == 0) {\n"
    "        s.add = 0xfffffff0u; s.and_ = ~0u; s.or_ = 0; s.xor_ = 0x5a5a5a5a; s.exch = 7;\n"
    "        s.inc = 15; s.dec = 2; s.cas = 0; s.smin = 0; s.smax = 0;\n"
    "        s.add64 = 0xfffffffffff00000ull; s.max64 = 0; s.fadd = 0.5f; s.cas16 = 0;\n"
    "    }\n"
    "    __syncwarp();\n"
    "    unsigned long long *o = olds + (blockIdx.x * 32 + l) * 14;\n"
    "    o[0] = atomicAdd(&s.add, (unsigned)x);\n"
    "    o[1] = atomicAnd(&s.and_, (unsigned)x | 0x10000001u);\n"
    "    o[2] = atomicOr(&s.or_, (unsigned)x & 0x0f0f0f0fu);\n"
    "    o[3] = atomicXor(&s.xor_, (unsigned)x);\n"
    "    o[4] = atomicExch(&s.exch, (unsigned)x);\n"
    "    o[5] = atomicInc(&s.inc, 20u);\n"
    "    o[6] = atomicDec(&s.dec, 7u);\n"
    "    o[7] = atomicCAS(&s.cas, (unsigned)l, (unsigned)l + 1);\n"
    "    o[8] = (unsigned)atomicMin(&s.smin, x);\n"
    "    o[9] = (unsigned)atomicMax(&s.smax, x);\n"
    "    o[10] = atomicAdd(&s.add64, (unsigned long long)(unsigned)x << 12);\n"
    "    o[11] = atomicMax(&s.max64, (unsigned long long)x * 3ull);\n"
    "    o[12] = __float_as_uint(atomicAdd(&s.fadd, (float)(x & 0xff) * 0.25f));\n"
    "    o[13] = atomicCAS(&s.cas16, (unsigned short)(l * 3), (unsigned short)(l * 3 + 3));\n"
    "    __syncwarp();\n"
    "    if (l == 0) out[blockIdx.x] = s;\n"
    "}\n"
    "extern \"C\" __global__ void adds_in_line(unsigned *c, unsigned *old, unsigned long long "
    "*c64,\n"
    "                                        unsigned long long *old64)\n"
    "{\n"
    "    int l = threadIdx.x;\n"
    "    old[l] = atomicAdd(&c[l % 3], 0x10000001u * (unsigned)(l + 1));\n"
    "    old64[l] = atomicAdd(&c64[l % 2 * 3], 0x4000000000000001ull * (unsigned)(l + 1));\n"
    "    atomicAdd(&c[4 + l % 2], (unsigned)l);  /* red: the old value unused */\n"
    "}\n";

struct ops {
    unsigned add, and_, or_, xor_, exch, inc, dec, cas;
    int smin, smax;
    unsigned long long add64, max64;
    float fadd;
    unsigned short cas16, pad;
};

static unsigned float_bits(float f)
{
    unsigned u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* One lane's operations on the host's copy, its old values in o. */
static void ops_lane(struct ops *s, int l, int x, unsigned long long *o)
{
    unsigned u = (unsigned)x;
    o[0] = s->add, s->add += u;
    o[1] = s->and_, s->and_ &= u | 0x10000001u;
    o[2] = s->or_, s->or_ |= u & 0x0f0f0f0fu;
    o[3] = s->xor_, s->xor_ ^= u;
    o[4] = s->exch, s->exch = u;
    o[5] = s->inc, s->inc = s->inc >= 20u ? 0 : s->inc + 1;
    o[6] = s->dec, s->dec = s->dec == 0 || s->dec > 7u ? 7u : s->dec - 1;
    o[7] = s->cas, s->cas = s->cas == (unsigned)l ? (unsigned)l + 1 : s->cas;
    o[8] = (unsigned)s->smin, s->smin = x < s->smin ? x : s->smin;
    o[9] = (unsigned)s->smax, s->smax = x > s->smax ? x : s->smax;
    o[10] = s->add64, s->add64 += (unsigned long long)u << 12;
    unsigned long long m = (unsigned long long)x * 3ull;
    o[11] = s->max64, s->max64 = m > s->max64 ? m : s->max64;
    o[12] = float_bits(s->fadd), s->fadd += (float)(x & 0xff) * 0.25f;
    unsigned short want = (unsigned short)(l * 3);
    o[13] = s->cas16, s->cas16 = s->cas16 == want ? (unsigned short)(l * 3 + 3) : s->cas16;
}

static void test_shared_ops(CUfunction f)
{
    static int v[OP_BLOCKS * WARP];
    static unsigned long long olds[OP_BLOCKS * WARP * WARP_OPS], want[OP_BLOCKS * WARP * WARP_OPS];
    struct ops got[OP_BLOCKS], final[OP_BLOCKS];
    for (int i = 0; i < OP_BLOCKS * WARP; i++)
        v[i] = i < 4 ? (int[]){-1, 0x7fffffff, (int)0x80000000, 0}[i] : (int)gpu_test_rng();
    memset(final, 0, sizeof final);
    for (int b = 0; b < OP_BLOCKS; b++) {
        struct ops *s = &final[b];
        *s = (struct ops){.add = 0xfffffff0u,
                          .and_ = ~0u,
                          .xor_ = 0x5a5a5a5a,
                          .exch = 7,
                          .inc = 15,
                          .dec = 2,
                          .add64 = 0xfffffffffff00000ull,
                          .fadd = 0.5f};
        for (int l = 0; l < WARP; l++)
            ops_lane(s, l, v[b * WARP + l], &want[(b * WARP + l) * WARP_OPS]);
    }
    CUdeviceptr dv = gpu_test_upload(v, sizeof v), dolds = gpu_test_upload(NULL, sizeof olds);
    CUdeviceptr dout = gpu_test_upload(NULL, sizeof got);
    void *args[] = {&dv, &dolds, &dout};
    if (gpu_test_run(f, OP_BLOCKS, WARP, args) && gpu_test_download(olds, dolds, sizeof olds) &&
        gpu_test_download(got, dout, sizeof got)) {
        CHECK_SAME(olds, want, OP_BLOCKS * WARP * WARP_OPS);
        for (int b = 0; b < OP_BLOCKS; b++)
            CHECK(memcmp(&got[b], &final[b], offsetof(struct ops, pad)) == 0);
    }
    cuMemFree(dv);
    cuMemFree(dolds);
    cuMemFree(dout);
}

static void test_adds_in_line(CUfunction f)
{
    unsigned c[8] = {0xfffffff0u, 5, 0x80000000u, 0, 11, 12, 0, 0}, old[WARP], want_old[WARP];
    unsigned long long c64[4] = {~0ull - 40, 0, 0, 1ull << 63}, old64[WARP], want64[WARP];
    unsigned want_c[8];
    unsigned long long want_c64[4];
    memcpy(want_c, c, sizeof c);
    memcpy(want_c64, c64, sizeof c64);
    for (int l = 0; l < WARP; l++) {
        want_old[l] = want_c[l % 3];
        want_c[l % 3] += 0x10000001u * (unsigned)(l + 1);
        want64[l] = want_c64[l % 2 * 3];
        want_c64[l % 2 * 3] += 0x4000000000000001ull * (unsigned)(l + 1);
        want_c[4 + l % 2] += (unsigned)l;
    }
    CUdeviceptr dc = gpu_test_upload(c, sizeof c), dold = gpu_test_upload(NULL, sizeof old);
    CUdeviceptr dc64 = gpu_test_upload(c64, sizeof c64),
                dold64 = gpu_test_upload(NULL, sizeof old64);
    void *args[] = {&dc, &dold, &dc64, &dold64};
    if (gpu_test_run(f, 1, WARP, args) && gpu_test_download(c, dc, sizeof c) &&
        gpu_test_download(old, dold, sizeof old) && gpu_test_download(c64, dc64, sizeof c64) &&
        gpu_test_download(old64, dold64, sizeof old64)) {
        CHECK_SAME(old, want_old, WARP);
        CHECK_SAME(c, want_c, 8);
        CHECK_SAME(old64, want64, WARP);
        CHECK_SAME(c64, want_c64, 4);
    }
    cuMemFree(dc);
    cuMemFree(dold);
    cuMemFree(dc64);
    cuMemFree(dold64);
}

static void test_warp_order(void)
{
    CUmodule module;
    CUfunction shared_ops, adds_in_line;
    if (!CHECK_CU(gpu_test_load_source(&module, warp_source, "warp_atomics.cu")) ||
        !CHECK_CU(cuModuleGetFunction(&shared_ops, module, "shared_ops")) ||
        !CHECK_CU(cuModuleGetFunction(&adds_in_line, module, "adds_in_line")))
        return;
    test_shared_ops(shared_ops);
    test_adds_in_line(adds_in_line);
    CHECK_CU(cuModuleUnload(module));
}

/* Two warps of one block; c[0..7] is one line. */
static const char deferred_source[] =
    "extern \"C\" __global__ void deferred(unsigned *c, unsigned *seen, unsigned *after)\n"
    "{\n"
    "    unsigned l = threadIdx.x;\n"
    "    atomicAdd(&c[l % 4], 1u);\n"
    "    seen[l] = c[l % 4];\n"
    "    if (l < 32) {\n"
    "        atomicAdd(&c[5], 1u);\n"
    "        if (l == 0) c[5] = 1000u;\n"
    "    }\n"
    "    atomicAdd(&c[6], 1u);\n"
    "    __syncthreads();\n"
    "    if (l >= 32) after[l - 32] = c[6];\n"
    "    atomicAdd(&c[7], 2u);\n"
    "}\n";

static void test_deferred_adds(void)
{
    enum { THREADS_2 = 2 * WARP };
    CUmodule module;
    CUfunction f;
    if (!CHECK_CU(gpu_test_load_source(&module, deferred_source, "deferred.cu")) ||
        !CHECK_CU(cuModuleGetFunction(&f, module, "deferred")))
        return;
    unsigned c[8] = {0}, seen[THREADS_2], after[WARP];
    CUdeviceptr dc = gpu_test_upload(c, sizeof c), dseen = gpu_test_upload(NULL, sizeof seen),
                dafter = gpu_test_upload(NULL, sizeof after);
    void *args[] = {&dc, &dseen, &dafter};
    if (gpu_test_run(f, 1, THREADS_2, args) && gpu_test_download(c, dc, sizeof c) &&
        gpu_test_download(seen, dseen, sizeof seen) &&
        gpu_test_download(after, dafter, sizeof after)) {
        unsigned want_c[8] = {16, 16, 16, 16, 0, 1000, 64, 128}, want_after[WARP];
        for (int l = 0; l < THREADS_2; l++) /* its own warp's 8 adds, maybe the other's */
            CHECK(seen[l] >= 8 && seen[l] <= 16);
        for (int l = 0; l < WARP; l++)
            want_after[l] = 64;
        CHECK_SAME(c, want_c, 8);
        CHECK_SAME(after, want_after, WARP);
    }
    cuMemFree(dc);
    cuMemFree(dseen);
    cuMemFree(dafter);
    CHECK_CU(cuModuleUnload(module));
}

/* Adds to 1M distinct elements, each once (a scatter-add: red.global.add.f32,
 * and an integer add whose result nothing reads, which the compiled tier
 * holds back): right results, and the host memory the launch takes stays
 * far below what counting its atomics address by address would take (the
 * timing model's tables are bounded). */
static const char scatter_source[] =
    "extern \"C\" __global__ void scatter(float *f, unsigned *u, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) "
    "{\n"
    "        int j = (int)((long long)i * 97 % n);\n"
    "        atomicAdd(&f[j], (float)(j % 7));\n"
    "        atomicAdd(&u[j], 3u);\n"
    "    }\n"
    "}\n";

#define SCATTER_N          (1 << 20)
#define SCATTER_GROWTH_MAX (64 << 20) /* bytes the launch may add to the process's peak */

/* A field of /proc/self/status in bytes (its kB), or -1. */
static long long status_bytes(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long long kb = -1;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0 && line[n] == ':')
            kb = atoll(line + n + 1);
    if (f)
        fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

/* Starts a new peak of the process's resident memory: its current size. */
static long long peak_reset(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    int ok = f && fputs("5", f) >= 0;
    if (f)
        ok = fclose(f) == 0 && ok;
    return CHECK(ok) ? status_bytes("VmRSS") : -1;
}

static void test_scattered_adds(void)
{
    CUmodule module;
    CUfunction f;
    if (!CHECK_CU(gpu_test_load_source(&module, scatter_source, "scatter.cu")) ||
        !CHECK_CU(cuModuleGetFunction(&f, module, "scatter")))
        return;
    float *fs = malloc(SCATTER_N * sizeof *fs);
    unsigned *us = malloc(SCATTER_N * sizeof *us);
    CUdeviceptr df = gpu_test_upload(NULL, SCATTER_N * sizeof *fs);
    CUdeviceptr du = gpu_test_upload(NULL, SCATTER_N * sizeof *us);
    int n = WARP; /* first a small launch: a compile's memory is not the launch's */
    void *args[] = {&df, &du, &n};
    if (CHECK(fs && us) && gpu_test_run(f, 1, WARP, args)) {
        CHECK_CU(cuMemsetD8(df, 0, SCATTER_N * sizeof *fs));
        CHECK_CU(cuMemsetD8(du, 0, SCATTER_N * sizeof *us));
        n = SCATTER_N;
        long long before = peak_reset();
        int ran = gpu_test_run(f, BINS * 4, BINS, args);
        long long peak = status_bytes("VmHWM");
        printf("  scattered adds: the peak grew by %lld MB\n", (peak - before) >> 20);
        CHECK(before > 0 && peak - before < SCATTER_GROWTH_MAX);
        if (ran && CHECK_CU(cuMemcpyDtoH(fs, df, SCATTER_N * sizeof *fs)) &&
            CHECK_CU(cuMemcpyDtoH(us, du, SCATTER_N * sizeof *us))) {
            int wrong = 0;
            for (int j = 0; j < SCATTER_N; j++)
                wrong += fs[j] != (float)(j % 7) || us[j] != 3u;
            CHECK_EQ(wrong, 0);
        }
    }
    free(fs);
    free(us);
    cuMemFree(df);
    cuMemFree(du);
    CHECK_CU(cuModuleUnload(module));
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
    test_warp_order();
    test_deferred_adds();
    test_scattered_adds();
    CHECK_CU(cuCtxDestroy(context));
    return gpu_test_summary();
}
