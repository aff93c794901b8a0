/*
 * Benchmark: grading a correct hidden-layer kernel at the assessment size
 * (n = 100,000,000) on the virtual GPU, as `kgrade grade` does, by phase.
 *
 * The grader tells each phase as it begins (grader_request.progress); the
 * time until the next one is charged to it, summed over the exercise's
 * cases: compile (both sides, with NVRTC and ptxas), inputs (allocation and
 * generation), reference and student (the kernels on the virtual GPU),
 * check (guards and comparison). The baseline is the kernels themselves:
 * the ratio is the whole grading over the time the two sides' runs took,
 * so it shows what grading costs beyond emulating the kernels. The target
 * is under 30 s in all on 2 cores.
 */
#include "grader/grader.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BENCH_EXERCISES "exercises"
#define BENCH_EXERCISE  "hidden-layer"
#define BENCH_KERNEL    "exercises/hidden-layer/solutions/passed__fused.cu"
#define BENCH_EMULATOR  "build/emulator/libcuda.so.1"
#define PHASES          (GRADER_PHASE_TIMING + 1)

struct clock_by_phase {
    double seconds[PHASES];
    int current; /* -1 before the first phase */
    double since;
};

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void charge(struct clock_by_phase *c, int next)
{
    double now = now_seconds();
    if (c->current >= 0)
        c->seconds[c->current] += now - c->since;
    c->current = next;
    c->since = now;
}

static void on_phase(void *context, const struct grader_progress *progress)
{
    charge(context, (int)progress->phase);
}

static char *read_source(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    char *text = f ? malloc(GRADER_SOURCE_MAX_BYTES + 1) : NULL;
    *size = text ? fread(text, 1, GRADER_SOURCE_MAX_BYTES, f) : 0;
    if (f)
        fclose(f);
    return text;
}

int main(void)
{
    size_t size;
    char *source = read_source(BENCH_KERNEL, &size);
    char emulator[PATH_MAX];
    if (!source || !realpath(BENCH_EMULATOR, emulator)) {
        fprintf(stderr, "bench_grade: run from the repository after make (%s, %s)\n", BENCH_KERNEL,
                BENCH_EMULATOR);
        return 1;
    }
    struct clock_by_phase clock = {.current = -1};
    struct grader_request request = {
        .exercises = BENCH_EXERCISES,
        .exercise = BENCH_EXERCISE,
        .source = source,
        .size = size,
        .seed_given = true,
        .seed = 1,
        .device = GRADER_DEVICE_EMULATOR,
        .emulator = emulator,
        .progress = on_phase,
        .progress_context = &clock,
    };
    enum grader_verdict verdict;
    char error[512];
    double started = now_seconds();
    json_t *result = grader_grade(&request, &verdict, error, sizeof error);
    charge(&clock, -1);
    double total = now_seconds() - started;
    free(source);
    if (!result || verdict != GRADER_VERDICT_PASSED) {
        fprintf(stderr, "bench_grade: %s\n",
                result ? json_string_value(json_object_get(result, "message")) : error);
        json_decref(result);
        return 1;
    }
    json_decref(result);
    printf("grading %s at n = 100M on the virtual GPU, by phase (all cases):\n", BENCH_EXERCISE);
    for (int p = 0; p < PHASES; p++)
        if (clock.seconds[p] > 0)
            printf("  %-10s %8.2f s\n", grader_phase_name((enum grader_phase)p), clock.seconds[p]);
    double kernels = clock.seconds[GRADER_PHASE_REFERENCE] + clock.seconds[GRADER_PHASE_STUDENT];
    printf("  %-10s %8.2f s   (target: under 30 s)\n", "total", total);
    printf("grading / the kernels' runs (baseline): ratio %.2f\n", total / kernels);
    return 0;
}
