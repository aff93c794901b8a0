/*
 * make calibrate: the timing model against three published tables.
 *
 * Runs every kernel of the three tables (literature.h) on the virtual GPU at
 * sizes that take minutes on 2 cores, checks what each computed, and prints,
 * table by table, the published figure beside the modeled one (from the
 * events' elapsed time, the modeled time) with the timing model's limiter,
 * then Spearman's rank correlation of the two columns (goal: at least 0.9).
 * Last, the bandwidth of the bandwidth-bound kernels (the transpose table's
 * copy, the fastest reduction) against what the card achieves, 90 % of its
 * peak (an H100's 3.35 TB/s; KGEMU_DEVICE's card's) (goal: within 15 %).
 *
 * On a real GPU (a libcuda.so.1 that is not the virtual GPU) the same
 * tables are measured: the figures are the events' elapsed times, and the
 * columns say "measured".
 *
 *   calibrate [--sgemm N] [--reduce N] [--transpose N] [--bounds] [--times FILE]
 *
 * N = 0 skips a table; --bounds adds, for each kernel, every bound of the
 * timing model (emulator/README.md) for its main launch; --times FILE
 * writes one line per kernel run, "SOURCE N MS" (its file under
 * LIT_KERNEL_DIR, the table's size, its time: tests/device/measure.sh
 * makes a card's dataset of them).
 *
 * Exits 1 when a kernel cannot run or computes a wrong result, 2 on a usage
 * error; a goal missed is reported, not an error (this is a measurement).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "literature.h"
#include "spearman.h"

#define GOAL_SPEARMAN       0.9
#define ACHIEVABLE_SHARE    0.9
#define BANDWIDTH_TOLERANCE 0.15

/* The sizes: SGEMM and transposes a matrix side, reductions elements. */
static const long default_size[LIT_TABLES] = {2048, 1L << 26, 8192};

struct table_run {
    const struct lit_table *table;
    long n; /* 0: skipped */
    struct lit_outcome out[LIT_KERNELS];
    bool ran;
    double seconds; /* host time the table took */
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: calibrate [--sgemm N] [--reduce N] [--transpose N] [--bounds] [--times FILE]"
            "   (0 skips)\n");
    return 2;
}

static bool parse(int argc, char **argv, struct table_run runs[LIT_TABLES], bool *bounds,
                  const char **times)
{
    *bounds = false;
    *times = NULL;
    for (int t = 0; t < LIT_TABLES; t++)
        runs[t] = (struct table_run){.table = &lit_tables[t], .n = default_size[t]};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--bounds") == 0) {
            *bounds = true;
            continue;
        }
        if (strcmp(argv[i], "--times") == 0 && i + 1 < argc) {
            *times = argv[++i];
            continue;
        }
        const struct lit_table *table =
            strncmp(argv[i], "--", 2) == 0 ? lit_table_named(argv[i] + 2) : NULL;
        char *end = NULL;
        long n = i + 1 < argc ? strtol(argv[i + 1], &end, 0) : -1;
        if (!table || n < 0 || !end || *end || n % table->multiple != 0) {
            if (table && n > 0)
                fprintf(stderr, "calibrate: --%s takes a multiple of %ld\n", table->name,
                        table->multiple);
            return false;
        }
        runs[table - lit_tables].n = n;
        i++;
    }
    return true;
}

/* Runs every kernel of a table; false when one failed or computed wrong. */
static bool run_table(struct lit_gpu *gpu, struct table_run *r)
{
    double start = now();
    bool all = true;
    for (int k = 0; k < r->table->n_kernels; k++) {
        const struct lit_kernel *kernel = &r->table->kernels[k];
        memset(&r->out[k], 0, sizeof r->out[k]);
        double begin = now();
        bool ran = r->table->run(gpu, kernel, r->n, &r->out[k]);
        r->out[k].seconds = now() - begin;
        if (!ran) {
            fprintf(stderr, "calibrate: %s did not run\n", kernel->file);
            all = false;
        } else if (r->out[k].mismatches) {
            fprintf(stderr, "calibrate: %s computed %ld wrong elements\n", kernel->file,
                    r->out[k].mismatches);
            all = false;
        }
    }
    r->seconds = now() - start;
    r->ran = all;
    return all;
}

static double rank_correlation(const struct table_run *r)
{
    double published[LIT_KERNELS], modeled[LIT_KERNELS];
    for (int k = 0; k < r->table->n_kernels; k++) {
        published[k] = r->table->kernels[k].published;
        modeled[k] = r->out[k].figure;
    }
    return spearman(published, modeled, r->table->n_kernels);
}

/* Every bound of the timing model for each kernel's main launch. */
static void print_bounds(const struct table_run *r)
{
    printf("\n  %-32s %9s %9s %9s %9s %9s %9s %9s  %s\n", "bounds (ms)", "issue", "lsu", "shared",
           "latency", "l2", "dram", "atomic", "blocks/SM, registers");
    for (int k = 0; k < r->table->n_kernels; k++) {
        const struct kgemu_counters *c = &r->out[k].counters;
        printf("  %-32s %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f  %d, %d\n",
               r->table->kernels[k].name, c->issue_ms, c->lsu_ms, c->shared_ms, c->latency_ms,
               c->l2_ms, c->dram_ms, c->atomic_ms, c->blocks_per_sm, c->registers_per_thread);
    }
}

/* The card: its name, whether it is the virtual GPU, its DRAM's peak. */
struct card {
    char name[256];
    bool emulated;
    double dram_bytes_s;
};

/* The peaks of the cards the virtual GPU models (KGEMU_DEVICE) and of
 * their real twins, found in the device's name; an H100's otherwise. */
static double peak_of(const char *name)
{
    static const struct {
        const char *model;
        double bytes_s;
    } peaks[] = {{"H200", 4.8e12}, {"H100", 3.35e12}, {"A100", 2.039e12}, {"T4", 3.2e11}};
    for (size_t i = 0; i < sizeof peaks / sizeof *peaks; i++)
        if (strstr(name, peaks[i].model))
            return peaks[i].bytes_s;
    return 3.35e12;
}

static void find_card(struct card *card)
{
    CUdevice d;
    snprintf(card->name, sizeof card->name, "a GPU");
    if (cuCtxGetDevice(&d) == CUDA_SUCCESS)
        cuDeviceGetName(card->name, sizeof card->name, d);
    card->emulated = dlsym(RTLD_DEFAULT, "kgemu_is_virtual") != NULL;
    card->dram_bytes_s = peak_of(card->name);
}

static void print_table(const struct table_run *r, const struct card *card, bool bounds)
{
    const struct lit_table *t = r->table;
    const char *unit = lit_unit_name(t->unit);
    printf("\n%s\n  published: %s\n             %s on %s\n", t->title, t->source, unit,
           t->published_on);
    char size[64];
    t->describe(r->n, size, sizeof size);
    const char *what = card->emulated ? "modeled" : "measured";
    printf("  %-9s  %s, %s, %s from the %s time (%.0f s to %s)\n\n",
           card->emulated ? "modeled:" : "measured:", card->name, size, unit, what, r->seconds,
           card->emulated ? "emulate" : "run");
    char ms[32];
    snprintf(ms, sizeof ms, "%s ms", what);
    printf("  %-32s %11s %11s %11s  %-8s %s\n", "kernel", "published", what, ms, "limiter",
           "host s");
    for (int k = 0; k < t->n_kernels; k++)
        printf("  %-32s %11.5g %11.5g %11.4f  %-8s %.0f\n", t->kernels[k].name,
               t->kernels[k].published, r->out[k].figure, r->out[k].ms, r->out[k].counters.limiter,
               r->out[k].seconds);
    if (bounds)
        print_bounds(r);
    double rho = rank_correlation(r);
    printf("  Spearman's rank correlation: %.3f (goal >= %.1f: %s)\n", rho, GOAL_SPEARMAN,
           rho >= GOAL_SPEARMAN ? "met" : "MISSED");
}

/* One line of the bandwidth check for kernel `k` of `r`. */
static void print_bandwidth(const struct table_run *r, int k, const struct card *card)
{
    double goal = card->dram_bytes_s * ACHIEVABLE_SHARE;
    double bandwidth = r->out[k].bytes / (r->out[k].ms * 1e-3);
    double off = bandwidth / goal - 1;
    char size[64];
    r->table->describe(r->n, size, sizeof size);
    printf("  %-10s %-28s %-20s %6.3f TB/s  %+5.1f %%  %s\n", r->table->name,
           r->table->kernels[k].name, size, bandwidth / 1e12, off * 100,
           off <= BANDWIDTH_TOLERANCE && off >= -BANDWIDTH_TOLERANCE ? "met" : "MISSED");
}

/* The transpose table's copy and the fastest reduction. */
static void print_bandwidths(const struct table_run runs[LIT_TABLES], const struct card *card)
{
    printf("\nBandwidth-bound kernels against %.0f %% of %s's %.2f TB/s (%.3f TB/s; goal: "
           "within %.0f %%)\n",
           ACHIEVABLE_SHARE * 100, card->name, card->dram_bytes_s / 1e12,
           card->dram_bytes_s * ACHIEVABLE_SHARE / 1e12, BANDWIDTH_TOLERANCE * 100);
    for (int t = 0; t < LIT_TABLES; t++) {
        const struct table_run *r = &runs[t];
        if (!r->ran || r->table->unit == LIT_GFLOPS)
            continue;
        int best = 0;
        for (int k = 1; k < r->table->n_kernels; k++)
            if (r->out[k].ms < r->out[best].ms)
                best = k;
        print_bandwidth(r, r->table->unit == LIT_GBPS ? 0 : best, card);
    }
}

/* Each kernel's time, "SOURCE N MS" a line, into `path`; false (said) when
 * it cannot be written. */
static bool write_times(const struct table_run runs[LIT_TABLES], const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "calibrate: cannot write %s\n", path);
        return false;
    }
    for (int t = 0; t < LIT_TABLES; t++)
        for (int k = 0; runs[t].ran && k < runs[t].table->n_kernels; k++)
            fprintf(f, "%s%s %ld %.6g\n", LIT_KERNEL_DIR, runs[t].table->kernels[k].file, runs[t].n,
                    runs[t].out[k].ms);
    return fclose(f) == 0;
}

int main(int argc, char **argv)
{
    struct table_run runs[LIT_TABLES];
    bool bounds;
    const char *times;
    if (!parse(argc, argv, runs, &bounds, &times))
        return usage();
    struct lit_gpu gpu;
    if (!lit_gpu_start(&gpu))
        return 1;
    struct card card;
    find_card(&card);
    bool all = true;
    for (int t = 0; t < LIT_TABLES; t++) {
        if (runs[t].n == 0)
            continue;
        all = run_table(&gpu, &runs[t]) && all;
        if (runs[t].ran)
            print_table(&runs[t], &card, bounds);
    }
    print_bandwidths(runs, &card);
    lit_gpu_stop(&gpu);
    if (times)
        all = write_times(runs, times) && all;
    return all ? 0 : 1;
}
