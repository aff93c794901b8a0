/*
 * Benchmark: what generating a 100,000,000-element f32 input costs.
 *
 * Times inputs_generate for normals (Box-Muller: Philox, log, sqrt, sin and
 * cos per pair) and for uniforms on every core, against memset of the same
 * buffer measured in the same run (the speed of memory, the least any
 * generator can cost). The buffer is touched once before timing, so no
 * measurement pays for page faults. Prints the best of BENCH_ROUNDS of each
 * and the ratios.
 */
#include "grader/rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_COUNT  100000000u
#define BENCH_ROUNDS 3

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Best of BENCH_ROUNDS for memset of the buffer, in seconds. */
static double time_memset(float *buffer)
{
    double best = INFINITY;
    for (int round = 0; round < BENCH_ROUNDS; round++) {
        double start = now_seconds();
        memset(buffer, round, BENCH_COUNT * sizeof *buffer);
        double t = now_seconds() - start;
        best = t < best ? t : best;
    }
    return best;
}

/* Best of BENCH_ROUNDS for generating the buffer, in seconds; negative when
 * generation fails. */
static double time_generate(float *buffer, enum input_distribution distribution, double a, double b)
{
    const struct input_spec spec = {distribution, a, b};
    double best = INFINITY;
    for (int round = 0; round < BENCH_ROUNDS; round++) {
        struct rng_key key = {(uint64_t)round + 1, 0};
        double start = now_seconds();
        if (!inputs_generate(buffer, VALUE_F32, BENCH_COUNT, &spec, key, 0))
            return -1;
        double t = now_seconds() - start;
        best = t < best ? t : best;
    }
    return best;
}

int main(void)
{
    float *buffer = malloc(BENCH_COUNT * sizeof *buffer);
    if (buffer == NULL) {
        fprintf(stderr, "bench_inputs: cannot allocate %u floats\n", BENCH_COUNT);
        return 1;
    }
    memset(buffer, 0, BENCH_COUNT * sizeof *buffer); /* fault the pages in */
    double fill = time_memset(buffer);
    double normal = time_generate(buffer, INPUT_NORMAL, 0, 1);
    double uniform = time_generate(buffer, INPUT_UNIFORM, -1, 1);
    free(buffer);
    if (normal < 0 || uniform < 0) {
        fprintf(stderr, "bench_inputs: inputs_generate failed\n");
        return 1;
    }
    printf("100M f32 on %ld cores, best of %d:\n", sysconf(_SC_NPROCESSORS_ONLN), BENCH_ROUNDS);
    printf("memset (baseline):  %8.1f ms\n", fill * 1e3);
    printf("normal(0, 1):       %8.1f ms   ratio %6.1f\n", normal * 1e3, normal / fill);
    printf("uniform[-1, 1):     %8.1f ms   ratio %6.1f\n", uniform * 1e3, uniform / fill);
    return 0;
}
