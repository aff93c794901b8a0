/*
 * The SIMD video instructions on the virtual GPU (vadd2 vsub2 vavrg2
 * vabsdiff2 vmin2 vmax2 vset2 and the four-lane vadd4 … vset4), through
 * inline PTX, element by element against a host reference written from the
 * PTX ISA's pseudocode.
 *
 * Each variant (operation, d/a/b types, .sat or .add or neither, vset's
 * comparison, a mask on d and lane selectors on a and b) becomes one asm
 * line of one kernel, and a struct the reference reads: every operation
 * with every combination of .u32/.s32 types in all three modes, then masks
 * and selectors that pick lanes from both sources, duplicate and reverse
 * them. Inputs: every pair of words made of edge lanes (0, ±1, the signed
 * and unsigned limits of bytes and half-words) with varied c, and random
 * words. The loader's refusals of malformed forms are checked too.
 */
#include "gpu_test.h"

#define THREADS    128
#define N_RANDOM   4096
#define SHOW       4
#define ASM_CHARS  160
#define N_VARIANTS 640

enum vop { V_ADD, V_SUB, V_AVRG, V_ABSDIFF, V_MIN, V_MAX, V_SET, N_VOPS };
static const char *const vop_names[N_VOPS] = {"vadd", "vsub", "vavrg", "vabsdiff",
                                              "vmin", "vmax", "vset"};
enum mode { M_MERGE, M_SAT, M_ADD, N_MODES };
enum cmp { C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE, N_CMPS };
static const char *const cmp_names[N_CMPS] = {"eq", "ne", "lt", "le", "gt", "ge"};

struct variant {
    enum vop op;
    int lanes; /* 2 or 4 */
    int d_signed, a_signed, b_signed;
    enum mode mode;
    enum cmp cmp;            /* vset */
    const char *mask;        /* digits, or NULL: the default (every lane) */
    const char *asel, *bsel; /* digits, lane n-1 first, or NULL: the defaults */
    char text[ASM_CHARS];    /* the PTX instruction */
};

static struct variant variants[N_VARIANTS];
static int n_variants;

/* ------------------------------------------------------- the reference */

/* extractAndSignExt: part k of {b, a} (`bits` wide), sign- or zero-extended. */
static long long part_of(unsigned a, unsigned b, int k, int bits, int is_signed)
{
    unsigned long long pair = (unsigned long long)b << 32 | a;
    unsigned v = (unsigned)(pair >> (k * bits)) & ((1u << bits) - 1);
    if (is_signed && (v >> (bits - 1)))
        return (long long)v - (1ll << bits);
    return v;
}

/* The part lane i takes under a selector's digits (lane n-1 first). */
static int selected(const char *digits, int lanes, int i, int dflt)
{
    return digits ? digits[lanes - 1 - i] - '0' : dflt;
}

static int lane_on(const char *mask, int i)
{
    return mask == NULL || strchr(mask, '0' + i) != NULL;
}

static long long clamp(long long t, long long lo, long long hi)
{
    return t < lo ? lo : t > hi ? hi : t;
}

static long long operate(const struct variant *v, long long x, long long y)
{
    switch (v->op) {
    case V_ADD:
        return x + y;
    case V_SUB:
        return x - y;
    case V_AVRG:
        return x + y >= 0 ? (x + y + 1) >> 1 : (x + y) >> 1;
    case V_ABSDIFF:
        return x > y ? x - y : y - x;
    case V_MIN:
        return x < y ? x : y;
    case V_MAX:
        return x > y ? x : y;
    default: {
        static const int eq[] = {1, 0, 0, 1, 0, 1}, lt[] = {0, 1, 1, 1, 0, 0},
                         gt[] = {0, 1, 0, 0, 1, 1};
        return x == y ? eq[v->cmp] : x < y ? lt[v->cmp] : gt[v->cmp];
    }
    }
}

static unsigned reference(const struct variant *v, unsigned a, unsigned b, unsigned c)
{
    int bits = 32 / v->lanes;
    unsigned d = 0, acc = c, lane_mask = (1u << bits) - 1;
    for (int i = 0; i < v->lanes; i++) {
        long long x = part_of(a, b, selected(v->asel, v->lanes, i, i), bits, v->a_signed);
        long long y =
            part_of(a, b, selected(v->bsel, v->lanes, i, v->lanes + i), bits, v->b_signed);
        long long t = operate(v, x, y);
        if (v->mode == M_SAT)
            t = v->d_signed ? clamp(t, -(1ll << (bits - 1)), (1ll << (bits - 1)) - 1)
                            : clamp(t, 0, (1ll << bits) - 1);
        if (lane_on(v->mask, i))
            acc += (unsigned)t;
        unsigned lane = lane_on(v->mask, i) ? (unsigned)t : c >> (i * bits);
        d |= (lane & lane_mask) << (i * bits);
    }
    return v->mode == M_ADD ? acc : d;
}

/* ---------------------------------------------------------- the variants */

static void add_variant(struct variant v)
{
    const char *t[2] = {"u32", "s32"};
    char types[32], letter = v.lanes == 4 ? 'b' : 'h';
    char mask[8] = "", asel[8] = "", bsel[8] = "";
    if (v.op == V_SET)
        snprintf(types, sizeof types, "%s.%s.%s", t[v.a_signed], t[v.b_signed], cmp_names[v.cmp]);
    else
        snprintf(types, sizeof types, "%s.%s.%s", t[v.d_signed], t[v.a_signed], t[v.b_signed]);
    if (v.mask)
        snprintf(mask, sizeof mask, ".%c%s", letter, v.mask);
    if (v.asel)
        snprintf(asel, sizeof asel, ".%c%s", letter, v.asel);
    if (v.bsel)
        snprintf(bsel, sizeof bsel, ".%c%s", letter, v.bsel);
    snprintf(v.text, sizeof v.text, "%s%d.%s%s %%0%s, %%1%s, %%2%s, %%3;", vop_names[v.op], v.lanes,
             types,
             v.mode == M_SAT   ? ".sat"
             : v.mode == M_ADD ? ".add"
                               : "",
             mask, asel, bsel);
    if (n_variants < N_VARIANTS)
        variants[n_variants++] = v;
}

/* Every operation, type combination and mode with the default lanes. */
static void add_every_form(int lanes)
{
    for (int op = 0; op < N_VOPS; op++)
        for (int types = 0; types < 8; types++)
            for (int m = 0; m < N_MODES; m++) {
                struct variant v = {.op = op,
                                    .lanes = lanes,
                                    .d_signed = types >> 2 & 1,
                                    .a_signed = types >> 1 & 1,
                                    .b_signed = types & 1,
                                    .mode = m};
                if (op == V_SET && (v.d_signed || m == M_SAT))
                    continue;
                for (int c = 0; c < (op == V_SET ? N_CMPS : 1); c++) {
                    v.cmp = c;
                    add_variant(v);
                }
            }
}

/* Masks and selectors: lanes from either source, repeated, reversed. */
static void add_lane_choices(void)
{
    static const struct {
        int lanes;
        const char *mask, *asel, *bsel;
    } choices[] = {
        {2, "0", NULL, NULL},      {2, "1", "32", "10"},      {2, "10", "00", "33"},
        {2, NULL, "13", "20"},     {2, "1", "21", "01"},      {4, "0", NULL, NULL},
        {4, "31", "7654", "3210"}, {4, "20", "0000", "7777"}, {4, "321", "0123", "4567"},
        {4, NULL, "7250", "1634"}, {4, "3", "3333", "2222"},  {4, "210", "6420", "7531"},
    };
    for (size_t k = 0; k < sizeof choices / sizeof choices[0]; k++)
        for (int op = 0; op < N_VOPS; op++)
            for (int m = 0; m < N_MODES; m++) {
                if (op == V_SET && m == M_SAT)
                    continue;
                struct variant v = {.op = op,
                                    .lanes = choices[k].lanes,
                                    .d_signed = (int)k & 1,
                                    .a_signed = op & 1,
                                    .b_signed = (op ^ m) & 1,
                                    .mode = m,
                                    .cmp = (enum cmp)((k + op) % N_CMPS),
                                    .mask = choices[k].mask,
                                    .asel = choices[k].asel,
                                    .bsel = choices[k].bsel};
                if (op == V_SET)
                    v.d_signed = 0;
                add_variant(v);
            }
}

/* ---------------------------------------------------------------- inputs */

static const unsigned edge_words[] = {
    0x00000000u, 0xffffffffu, 0x7f7f7f7fu, 0x80808080u, 0x01010101u, 0x7f80ff01u,
    0x017fff80u, 0xff00807fu, 0x7fff8000u, 0x80007fffu, 0xffff0001u, 0x0001ffffu,
    0x12345678u, 0xfedcba98u, 0x00ff00ffu, 0x807f7f80u, 0xc0403fc1u, 0x7ffe8001u,
};
#define N_EDGES (sizeof edge_words / sizeof edge_words[0])

static int make_inputs(unsigned **a, unsigned **b, unsigned **c)
{
    int n = (int)(N_EDGES * N_EDGES) * 2 + N_RANDOM, k = 0;
    *a = malloc(n * sizeof **a);
    *b = malloc(n * sizeof **b);
    *c = malloc(n * sizeof **c);
    if (!*a || !*b || !*c)
        return 0;
    for (size_t i = 0; i < N_EDGES; i++)
        for (size_t j = 0; j < N_EDGES; j++)
            for (int r = 0; r < 2; r++, k++) {
                (*a)[k] = edge_words[i];
                (*b)[k] = edge_words[j];
                (*c)[k] = r ? edge_words[(i * 7 + j) % N_EDGES] : (unsigned)gpu_test_rng();
            }
    for (; k < n; k++) {
        uint64_t r = gpu_test_rng();
        (*a)[k] = (unsigned)r;
        (*b)[k] = (unsigned)(r >> 32);
        (*c)[k] = (unsigned)gpu_test_rng();
    }
    return n;
}

/* ------------------------------------------------------------- the test */

static char *kernel_source(void)
{
    size_t size = 1024 + (size_t)n_variants * (ASM_CHARS + 128);
    char *src = malloc(size);
    if (src == NULL)
        return NULL;
    int used = snprintf(src, size,
                        "extern \"C\" __global__ void video(const unsigned *a, const unsigned *b,\n"
                        "    const unsigned *c, unsigned *out, int n)\n"
                        "{\n"
                        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                        "    if (i >= n) return;\n"
                        "    unsigned x = a[i], y = b[i], z = c[i], d;\n");
    for (int k = 0; k < n_variants; k++)
        used += snprintf(src + used, size - (size_t)used,
                         "    asm(\"%s\" : \"=r\"(d) : \"r\"(x), \"r\"(y), \"r\"(z));\n"
                         "    out[(size_t)%d * n + i] = d;\n",
                         variants[k].text, k);
    snprintf(src + used, size - (size_t)used, "}\n");
    return src;
}

static void check_results(const unsigned *out, const unsigned *a, const unsigned *b,
                          const unsigned *c, int n)
{
    for (int k = 0; k < n_variants; k++) {
        int wrong = 0;
        for (int i = 0; i < n; i++) {
            unsigned want = reference(&variants[k], a[i], b[i], c[i]);
            if (out[(size_t)k * n + i] != want && wrong++ < SHOW)
                fprintf(stderr,
                        "  %s with a=0x%08x b=0x%08x c=0x%08x gave 0x%08x, expected 0x%08x\n",
                        variants[k].text, a[i], b[i], c[i], out[(size_t)k * n + i], want);
        }
        if (wrong)
            fprintf(stderr, "  %s: %d of %d results wrong\n", variants[k].text, wrong, n);
        CHECK(wrong == 0);
    }
}

static void test_variants(void)
{
    unsigned *a = NULL, *b = NULL, *c = NULL, *out = NULL;
    int n = make_inputs(&a, &b, &c);
    char *source = kernel_source();
    size_t out_bytes = (size_t)n * n_variants * sizeof *out;
    CUmodule module;
    CUfunction f;
    if (CHECK(n > 0 && source != NULL && (out = malloc(out_bytes)) != NULL) &&
        CHECK_CU(gpu_test_load_source(&module, source, "video.cu"))) {
        CUdeviceptr da = gpu_test_upload(a, n * sizeof *a), db = gpu_test_upload(b, n * sizeof *b);
        CUdeviceptr dc = gpu_test_upload(c, n * sizeof *c), dout = gpu_test_upload(NULL, out_bytes);
        void *args[] = {&da, &db, &dc, &dout, &n};
        if (CHECK_CU(cuModuleGetFunction(&f, module, "video")) &&
            gpu_test_run(f, (unsigned)(n + THREADS - 1) / THREADS, THREADS, args) &&
            gpu_test_download(out, dout, out_bytes))
            check_results(out, a, b, c, n);
        cuMemFree(da);
        cuMemFree(db);
        cuMemFree(dc);
        CHECK_CU(cuModuleUnload(module));
    }
    free(source);
    free(out);
    free(a);
    free(b);
    free(c);
}

/* Forms the ISA does not have: the loader refuses them, naming the line. */
static void test_refused(void)
{
    static const struct {
        const char *insn, *says;
    } bad[] = {
        {"vadd4.u32.u32.u32.sat.add %r1, %r2, %r3, %r4;", "cannot saturate and accumulate"},
        {"vset4.u32.u32.lt.sat %r1, %r2, %r3, %r4;", "unsupported modifier '.sat'"},
        {"vabsdiff4.u32.u32 %r1, %r2, %r3, %r4;", "needs d's, a's and b's types"},
        {"vset2.u32.u32 %r1, %r2, %r3, %r4;", "and a comparison"},
        {"vmin2.s32.s32.s32 %r1.h2, %r2, %r3, %r4;", "is no mask of 'vmin2'"},
        {"vmax4.s32.s32.s32 %r1, %r2.b8210, %r3, %r4;", "is no lane selector of 'vmax4'"},
        {"vsub4.s32.s32.s32 %r1, %r2.h10, %r3, %r4;", "is no lane selector"},
        {"vadd2.f32.s32.s32 %r1, %r2, %r3, %r4;", "unsupported modifier '.f32'"},
        {"vavrg2.s32.s32.s32 %r1, %r2, %r3;", "takes 4 operands"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char ptx[1024], log[GPU_TEST_LOG_BYTES] = "";
        snprintf(ptx, sizeof ptx,
                 ".version 8.0\n.target sm_90\n.address_size 64\n"
                 ".visible .entry k()\n{\n.reg .b32 %%r<5>;\n%s\nret;\n}\n",
                 bad[k].insn);
        CUmodule module;
        CUresult rc = gpu_test_load_ptx_log(&module, ptx, log, sizeof log);
        if (!CHECK_CU_IS(rc, CUDA_ERROR_INVALID_PTX) || !CHECK(strstr(log, bad[k].says)) ||
            !CHECK(strstr(log, "line 7")))
            fprintf(stderr, "  %s: the loader said: %s\n", bad[k].insn, log);
        if (rc == CUDA_SUCCESS)
            cuModuleUnload(module);
    }
}

int main(void)
{
    CUcontext context;
    if (!gpu_test_start(&context))
        return gpu_test_summary();
    add_every_form(2);
    add_every_form(4);
    add_lane_choices();
    CHECK(n_variants < N_VARIANTS);
    test_variants();
    if (gpu_test_is_virtual())
        test_refused();
    CHECK_CU(cuCtxDestroy(context));
    return gpu_test_summary();
}
