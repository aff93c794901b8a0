/*
 * Benchmark: what judging a 100,000,000-element f32 output costs.
 *
 * Times compare_buffers on two equal buffers and on two that differ in the
 * last element only, each against a memcmp of the same buffers measured in
 * the same run (the speed of memory, the least any comparison can cost).
 * Then, for information, buffers whose every element is one ulp off (within
 * tolerance: the common case of a kernel that rounds differently), against
 * the memcmp of equal buffers.
 */
#include "grader/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_COUNT  100000000u
#define BENCH_ROUNDS 3

struct bench_buffers {
    float *expected;
    float *actual;
};

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Best of BENCH_ROUNDS, in seconds; `mismatches` receives the last count. */
static double time_compare(const struct bench_buffers *b, uint64_t *mismatches)
{
    const struct compare_tolerance tolerance = {1e-6, 1e-5};
    double best = INFINITY;
    for (int round = 0; round < BENCH_ROUNDS; round++) {
        struct compare_result r;
        double start = now_seconds();
        compare_buffers(b->expected, b->actual, VALUE_F32, BENCH_COUNT, &tolerance, &r);
        double t = now_seconds() - start;
        best = t < best ? t : best;
        *mismatches = r.mismatches;
    }
    return best;
}

/* Best of BENCH_ROUNDS for memcmp of the same bytes; `sign` keeps it from
 * being optimized away. */
static double time_memcmp(const struct bench_buffers *b, int *sign)
{
    double best = INFINITY;
    for (int round = 0; round < BENCH_ROUNDS; round++) {
        double start = now_seconds();
        *sign = memcmp(b->expected, b->actual, (size_t)BENCH_COUNT * sizeof(float));
        double t = now_seconds() - start;
        best = t < best ? t : best;
    }
    return best;
}

static void report(const char *what, double compare, double baseline, uint64_t mismatches)
{
    printf("%s\n", what);
    printf("  memcmp (baseline):  %8.1f ms\n", baseline * 1e3);
    printf("  compare_buffers:    %8.1f ms  (%llu mismatches)\n", compare * 1e3,
           (unsigned long long)mismatches);
    printf("  ratio:              %8.2f\n", compare / baseline);
}

int main(void)
{
    struct bench_buffers b = {malloc((size_t)BENCH_COUNT * sizeof(float)),
                              malloc((size_t)BENCH_COUNT * sizeof(float))};
    if (b.expected == NULL || b.actual == NULL) {
        fprintf(stderr, "bench_compare: cannot allocate 2 x %u floats\n", BENCH_COUNT);
        free(b.expected);
        free(b.actual);
        return 1;
    }
    for (size_t i = 0; i < BENCH_COUNT; i++)
        b.expected[i] = (float)i * 0.5f + 1.0f;
    memcpy(b.actual, b.expected, (size_t)BENCH_COUNT * sizeof(float));

    uint64_t mismatches;
    int sign;
    double base = time_memcmp(&b, &sign);
    double equal = time_compare(&b, &mismatches);
    report("100M f32, equal:", equal, base, mismatches);

    b.actual[BENCH_COUNT - 1] += 1000.0f;
    double last_base = time_memcmp(&b, &sign);
    double last = time_compare(&b, &mismatches);
    report("100M f32, last element differs:", last, last_base, mismatches);

    for (size_t i = 0; i < BENCH_COUNT; i++)
        b.actual[i] = nextafterf(b.expected[i], INFINITY);
    double ulp = time_compare(&b, &mismatches);
    report("100M f32, every element 1 ulp off (baseline: memcmp of equal buffers):", ulp, base,
           mismatches);

    free(b.expected);
    free(b.actual);
    if (sign == 0) {
        fprintf(stderr, "bench_compare: memcmp missed the changed last element\n");
        return 1;
    }
    return 0;
}
