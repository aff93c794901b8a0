/*
 * Benchmark: grading the course's three assessments (hidden-layer,
 * histogram, transpose: exercises/courses/cuda-fundamentals.json) at their
 * assessed sizes on the virtual GPU, as `kgrade grade` does, under each of
 * its tiers, by phase.
 *
 * The grader tells each phase as it begins (grader_request.progress); the
 * time until the next one is charged to it, summed over the exercise's
 * cases: compile (both sides, with NVRTC and ptxas), inputs (allocation and
 * generation), reference and student (the kernels on the virtual GPU),
 * check (guards and comparison). Each grading runs in a child process (this
 * program again, with KGEMU_TIER=interp or jit), so the tiers share no
 * compiled code and neither depends on when the driver reads the variable.
 * The baseline is the interpreter's grading in the same run: issue 19's
 * targets are hidden-layer in at most 6 s with the compiled tier, and
 * histogram and transpose at least 3x faster than under the interpreter.
 * The grader loads the virtual GPU in its own process (grader/cuda_api.c),
 * not in the sandbox, so both tiers run here as they would in a job.
 *
 * Then Numba against C (issue 33): for every exercise with a Numba and a
 * C known-good solution (solutions/passed__*.py, passed__*.cu: the first of
 * each), `kgrade grade` of each at the assessed size, as a person runs it,
 * and the Numba grading's time over the C one's (the goal: at most 1.5x),
 * each the fastest of NUMBA_BENCH_RUNS gradings, C and Numba in turn: the
 * run least disturbed by the machine's other work.
 *
 *   bench_grade [EXERCISE...]        (default: the three assessments, then
 *                                     Numba against C for every exercise)
 *   bench_grade --numba [EXERCISE...]  (Numba against C only)
 */
#include "grader/grader.h"

#include <dirent.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_EXERCISES      "exercises"
#define BENCH_EMULATOR       "build/emulator/libcuda.so.1"
#define PHASES               (GRADER_PHASE_TIMING + 1)
#define TARGET_HIDDEN_LAYER  6.0 /* seconds, with the compiled tier */
#define TARGET_OTHER_SPEEDUP 3.0 /* interpreter's total / compiled tier's */
#define BENCH_KGRADE         "build/kgrade"
#define TARGET_NUMBA_RATIO   1.5 /* a Numba grading's time / the C one's (issue 33) */
#define NUMBA_BENCH_RUNS     3   /* each grading's fastest of this many, C and Numba in turn */

/* A correct solution of each assessment. */
static const struct assessment {
    const char *exercise, *solution;
} assessments[] = {
    {"hidden-layer", "exercises/hidden-layer/solutions/passed__fused.cu"},
    {"histogram", "exercises/histogram/solutions/passed__shared_privatized.cu"},
    {"transpose", "exercises/transpose/solutions/passed__padded_tile.cu"},
};
#define N_ASSESSMENTS (sizeof assessments / sizeof assessments[0])

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

/* ------------------------------------------------- a child: one grading */

/* Grades the solution and prints "grade TOTAL PHASE0 … PHASE5". */
static int child_grade(const struct assessment *a)
{
    size_t size;
    char *source = read_source(a->solution, &size);
    char emulator[PATH_MAX];
    if (!source || !realpath(BENCH_EMULATOR, emulator)) {
        fprintf(stderr, "bench_grade: run from the repository after make (%s, %s)\n", a->solution,
                BENCH_EMULATOR);
        free(source);
        return 1;
    }
    struct clock_by_phase clock = {.current = -1};
    struct grader_request request = {
        .exercises = BENCH_EXERCISES,
        .exercise = a->exercise,
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
        fprintf(stderr, "bench_grade: %s: %s\n", a->exercise,
                result ? json_string_value(json_object_get(result, "message")) : error);
        json_decref(result);
        return 1;
    }
    json_decref(result);
    printf("grade %.6f", total);
    for (int p = 0; p < PHASES; p++)
        printf(" %.6f", clock.seconds[p]);
    printf("\n");
    return 0;
}

/* ------------------------------------------------ the parent: the report */

struct grading {
    double total;
    double seconds[PHASES];
};

/* Grades assessment `index` in a child on `tier`; false when it failed. */
static bool grade_on(const char *tier, size_t index, struct grading *g)
{
    char command[512], line[512];
    snprintf(command, sizeof command, "KGEMU_TIER=%s /proc/%d/exe --child %zu", tier, (int)getpid(),
             index);
    FILE *p = popen(command, "r");
    bool ok = p && fgets(line, sizeof line, p) != NULL;
    if (p && pclose(p) != 0)
        ok = false;
    if (!ok)
        return false;
    int at = 0, used;
    if (sscanf(line, "grade %lf%n", &g->total, &used) != 1)
        return false;
    at += used;
    for (int ph = 0; ph < PHASES; ph++, at += used)
        if (sscanf(line + at, " %lf%n", &g->seconds[ph], &used) != 1)
            return false;
    return true;
}

static void print_phases(const char *tier, const struct grading *g)
{
    printf("  %-13s total %7.2f s:", tier, g->total);
    for (int p = 0; p < PHASES; p++)
        if (g->seconds[p] > 0)
            printf(" %s %.2f", grader_phase_name((enum grader_phase)p), g->seconds[p]);
    printf("\n");
}

/* Grades one assessment under both tiers and prints the comparison. */
static bool report(size_t index)
{
    const struct assessment *a = &assessments[index];
    struct grading in, jit;
    printf("%s (%s), at its assessed size:\n", a->exercise, a->solution);
    if (!grade_on("interp", index, &in) || !grade_on("jit", index, &jit)) {
        printf("  the grading failed (its message is above)\n");
        return false;
    }
    print_phases("interpreter", &in);
    print_phases("compiled tier", &jit);
    double speedup = in.total / jit.total;
    double kernels_in = in.seconds[GRADER_PHASE_REFERENCE] + in.seconds[GRADER_PHASE_STUDENT];
    double kernels_jit = jit.seconds[GRADER_PHASE_REFERENCE] + jit.seconds[GRADER_PHASE_STUDENT];
    printf("  ratio interpreter / compiled: %.2fx in all, %.2fx for the kernels' runs", speedup,
           kernels_in / kernels_jit);
    if (strcmp(a->exercise, "hidden-layer") == 0)
        printf("   (target: the compiled tier's total <= %.0f s: %s)\n", TARGET_HIDDEN_LAYER,
               jit.total <= TARGET_HIDDEN_LAYER ? "met" : "not met");
    else
        printf("   (target >= %.0fx: %s)\n", TARGET_OTHER_SPEEDUP,
               speedup >= TARGET_OTHER_SPEEDUP ? "met" : "not met");
    printf("  inputs generated in %.2f s (%.0f %% of the compiled tier's grading)\n",
           jit.seconds[GRADER_PHASE_INPUTS], jit.seconds[GRADER_PHASE_INPUTS] / jit.total * 100);
    fflush(stdout);
    return true;
}

/* ------------------------------------ Numba against C, with `kgrade grade` */

/* The first known-good solution of exercise `id` whose name ends in
 * `extension` ("py", "cu"), into path; false when it has none. */
static bool known_good(const char *id, const char *extension, char *path, size_t size)
{
    char pattern[PATH_MAX];
    snprintf(pattern, sizeof pattern, BENCH_EXERCISES "/%s/solutions/passed__*.%s", id, extension);
    glob_t found;
    bool any = glob(pattern, 0, NULL, &found) == 0 && found.gl_pathc > 0;
    if (any)
        snprintf(path, size, "%s", found.gl_pathv[0]);
    globfree(&found);
    return any;
}

/* The seconds `kgrade grade` takes to grade `path` as passed; negative when
 * it gave another verdict or failed (its messages are on stderr). */
static double kgrade_seconds(const char *id, const char *path)
{
    char command[2 * PATH_MAX];
    snprintf(command, sizeof command, BENCH_KGRADE " grade --seed 1 --exercise %s %s >/dev/null",
             id, path);
    double started = now_seconds();
    int status = system(command);
    double seconds = now_seconds() - started;
    return status == 0 ? seconds : -1;
}

/* Grades exercise `id`'s Numba and C known-good solutions and prints the
 * ratio; true when it has no pair to compare. */
static bool report_numba(const char *id)
{
    char py[PATH_MAX], cu[PATH_MAX];
    if (!known_good(id, "py", py, sizeof py) || !known_good(id, "cu", cu, sizeof cu))
        return true;
    double c = -1, numba = -1;
    for (int run = 0; run < NUMBA_BENCH_RUNS; run++) {
        double c_run = kgrade_seconds(id, cu), numba_run = kgrade_seconds(id, py);
        if (c_run < 0 || numba_run < 0) {
            printf("  %-16s the grading of %s failed\n", id, c_run < 0 ? cu : py);
            return false;
        }
        c = run == 0 || c_run < c ? c_run : c;
        numba = run == 0 || numba_run < numba ? numba_run : numba;
    }
    double ratio = numba / c;
    printf("  %-16s C %7.2f s   Numba %7.2f s   ratio %.2fx%s\n", id, c, numba, ratio,
           ratio <= TARGET_NUMBA_RATIO ? "" : "   (over the 1.5x goal)");
    fflush(stdout);
    return true;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Numba against C for the exercises named, or for every exercise. */
static bool report_numba_against_c(int n, char **ids)
{
    printf("grading each exercise's Numba and C known-good solutions with %s at the assessed size "
           "(goal: Numba at most %.1fx C):\n",
           BENCH_KGRADE, TARGET_NUMBA_RATIO);
    bool ok = true;
    for (int i = 0; i < n; i++)
        ok &= report_numba(ids[i]);
    if (n > 0)
        return ok;
    struct dirent **entries;
    int count = scandir(BENCH_EXERCISES, &entries, NULL, by_name);
    if (count < 0) {
        fprintf(stderr, "bench_grade: cannot list %s: run from the repository\n", BENCH_EXERCISES);
        return false;
    }
    for (int i = 0; i < count; i++) {
        if (entries[i]->d_name[0] != '.')
            ok &= report_numba(entries[i]->d_name);
        free(entries[i]);
    }
    free(entries);
    return ok;
}

static int find_assessment(const char *exercise)
{
    for (size_t i = 0; i < N_ASSESSMENTS; i++)
        if (strcmp(assessments[i].exercise, exercise) == 0)
            return (int)i;
    return -1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0) {
        size_t index = (size_t)atoi(argv[2]);
        return index < N_ASSESSMENTS ? child_grade(&assessments[index]) : 1;
    }
    if (argc >= 2 && strcmp(argv[1], "--numba") == 0)
        return report_numba_against_c(argc - 2, argv + 2) ? 0 : 1;
    printf("grading the course's assessments on the virtual GPU, each tier in a process of its "
           "own:\n");
    bool ok = true;
    if (argc == 1)
        for (size_t i = 0; i < N_ASSESSMENTS; i++)
            ok &= report(i);
    for (int i = 1; i < argc; i++) {
        int index = find_assessment(argv[i]);
        if (index < 0) {
            fprintf(stderr, "bench_grade: %s is not one of the assessments benchmarked\n", argv[i]);
            return 2;
        }
        ok &= report((size_t)index);
    }
    if (argc == 1)
        ok &= report_numba_against_c(0, NULL);
    return ok ? 0 : 1;
}
