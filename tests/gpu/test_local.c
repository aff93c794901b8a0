/*
 * Per-thread local memory on the virtual GPU: arrays too big for registers
 * (int[64], double[200], a 16x16 matrix, byte arrays) indexed by data
 * known only at run time, so the compiler must keep them in .local and
 * every access goes through an address: random swaps, an insertion sort,
 * byte counters, matrix products, and local arrays handed to
 * __noinline__ functions through generic pointers.
 *
 * As in test_divergence.c, each test body is C that is both compiled on
 * the host as the reference and stringified into the kernel; the device
 * functions likewise.
 */
#include "gpu_test.h"

#define N       4096
#define THREADS 128

/* clang-format off */
#define FUNCTIONS(X) X(                                                                            \
NOINLINE void fill(int *p, int n, unsigned seed)                                                   \
{                                                                                                  \
    for (int k = 0; k < n; k++) {                                                                  \
        seed = seed * 1664525u + 1013904223u;                                                      \
        p[k] = (int)(seed >> 8);                                                                   \
    }                                                                                              \
}                                                                                                  \
NOINLINE unsigned weigh(const int *p, int n, int skip)                                             \
{                                                                                                  \
    unsigned s = 0;                                                                                \
    for (int k = 0; k < n; k += skip)                                                              \
        s = s * 31u + (unsigned)p[k];                                                              \
    return s;                                                                                      \
}                                                                                                  \
)

#define TEST_SWAPS(X) X(swaps,                                                                     \
    int t[64];                                                                                     \
    unsigned h = (unsigned)v * 2654435761u + 1u;                                                   \
    for (int k = 0; k < 64; k++)                                                                   \
        t[k] = (v * (k + 1)) ^ k;                                                                  \
    for (int step = 0; step < 150; step++) {                                                       \
        int a = (int)(h >> 3) & 63, b = (int)(h >> 11) & 63;                                       \
        int tmp = t[a];                                                                            \
        t[a] = t[b] + step;                                                                        \
        t[b] = tmp;                                                                                \
        h = h * 1103515245u + 12345u;                                                              \
    }                                                                                              \
    unsigned sum = 0;                                                                              \
    for (int k = 0; k < 64; k++)                                                                   \
        sum += (unsigned)t[k] * (unsigned)(k + 1);                                                 \
    out[i] = (int)(sum ^ (unsigned)t[v & 63]);)

#define TEST_SORT(X) X(insertion_sort,                                                             \
    int t[48];                                                                                     \
    unsigned h = (unsigned)v;                                                                      \
    int len = 1 + (v & 31) + 16;                                                                   \
    for (int k = 0; k < len; k++) {                                                                \
        h = h * 747796405u + 2891336453u;                                                          \
        t[k] = (int)(h >> 12) - 300000;                                                            \
    }                                                                                              \
    for (int k = 1; k < len; k++) {                                                                \
        int x = t[k], j = k - 1;                                                                   \
        while (j >= 0 && t[j] > x) {                                                               \
            t[j + 1] = t[j];                                                                       \
            j--;                                                                                   \
        }                                                                                          \
        t[j + 1] = x;                                                                              \
    }                                                                                              \
    unsigned s = 0;                                                                                \
    for (int k = 0; k < len; k++)                                                                  \
        s = s * 131u + (unsigned)t[k];                                                             \
    out[i] = (int)s + t[(unsigned)v % (unsigned)len];)

#define TEST_DOUBLES(X) X(doubles,                                                                 \
    double d[200];                                                                                 \
    for (int k = 0; k < 200; k++)                                                                  \
        d[k] = k * 0.5 + (v & 0xffff);                                                             \
    unsigned h = (unsigned)v | 1u;                                                                 \
    double acc = 0;                                                                                \
    for (int step = 0; step < 100; step++) {                                                       \
        h ^= h << 13;                                                                              \
        h ^= h >> 17;                                                                              \
        h ^= h << 5;                                                                               \
        int a = (int)(h % 200u);                                                                   \
        acc += d[a];                                                                               \
        d[(a * 7 + 3) % 200] = acc * 0.25;                                                         \
    }                                                                                              \
    out[i] = (int)(acc / 1e6) ^ (int)(d[(v & 0x7fffffff) % 200] / 1e6);)

#define TEST_BYTES(X) X(byte_counts,                                                               \
    unsigned char c[256];                                                                          \
    for (int k = 0; k < 256; k++)                                                                  \
        c[k] = (unsigned char)k;                                                                   \
    unsigned h = (unsigned)v;                                                                      \
    for (int step = 0; step < 300; step++) {                                                       \
        h = h * 1664525u + 1013904223u;                                                            \
        c[h >> 24]++;                                                                              \
    }                                                                                              \
    unsigned s = 0;                                                                                \
    for (int k = 0; k < 256; k += 3)                                                               \
        s = s * 7u + c[k];                                                                         \
    out[i] = (int)s;)

#define TEST_MATRIX(X) X(matrix,                                                                   \
    int m[16][16], r[16][16];                                                                      \
    int n = 4 + (v & 7) + (v & 4);                                                                 \
    for (int a = 0; a < n; a++)                                                                    \
        for (int b = 0; b < n; b++)                                                                \
            m[a][b] = ((a * 3 + b * 5 + v) & 15) - 7;                                              \
    for (int a = 0; a < n; a++)                                                                    \
        for (int b = 0; b < n; b++) {                                                              \
            int s = 0;                                                                             \
            for (int k = 0; k < n; k++)                                                            \
                s += m[a][k] * m[k][b];                                                            \
            r[b][a] = s;                                                                           \
        }                                                                                          \
    out[i] = r[((unsigned)v >> 4) % n][((unsigned)v >> 8) % n] * 1000 + r[n - 1][0];)

#define TEST_CALLS(X) X(through_pointers,                                                          \
    int a[40], b[24];                                                                              \
    fill(a, 40, (unsigned)v);                                                                      \
    fill(b, 24, (unsigned)v ^ 0x5555u);                                                            \
    a[(v & 0xffff) % 40] += b[(v >> 16 & 0xffff) % 24];                                            \
    out[i] = (int)(weigh(a, 40, 1 + (v & 3)) ^ weigh(b, 24, 1));)
/* clang-format on */

#define ALL_TESTS(X)                                                                               \
    TEST_SWAPS(X)                                                                                  \
    TEST_SORT(X)                                                                                   \
    TEST_DOUBLES(X)                                                                                \
    TEST_BYTES(X)                                                                                  \
    TEST_MATRIX(X)                                                                                 \
    TEST_CALLS(X)

#define NOINLINE     static
#define AS_CODE(...) __VA_ARGS__
#define AS_TEXT(...) #__VA_ARGS__
FUNCTIONS(AS_CODE)
#undef NOINLINE

ALL_TESTS(GPU_TEST_HOST_BODY)
static const struct gpu_test_body tests[] = {ALL_TESTS(GPU_TEST_BODY)};
#define N_TESTS ((int)(sizeof tests / sizeof tests[0]))

/* What the kernels call: the device functions. */
static const char prelude[] = "#define NOINLINE __device__ __noinline__\n" FUNCTIONS(AS_TEXT) "\n";

/* The kernels really use local memory: their PTX declares a .local depot
 * and loads and stores through it. */
static void check_uses_local(void)
{
    char *source = gpu_test_body_source(&tests[0], prelude);
    char *ptx = source != NULL ? gpu_test_compile(source, "swaps.cu") : NULL;
    CHECK(ptx != NULL && strstr(ptx, ".local") != NULL && strstr(ptx, "st.local") != NULL &&
          strstr(ptx, "ld.local") != NULL);
    free(ptx);
    free(source);
}

int main(void)
{
    static int in[N];
    CUcontext context;
    if (!gpu_test_start(&context))
        return gpu_test_summary();
    for (int i = 0; i < N; i++)
        in[i] = i < 16 ? i - 8 : (int)(uint32_t)gpu_test_rng();
    check_uses_local();
    gpu_test_bodies_run(tests, N_TESTS, prelude, in, N, THREADS);
    CHECK_CU(cuCtxDestroy(context));
    return gpu_test_summary();
}
