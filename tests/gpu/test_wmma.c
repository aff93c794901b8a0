/*
 * nvcuda::wmma on the virtual GPU: matrix products of every shape and type
 * the API offers on sm_90, against a matrix product on the host.
 * - One warp, one tile: D = A·B + C for .m16n16k16, .m32n8k16 and
 *   .m8n32k16 with f16 inputs and f16 or f32 accumulators, A and B each row-
 *   or column-major, C loaded and D stored each row- or column-major, every
 *   matrix inside a larger array (leading dimensions above the minimum);
 *   bf16 (16×16×16), tf32 (16×16×8, each element rounded with
 *   __float_to_tf32), s8 and u8 (16×16×16, and .satfinite), f64 (8×8×4),
 *   s4 (8×8×32) and b1 (8×8×128, AND and XOR popcounts). Inputs are small
 *   integers, so every product is exact on any GPU and compared bit for bit;
 *   random fractions are compared within f32's accumulation error.
 * - A whole GEMM: a grid of warps, each a 16×16 tile of D looping over K,
 *   D = alpha·A·B + beta·C by element-wise fragment arithmetic (the CUDA
 *   samples' simpleTensorCoreGEMM), from global memory and staged through
 *   padded shared memory.
 * - A misaligned fragment and one past its buffer's end are faults
 *   (CUDA_ERROR_MISALIGNED_ADDRESS, CUDA_ERROR_ILLEGAL_ADDRESS), and the
 *   timing model counts each wmma.mma as a tensor-core instruction.
 */
#include <math.h>
#include <stdbool.h>

#include "gpu_test.h"

#define SHOW      4
#define PAD       8 /* elements added to each leading dimension */
#define SMALL     4 /* inputs in [-SMALL, SMALL] */
#define GEMM_M    64
#define GEMM_N    48
#define GEMM_K    80
#define GEMM_WARP 32

/* ------------------------------------------------------ the kernels */

static const char source[] =
    "#include <mma.h>\n"
    "#include <cuda_fp16.h>\n"
    "#include <cuda_bf16.h>\n"
    "using namespace nvcuda;\n"
    "typedef wmma::row_major row;\n"
    "typedef wmma::col_major col;\n"
    "__device__ wmma::layout_t layout(int column_major)\n"
    "{\n"
    "    return column_major ? wmma::mem_col_major : wmma::mem_row_major;\n"
    "}\n"
    /* one warp: D = A·B + C, each matrix with its leading dimension */
    "template <int M, int N, int K, typename In, typename AL, typename BL, typename Acc>\n"
    "__device__ void tile(const In *a, int lda, const In *b, int ldb, const Acc *c, int ldc,\n"
    "    int c_col, Acc *d, int ldd, int d_col)\n"
    "{\n"
    "    wmma::fragment<wmma::matrix_a, M, N, K, In, AL> fa;\n"
    "    wmma::fragment<wmma::matrix_b, M, N, K, In, BL> fb;\n"
    "    wmma::fragment<wmma::accumulator, M, N, K, Acc> fc;\n"
    "    wmma::load_matrix_sync(fa, a, lda);\n"
    "    wmma::load_matrix_sync(fb, b, ldb);\n"
    "    wmma::load_matrix_sync(fc, c, ldc, layout(c_col));\n"
    "    wmma::mma_sync(fc, fa, fb, fc);\n"
    "    wmma::store_matrix_sync(d, fc, ldd, layout(d_col));\n"
    "}\n"
    "#define TILE(name, M, N, K, In, AL, BL, Acc)\\\n"
    "    extern \"C\" __global__ void name(const In *a, int lda, const In *b, int ldb,\\\n"
    "        const Acc *c, int ldc, int c_col, Acc *d, int ldd, int d_col)\\\n"
    "    { tile<M, N, K, In, AL, BL, Acc>(a, lda, b, ldb, c, ldc, c_col, d, ldd, d_col); }\n"
    "#define LAYOUTS(shape, M, N, K, In, Acc)\\\n"
    "    TILE(shape##_rr, M, N, K, In, row, row, Acc) TILE(shape##_rc, M, N, K, In, row, col, "
    "Acc)\\\n"
    "    TILE(shape##_cr, M, N, K, In, col, row, Acc) TILE(shape##_cc, M, N, K, In, col, col, "
    "Acc)\n"
    "LAYOUTS(h16_f32, 16, 16, 16, __half, float)\n"
    "LAYOUTS(h16_f16, 16, 16, 16, __half, __half)\n"
    "LAYOUTS(h32_f32, 32, 8, 16, __half, float)\n"
    "LAYOUTS(h32_f16, 32, 8, 16, __half, __half)\n"
    "LAYOUTS(h8_f32, 8, 32, 16, __half, float)\n"
    "LAYOUTS(h8_f16, 8, 32, 16, __half, __half)\n"
    "LAYOUTS(bf16, 16, 16, 16, __nv_bfloat16, float)\n"
    "LAYOUTS(s8, 16, 16, 16, signed char, int)\n"
    "LAYOUTS(u8_32, 32, 8, 16, unsigned char, int)\n"
    "LAYOUTS(f64, 8, 8, 4, double, double)\n"
    /* tf32: the elements rounded to tf32 before the product */
    "extern \"C\" __global__ void tf32_rc(const float *a, int lda, const float *b, int ldb,\n"
    "    const float *c, int ldc, int c_col, float *d, int ldd, int d_col)\n"
    "{\n"
    "    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, row> fa;\n"
    "    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, col> fb;\n"
    "    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;\n"
    "    wmma::load_matrix_sync(fa, a, lda);\n"
    "    wmma::load_matrix_sync(fb, b, ldb);\n"
    "    for (int i = 0; i < fa.num_elements; i++) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);\n"
    "    for (int i = 0; i < fb.num_elements; i++) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);\n"
    "    wmma::load_matrix_sync(fc, c, ldc, layout(c_col));\n"
    "    wmma::mma_sync(fc, fa, fb, fc);\n"
    "    wmma::store_matrix_sync(d, fc, ldd, layout(d_col));\n"
    "}\n"
    /* s8 with .satfinite: D saturates to int's range */
    "extern \"C\" __global__ void s8_sat(const signed char *a, int lda, const signed char *b,\n"
    "    int ldb, const int *c, int ldc, int c_col, int *d, int ldd, int d_col)\n"
    "{\n"
    "    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, row> fa;\n"
    "    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, col> fb;\n"
    "    wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;\n"
    "    wmma::load_matrix_sync(fa, a, lda);\n"
    "    wmma::load_matrix_sync(fb, b, ldb);\n"
    "    wmma::load_matrix_sync(fc, c, ldc, layout(c_col));\n"
    "    wmma::mma_sync(fc, fa, fb, fc, true);\n"
    "    wmma::store_matrix_sync(d, fc, ldd, layout(d_col));\n"
    "}\n"
    /* the sub-byte types: A row-major, B column-major, strides in elements */
    "using namespace nvcuda::wmma::experimental;\n"
    "extern \"C\" __global__ void s4_rc(const void *a, int lda, const void *b, int ldb,\n"
    "    const int *c, int ldc, int c_col, int *d, int ldd, int d_col)\n"
    "{\n"
    "    wmma::fragment<wmma::matrix_a, 8, 8, 32, precision::s4, row> fa;\n"
    "    wmma::fragment<wmma::matrix_b, 8, 8, 32, precision::s4, col> fb;\n"
    "    wmma::fragment<wmma::accumulator, 8, 8, 32, int> fc;\n"
    "    wmma::load_matrix_sync(fa, a, lda);\n"
    "    wmma::load_matrix_sync(fb, b, ldb);\n"
    "    wmma::load_matrix_sync(fc, c, ldc, layout(c_col));\n"
    "    wmma::mma_sync(fc, fa, fb, fc);\n"
    "    wmma::store_matrix_sync(d, fc, ldd, layout(d_col));\n"
    "}\n"
    "template <wmma::experimental::bmmaBitOp Op>\n"
    "__device__ void b1(const void *a, int lda, const void *b, int ldb, const int *c, int ldc,\n"
    "    int c_col, int *d, int ldd, int d_col)\n"
    "{\n"
    "    wmma::fragment<wmma::matrix_a, 8, 8, 128, precision::b1, row> fa;\n"
    "    wmma::fragment<wmma::matrix_b, 8, 8, 128, precision::b1, col> fb;\n"
    "    wmma::fragment<wmma::accumulator, 8, 8, 128, int> fc;\n"
    "    wmma::load_matrix_sync(fa, a, lda);\n"
    "    wmma::load_matrix_sync(fb, b, ldb);\n"
    "    wmma::load_matrix_sync(fc, c, ldc, layout(c_col));\n"
    "    wmma::bmma_sync(fc, fa, fb, fc, Op);\n"
    "    wmma::store_matrix_sync(d, fc, ldd, layout(d_col));\n"
    "}\n"
    "extern \"C\" __global__ void b1_and(const void *a, int lda, const void *b, int ldb,\n"
    "    const int *c, int ldc, int c_col, int *d, int ldd, int d_col)\n"
    "{ b1<bmmaBitOpAND>(a, lda, b, ldb, c, ldc, c_col, d, ldd, d_col); }\n"
    "extern \"C\" __global__ void b1_xor(const void *a, int lda, const void *b, int ldb,\n"
    "    const int *c, int ldc, int c_col, int *d, int ldd, int d_col)\n"
    "{ b1<bmmaBitOpXOR>(a, lda, b, ldb, c, ldc, c_col, d, ldd, d_col); }\n"
    /* a GEMM: each warp one 16×16 tile of D = alpha·A·B + beta·C, A row-major
     * (M×K), B column-major (K×N), C and D row-major; `staged` copies each
     * A tile to padded shared memory first */
    "extern \"C\" __global__ void gemm(const __half *a, const __half *b, const float *c,\n"
    "    float *d, int m, int n, int k, float alpha, float beta, int staged)\n"
    "{\n"
    "    __shared__ __half tile_a[4][16][16 + 8];\n"
    "    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;\n"
    "    int first = (blockIdx.y * 4 + warp) * 16, column = blockIdx.x * 16;\n"
    "    if (first >= m) return;\n"
    "    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, row> fa;\n"
    "    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, col> fb;\n"
    "    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc, fc;\n"
    "    wmma::fill_fragment(acc, 0.0f);\n"
    "    for (int i = 0; i < k; i += 16) {\n"
    "        if (staged) {\n"
    "            for (int e = lane; e < 256; e += 32)\n"
    "                tile_a[warp][e / 16][e % 16] = a[(first + e / 16) * k + i + e % 16];\n"
    "            __syncwarp();\n"
    "            wmma::load_matrix_sync(fa, &tile_a[warp][0][0], 16 + 8);\n"
    "            __syncwarp();\n"
    "        } else {\n"
    "            wmma::load_matrix_sync(fa, a + first * k + i, k);\n"
    "        }\n"
    "        wmma::load_matrix_sync(fb, b + column * k + i, k);\n"
    "        wmma::mma_sync(acc, fa, fb, acc);\n"
    "    }\n"
    "    wmma::load_matrix_sync(fc, c + first * n + column, n, wmma::mem_row_major);\n"
    "    for (int i = 0; i < fc.num_elements; i++)\n"
    "        fc.x[i] = alpha * acc.x[i] + beta * fc.x[i];\n"
    "    wmma::store_matrix_sync(d + first * n + column, fc, n, wmma::mem_row_major);\n"
    "}\n";

/* --------------------------------------------------- elements on the host */

enum element { E_F16, E_BF16, E_F32, E_F64, E_S8, E_U8, E_S4, E_B1, E_S32 };

static const unsigned element_bits[] = {16, 16, 32, 64, 8, 8, 4, 1, 32};

/* The bits of a small integer (or, for floats, any value exact in the type). */
static uint64_t encode(enum element e, double v)
{
    switch (e) {
    case E_F16: {
        _Float16 h = (_Float16)v;
        uint16_t u;
        memcpy(&u, &h, 2);
        return u;
    }
    case E_BF16:
        return gpu_test_float_bits((float)v) >> 16;
    case E_F32:
        return gpu_test_float_bits((float)v);
    case E_F64:
        return gpu_test_double_bits(v);
    case E_S4:
        return (uint64_t)(int64_t)v & 0xf;
    case E_B1:
        return v != 0;
    default:
        return (uint64_t)(int64_t)v & (element_bits[e] == 32 ? 0xffffffffu : 0xffu);
    }
}

static double decode(enum element e, uint64_t bits)
{
    switch (e) {
    case E_F16: {
        uint16_t u = (uint16_t)bits;
        _Float16 h;
        memcpy(&h, &u, 2);
        return (double)h;
    }
    case E_F32:
        return gpu_test_float_of((uint32_t)bits);
    case E_F64:
        return gpu_test_double_of(bits);
    default: /* S32 */
        return (int32_t)bits;
    }
}

/* A matrix in memory: `lines` rows (or columns) `ld` elements apart. */
struct stored {
    enum element element;
    int rows, cols;
    bool column_major;
    int ld;
    size_t bytes;
    unsigned char *data;
};

static size_t element_offset_bits(const struct stored *s, int r, int c)
{
    size_t index = s->column_major ? (size_t)c * s->ld + r : (size_t)r * s->ld + c;
    return index * element_bits[s->element];
}

/* Elements of 8 bits or fewer are packed from each byte's low bits. */
static void put(struct stored *s, int r, int c, uint64_t bits)
{
    size_t at = element_offset_bits(s, r, c);
    unsigned width = element_bits[s->element];
    if (width < 8) {
        unsigned mask = (1u << width) - 1;
        s->data[at / 8] =
            (unsigned char)((s->data[at / 8] & ~(mask << at % 8)) | (bits & mask) << at % 8);
        return;
    }
    memcpy(s->data + at / 8, &bits, width / 8);
}

static uint64_t get(const struct stored *s, int r, int c)
{
    uint64_t bits = 0;
    memcpy(&bits, s->data + element_offset_bits(s, r, c) / 8, element_bits[s->element] / 8);
    return bits;
}

/* A rows×cols matrix stored with a leading dimension 16 bytes past the
 * smallest; values[i] is element i in row-major order. */
static bool store(struct stored *s, enum element e, int rows, int cols, bool column_major,
                  const double *values)
{
    s->element = e;
    s->rows = rows, s->cols = cols;
    s->column_major = column_major;
    s->ld = (column_major ? rows : cols) + (int)(128 / element_bits[e]);
    s->bytes = (size_t)s->ld * (column_major ? cols : rows) * element_bits[e] / 8;
    s->data = calloc(1, s->bytes);
    if (s->data == NULL)
        return false;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            put(s, r, c, encode(e, values[r * cols + c]));
    return true;
}

static double small_value(enum element e)
{
    int range = e == E_U8 || e == E_B1 ? SMALL + 1 : 2 * SMALL + 1;
    int v = (int)(gpu_test_rng() % (uint64_t)range) - (e == E_U8 || e == E_B1 ? 0 : SMALL);
    return e == E_B1 ? v & 1 : v;
}

/* The four matrices of D = A·B + C as stored for a kernel. */
struct operands {
    struct stored a, b, c, d;
};

static void free_operands(struct operands *o)
{
    free(o->a.data);
    free(o->b.data);
    free(o->c.data);
    free(o->d.data);
}

/* Runs `kernel` (a, lda, b, ldb, c, ldc, c_col, d, ldd, d_col) on one warp
 * and reads D back into o->d; 0 after counting a failure. */
static int run_on_warp(CUmodule module, const char *kernel, struct operands *o)
{
    CUfunction f;
    CUdeviceptr da = gpu_test_upload(o->a.data, o->a.bytes);
    CUdeviceptr db = gpu_test_upload(o->b.data, o->b.bytes);
    CUdeviceptr dc = gpu_test_upload(o->c.data, o->c.bytes);
    CUdeviceptr dd = gpu_test_upload(o->d.data, o->d.bytes);
    int c_col = o->c.column_major, d_col = o->d.column_major;
    void *args[] = {&da, &o->a.ld, &db, &o->b.ld, &dc, &o->c.ld, &c_col, &dd, &o->d.ld, &d_col};
    int ok = CHECK_CU(cuModuleGetFunction(&f, module, kernel)) && gpu_test_run(f, 1, 32, args) &&
             gpu_test_download(o->d.data, dd, o->d.bytes);
    cuMemFree(da);
    cuMemFree(db);
    cuMemFree(dc);
    return ok;
}

/* --------------------------------------------------------- one tile */

struct tile_case {
    const char *kernel;
    int m, n, k;
    enum element in, acc;
    bool a_col, b_col;
    enum { PRODUCT, AND_POPC, XOR_POPC, SATURATE } op;
    double c_base; /* added to every element of C */
};

/* D = A·B + C on the host, with the case's operation. */
static double reference(const struct tile_case *t, const double *a, const double *b,
                        const double *c, int i, int j)
{
    double sum = c[i * t->n + j];
    for (int kk = 0; kk < t->k; kk++) {
        double x = a[i * t->k + kk], y = b[kk * t->n + j];
        sum += t->op == AND_POPC   ? (double)(x != 0 && y != 0)
               : t->op == XOR_POPC ? (double)((x != 0) != (y != 0))
                                   : x * y;
    }
    if (t->op == SATURATE)
        sum = sum > INT32_MAX ? INT32_MAX : sum < INT32_MIN ? INT32_MIN : sum;
    return sum;
}

/* Runs the case's kernel on one warp with C loaded and D stored each way;
 * every element of D must be the host's. */
static void run_tile(CUmodule module, const struct tile_case *t, bool c_col, bool d_col)
{
    double a[32 * 128], b[128 * 32], c[32 * 32];
    for (int i = 0; i < t->m * t->k; i++)
        a[i] = small_value(t->in);
    for (int i = 0; i < t->k * t->n; i++)
        b[i] = small_value(t->in);
    double c_scale = t->acc == E_S32 && t->op != SATURATE ? 1000 : 1; /* s32 takes more */
    for (int i = 0; i < t->m * t->n; i++)
        c[i] = t->c_base + small_value(E_S8) * c_scale;
    struct operands o;
    memset(&o, 0, sizeof o); /* what store() did not reach is freed as NULL */
    double zero[32 * 32] = {0};
    if (CHECK(store(&o.a, t->in, t->m, t->k, t->a_col, a) &&
              store(&o.b, t->in, t->k, t->n, t->b_col, b) &&
              store(&o.c, t->acc, t->m, t->n, c_col, c) &&
              store(&o.d, t->acc, t->m, t->n, d_col, zero)) &&
        run_on_warp(module, t->kernel, &o)) {
        int wrong = 0;
        for (int i = 0; i < t->m; i++)
            for (int j = 0; j < t->n; j++) {
                double want = reference(t, a, b, c, i, j), got = decode(t->acc, get(&o.d, i, j));
                if (got != want && wrong++ < SHOW)
                    fprintf(stderr, "  %s (C %s, D %s): D[%d][%d] is %g, expected %g\n", t->kernel,
                            c_col ? "col" : "row", d_col ? "col" : "row", i, j, got, want);
            }
        CHECK(wrong == 0);
    }
    free_operands(&o);
}

/* The tile cases: every shape and type, A and B in each layout. */
#define FOUR_LAYOUTS(name, m, n, k, in, acc)                                                       \
    {name "_rr", m, n, k, in, acc, false, false, PRODUCT, 0},                                      \
        {name "_rc", m, n, k, in, acc, false, true, PRODUCT, 0},                                   \
        {name "_cr", m, n, k, in, acc, true, false, PRODUCT, 0},                                   \
    {                                                                                              \
        name "_cc", m, n, k, in, acc, true, true, PRODUCT, 0                                       \
    }

static const struct tile_case tiles[] = {
    FOUR_LAYOUTS("h16_f32", 16, 16, 16, E_F16, E_F32),
    FOUR_LAYOUTS("h16_f16", 16, 16, 16, E_F16, E_F16),
    FOUR_LAYOUTS("h32_f32", 32, 8, 16, E_F16, E_F32),
    FOUR_LAYOUTS("h32_f16", 32, 8, 16, E_F16, E_F16),
    FOUR_LAYOUTS("h8_f32", 8, 32, 16, E_F16, E_F32),
    FOUR_LAYOUTS("h8_f16", 8, 32, 16, E_F16, E_F16),
    FOUR_LAYOUTS("bf16", 16, 16, 16, E_BF16, E_F32),
    FOUR_LAYOUTS("s8", 16, 16, 16, E_S8, E_S32),
    FOUR_LAYOUTS("u8_32", 32, 8, 16, E_U8, E_S32),
    FOUR_LAYOUTS("f64", 8, 8, 4, E_F64, E_F64),
    {"tf32_rc", 16, 16, 8, E_F32, E_F32, false, true, PRODUCT, 0},
    {"s8_sat", 16, 16, 16, E_S8, E_S32, false, true, SATURATE, INT32_MAX - 40.0},
    {"s4_rc", 8, 8, 32, E_S4, E_S32, false, true, PRODUCT, 0},
    {"b1_and", 8, 8, 128, E_B1, E_S32, false, true, AND_POPC, 0},
    {"b1_xor", 8, 8, 128, E_B1, E_S32, false, true, XOR_POPC, 0},
};
#define N_TILES (sizeof tiles / sizeof tiles[0])

static void test_tiles(CUmodule module)
{
    for (size_t i = 0; i < N_TILES; i++)
        for (int c_col = 0; c_col < 2; c_col++)
            for (int d_col = 0; d_col < 2; d_col++)
                run_tile(module, &tiles[i], c_col, d_col);
}

/* ------------------------------------------------- fractions and tf32 */

/* f16 fractions with an f32 accumulator, and f32 fractions through tf32:
 * within f32's accumulation error of the exact product of what the tensor
 * cores read (f16 inputs exactly; f32 inputs rounded to tf32 by
 * __float_to_tf32, ties away from zero). */
static float tf32_of(float x)
{
    uint32_t u = gpu_test_float_bits(x);
    return gpu_test_float_of((u + 0x1000u) & ~0x1fffu); /* finite inputs only */
}

static void run_fractions(CUmodule module, const char *kernel, int k, enum element in)
{
    enum { M = 16, N = 16 };
    double a[M * 16], b[16 * N], c[M * N], zero[M * N] = {0};
    for (int i = 0; i < M * k; i++)
        a[i] = in == E_F16 ? (double)(_Float16)gpu_test_uniform(-1, 1) : gpu_test_uniform(-1, 1);
    for (int i = 0; i < k * N; i++)
        b[i] = in == E_F16 ? (double)(_Float16)gpu_test_uniform(-1, 1) : gpu_test_uniform(-1, 1);
    for (int i = 0; i < M * N; i++)
        c[i] = (float)gpu_test_uniform(-1, 1);
    struct operands o;
    memset(&o, 0, sizeof o); /* what store() did not reach is freed as NULL */
    if (CHECK(store(&o.a, in, M, k, false, a) && store(&o.b, in, k, N, true, b) &&
              store(&o.c, E_F32, M, N, false, c) && store(&o.d, E_F32, M, N, false, zero)) &&
        run_on_warp(module, kernel, &o)) {
        int wrong = 0;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double want = c[i * N + j], scale = fabs(want);
                for (int kk = 0; kk < k; kk++) {
                    double x = a[i * k + kk], y = b[kk * N + j];
                    if (in == E_F32)
                        x = tf32_of((float)x), y = tf32_of((float)y);
                    want += x * y;
                    scale += fabs(x * y);
                }
                double got = decode(E_F32, get(&o.d, i, j));
                if (fabs(got - want) > scale * 0x1p-22 && wrong++ < SHOW)
                    fprintf(stderr, "  %s: D[%d][%d] is %.9g, expected %.9g\n", kernel, i, j, got,
                            want);
            }
        CHECK(wrong == 0);
    }
    free_operands(&o);
}

/* ---------------------------------------------------------------- GEMM */

/* A grid of warps computes D = 2·A·B − C, 16×16 tiles looping over K. */
static void run_gemm(CUmodule module, int staged)
{
    enum { M = GEMM_M, N = GEMM_N, K = GEMM_K };
    static uint16_t a[M * K], b[N * K];
    static float c[M * N], d[M * N];
    static double a_value[M * K], b_value[N * K];
    for (int i = 0; i < M * K; i++)
        a[i] = (uint16_t)encode(E_F16, a_value[i] = small_value(E_F16));
    for (int i = 0; i < N * K; i++) /* column-major: column j's K elements together */
        b[i] = (uint16_t)encode(E_F16, b_value[i] = small_value(E_F16));
    for (int i = 0; i < M * N; i++)
        c[i] = (float)small_value(E_S8);
    CUfunction f;
    CUdeviceptr da = gpu_test_upload(a, sizeof a), db = gpu_test_upload(b, sizeof b);
    CUdeviceptr dc = gpu_test_upload(c, sizeof c), dd = gpu_test_upload(NULL, sizeof d);
    int m = M, n = N, k = K;
    float alpha = 2.0f, beta = -1.0f;
    void *args[] = {&da, &db, &dc, &dd, &m, &n, &k, &alpha, &beta, &staged};
    if (CHECK_CU(cuModuleGetFunction(&f, module, "gemm")) &&
        gpu_test_run3(f, N / 16, (M + 63) / 64, 1, 4 * GEMM_WARP, 1, 1, 0, args) &&
        gpu_test_download(d, dd, sizeof d)) {
        int wrong = 0;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double sum = 0;
                for (int kk = 0; kk < K; kk++)
                    sum += a_value[i * K + kk] * b_value[j * K + kk];
                double want = alpha * sum + beta * c[i * N + j];
                if (d[i * N + j] != want && wrong++ < SHOW)
                    fprintf(stderr, "  gemm (staged %d): D[%d][%d] is %g, expected %g\n", staged, i,
                            j, d[i * N + j], want);
            }
        CHECK(wrong == 0);
    }
    cuMemFree(da);
    cuMemFree(db);
    cuMemFree(dc);
}

/* Each wmma.mma is one tensor-core instruction in the timing model. */
static void check_tensor_count(void)
{
    int (*counters_of)(struct kgemu_counters *);
    *(void **)&counters_of = dlsym(RTLD_DEFAULT, "kgemu_last_counters");
    struct kgemu_counters counters;
    if (counters_of == NULL || counters_of(&counters) != 1)
        return;
    uint64_t warps = (GEMM_M / 16) * (GEMM_N / 16);
    CHECK_EQ(counters.warp_instructions[6], warps * (GEMM_K / 16));
}

/* ---------------------------------------------------------------- faults */

/* h16_f32_rr with A at `a_offset` halves into its buffer and lda `lda`:
 * the launch's result. */
static CUresult faulting_tile(int a_offset, int lda, int a_elements)
{
    CUcontext context;
    CUmodule module;
    CUfunction f;
    CUresult result = CUDA_ERROR_UNKNOWN;
    const char *options[] = {gpu_test_toolkit_include()};
    if (!gpu_test_start(&context))
        return result;
    if (CHECK_CU(gpu_test_load_source_options(&module, source, "wmma.cu", 1, options)) &&
        CHECK_CU(cuModuleGetFunction(&f, module, "h16_f32_rr"))) {
        CUdeviceptr a = gpu_test_upload(NULL, (size_t)a_elements * 2);
        CUdeviceptr b = gpu_test_upload(NULL, 16 * 16 * 2), c = gpu_test_upload(NULL, 16 * 16 * 4);
        CUdeviceptr d = gpu_test_upload(NULL, 16 * 16 * 4), a_at = a + (CUdeviceptr)a_offset * 2;
        int ld = 16, ldb = 16, row = 0;
        void *args[] = {&a_at, &lda, &b, &ldb, &c, &ld, &row, &d, &ld, &row};
        if (CHECK_CU(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL)))
            result = cuCtxSynchronize();
        if (result != CUDA_SUCCESS)
            CHECK(gpu_test_no_host_address(gpu_test_last_fault().message));
    }
    cuCtxDestroy(context);
    return result;
}

static void test_faults(void)
{
    CHECK_CU_IS(faulting_tile(1, 16, 512), CUDA_ERROR_MISALIGNED_ADDRESS); /* 2 bytes off */
    CHECK_CU_IS(faulting_tile(0, 20, 512), CUDA_ERROR_MISALIGNED_ADDRESS); /* 40-byte rows */
    CHECK_CU_IS(faulting_tile(256, 16, 384), CUDA_ERROR_ILLEGAL_ADDRESS);  /* rows past the end */
    CHECK_CU_IS(faulting_tile(0, 24, 16 * 24), CUDA_SUCCESS);              /* padded rows fit */
}

int main(void)
{
    CUcontext context;
    CUmodule module;
    if (!gpu_test_start(&context))
        return gpu_test_summary();
    const char *options[] = {gpu_test_toolkit_include()};
    if (CHECK_CU(gpu_test_load_source_options(&module, source, "wmma.cu", 1, options))) {
        test_tiles(module);
        run_fractions(module, "h16_f32_rc", 16, E_F16);
        run_fractions(module, "tf32_rc", 8, E_F32);
        run_gemm(module, 0);
        run_gemm(module, 1);
        check_tensor_count();
        CHECK_CU(cuModuleUnload(module));
    }
    CHECK_CU(cuCtxDestroy(context));
    test_faults();
    return gpu_test_summary();
}
