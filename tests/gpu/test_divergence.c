/*
 * Control flow that splits a warp, on the virtual GPU: if/else chains,
 * loops whose trip count differs per thread, early returns, break and
 * continue, nested divergence, switch statements with fall-through, and
 * loops whose exit depends on the data (Collatz).
 *
 * Each test is one block of C that is both the body of a kernel and the
 * body of the host reference (a macro expanded as code for the host and
 * stringified for NVRTC), so they cannot drift: the body reads v = in[i]
 * and writes out[i] (and may return early). Inputs are random within a
 * warp, so neighbouring lanes take different paths, and also sorted into
 * runs of 32 equal-class values, so whole warps take one side.
 */
#include "gpu_test.h"

#define N       20000
#define THREADS 128

/* clang-format off */
#define TEST_IF_ELSE(X) X(if_else,                                                                 \
    unsigned r;                                                                                    \
    if (v % 3 == 0)                                                                                \
        r = (unsigned)v * 7u;                                                                      \
    else if (v % 3 == 1 || v % 3 == -1)                                                            \
        r = (unsigned)v - 100u;                                                                    \
    else if (v > 1000)                                                                             \
        r = ~(unsigned)v;                                                                          \
    else                                                                                           \
        r = (unsigned)(v * 2) ^ 0xabcdu;                                                           \
    if (v & 8)                                                                                     \
        r += 3;                                                                                    \
    out[i] = (int)r;)

#define TEST_TRIP_COUNTS(X) X(trip_counts,                                                         \
    unsigned acc = (unsigned)v;                                                                    \
    for (int j = 0; j < (v & 255); j++)                                                            \
        acc = acc * 2654435761u + (unsigned)j;                                                     \
    out[i] = (int)acc;)

#define TEST_EARLY_RETURN(X) X(early_return,                                                       \
    if (v < 0) {                                                                                   \
        out[i] = -1;                                                                               \
        return;                                                                                    \
    }                                                                                              \
    if (v % 5 == 0) {                                                                              \
        out[i] = v / 5;                                                                            \
        return;                                                                                    \
    }                                                                                              \
    unsigned h = (unsigned)v;                                                                      \
    for (int j = 0; j < 20; j++) {                                                                 \
        h ^= h >> 7;                                                                               \
        h *= 0x9e3779b1u;                                                                          \
        if (h % 97 == 3)                                                                           \
            return; /* leaves out[i] as the host filled it */                                      \
    }                                                                                              \
    out[i] = (int)h;)

#define TEST_BREAK_CONTINUE(X) X(break_continue,                                                   \
    unsigned acc = 0;                                                                              \
    int j;                                                                                         \
    for (j = 0; j < 300; j++) {                                                                    \
        if (j % ((v & 7) + 2) == 0)                                                                \
            continue;                                                                              \
        acc += (unsigned)j * (unsigned)v;                                                          \
        if ((acc & 0x3ff) == (unsigned)(v & 0x3ff))                                                \
            break;                                                                                 \
        if (acc > ((unsigned)v & 0xffffu) * 40u)                                                   \
            break;                                                                                 \
    }                                                                                              \
    out[i] = (int)(acc + (unsigned)j * 100000u);)

#define TEST_NESTED(X) X(nested,                                                                   \
    int r = 0;                                                                                     \
    if (v & 1) {                                                                                   \
        if (v & 2) {                                                                               \
            for (int j = 0; j < (v & 15); j++) {                                                   \
                if (j & 1)                                                                         \
                    r += j;                                                                        \
                else                                                                               \
                    r -= v & 0xff;                                                                 \
            }                                                                                      \
        } else {                                                                                   \
            unsigned x = (unsigned)v & 0xfffff;                                                    \
            while (x > 1 && r < 200) {                                                             \
                x = x % 2 ? 3 * x + 1 : x / 2;                                                     \
                r++;                                                                               \
            }                                                                                      \
        }                                                                                          \
    } else {                                                                                       \
        switch ((v >> 1) & 3) {                                                                    \
        case 0:                                                                                    \
            r = v / 3;                                                                             \
            break;                                                                                 \
        case 1:                                                                                    \
            if (v > 500)                                                                           \
                r = 1;                                                                             \
            else                                                                                   \
                r = 2;                                                                             \
            break;                                                                                 \
        default:                                                                                   \
            for (int j = 0; j < 3; j++)                                                            \
                if (((v >> j) & 4) != 0)                                                           \
                    r += 1 << j;                                                                   \
        }                                                                                          \
    }                                                                                              \
    out[i] = r;)

#define TEST_SWITCH(X) X(switch_fallthrough,                                                       \
    int r = 5;                                                                                     \
    switch (v & 7) {                                                                               \
    case 0:                                                                                        \
        r += 1;                                                                                    \
    /* fall through */                                                                             \
    case 1:                                                                                        \
        r += 10;                                                                                   \
        break;                                                                                     \
    case 2:                                                                                        \
    case 3:                                                                                        \
        r = v * 3;                                                                                 \
        break;                                                                                     \
    case 5:                                                                                        \
        r = -v;                                                                                    \
    /* fall through */                                                                             \
    default:                                                                                       \
        r ^= 0x55;                                                                                 \
    }                                                                                              \
    out[i] = r;)

#define TEST_DENSE_SWITCH(X) X(dense_switch,                                                       \
    int r;                                                                                         \
    switch (v & 15) {                                                                              \
    case 0: r = v * 3 + 1; break;                                                                  \
    case 1: r = v ^ 0x1234; break;                                                                 \
    case 2: r = v - 77; break;                                                                     \
    case 3: r = (int)((unsigned)v << 3); break;                                                    \
    case 4: r = v / 7; break;                                                                      \
    case 5: r = v % 11; break;                                                                     \
    case 6: r = ~v; break;                                                                         \
    case 7: r = (int)((unsigned)v * (unsigned)v); break;                                           \
    case 8: r = v >> 2; break;                                                                     \
    case 9: r = v + 1000; break;                                                                   \
    case 10: r = v & 0xff; break;                                                                  \
    case 11: r = v | 0x100; break;                                                                 \
    case 12: r = -v; break;                                                                        \
    case 13: r = (int)((unsigned)v * 13u); break;                                                  \
    case 14: r = v / 3; break;                                                                     \
    default: r = v % 5;                                                                            \
    }                                                                                              \
    out[i] = r;)

#define TEST_COLLATZ(X) X(collatz,                                                                 \
    unsigned long long x = (unsigned long long)(v < 0 ? -(long long)v : v) + 1;                    \
    int steps = 0;                                                                                 \
    do {                                                                                           \
        x = x & 1 ? 3 * x + 1 : x >> 1;                                                            \
        steps++;                                                                                   \
    } while (x != 1 && steps < 1000);                                                              \
    out[i] = steps;)

#define TEST_LONG_LOOPS(X) X(long_loops,                                                           \
    unsigned acc = 1;                                                                              \
    int limit = (v & 255) * ((i & 31) == 7 ? 4 : 1);                                               \
    for (int a = 0; a < limit; a++) {                                                              \
        if ((a ^ v) & 16)                                                                          \
            acc = acc * 3u + (unsigned)a;                                                          \
        else                                                                                       \
            acc ^= (unsigned)a << (a & 7);                                                         \
        if (acc == 0xdeadbeefu)                                                                    \
            break;                                                                                 \
    }                                                                                              \
    out[i] = (int)acc;)

#define TEST_TERNARY(X) X(ternary,                                                                 \
    int r = v > 0 ? (v > 100 ? (v & 1 ? 1 : 2) : 3) : (v < -100 ? 4 : (v == 0 ? 5 : 6));           \
    int s = (v & 3) == 0 ? r * 2 : (v & 3) == 1 ? r + 7 : r - 1;                                   \
    out[i] = s * 100 + r;)
/* clang-format on */

#define ALL_TESTS(X)                                                                               \
    TEST_IF_ELSE(X)                                                                                \
    TEST_TRIP_COUNTS(X)                                                                            \
    TEST_EARLY_RETURN(X)                                                                           \
    TEST_BREAK_CONTINUE(X)                                                                         \
    TEST_NESTED(X)                                                                                 \
    TEST_SWITCH(X)                                                                                 \
    TEST_DENSE_SWITCH(X)                                                                           \
    TEST_COLLATZ(X)                                                                                \
    TEST_LONG_LOOPS(X)                                                                             \
    TEST_TERNARY(X)

/* The host references: host_NAME(in, out, i) runs the body for element i. */
ALL_TESTS(GPU_TEST_HOST_BODY)
static const struct gpu_test_body tests[] = {ALL_TESTS(GPU_TEST_BODY)};
#define N_TESTS ((int)(sizeof tests / sizeof tests[0]))

static void make_inputs(int *in)
{
    for (int i = 0; i < N; i++) {
        switch ((i / 2048) % 4) {
        case 0: /* every lane its own way */
            in[i] = (int)(gpu_test_rng() % 200000) - 20000;
            break;
        case 1: /* whole warps alike: runs of 32 of one residue */
            in[i] = (int)((i / 32) % 16 + 16 * (gpu_test_rng() % 5000));
            break;
        case 2: /* anything */
            in[i] = (int)(uint32_t)gpu_test_rng();
            break;
        default: /* small, with negatives */
            in[i] = (int)(gpu_test_rng() % 401) - 200;
            break;
        }
    }
}

int main(void)
{
    static int in[N];
    CUcontext context;
    if (!gpu_test_start(&context))
        return gpu_test_summary();
    make_inputs(in);
    gpu_test_bodies_run(tests, N_TESTS, "", in, N, THREADS);
    CHECK_CU(cuCtxDestroy(context));
    return gpu_test_summary();
}
