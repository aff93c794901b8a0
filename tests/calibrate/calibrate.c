/*
 * make calibrate: the timing model against three published tables.
 *
 * Runs every kernel of the three tables (literature.h) on the virtual GPU at
 * sizes that take minutes on 2 cores, checks what each computed, and prints,
 * table by table, the published figure beside the modeled one (from the
 * events' elapsed time, the modeled time) with the timing model's limiter,
 * then Spearman's rank correlation of the two columns (goal: at least 0.9).
 * Last, the bandwidth of the bandwidth-bound kernels (the transpose table's
 * copy, the fastest reduction) against what an H100 achieves, 90 % of its
 * 3.35 TB/s (goal: within 15 %).
 *
 *   calibrate [--sgemm N] [--reduce N] [--transpose N] [--bounds]
 *
 * N = 0 skips a table; --bounds adds, for each kernel, every bound of the
 * timing model (emulator/README.md) for its main launch.
 *
 * Exits 1 when a kernel cannot run or computes a wrong result, 2 on a usage
 * error; a goal missed is reported, not an error (this is a measurement).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "literature.h"
#include "spearman.h"

#define GOAL_SPEARMAN       0.9
#define H100_DRAM_BYTES_S   3.35e12
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
            "usage: calibrate [--sgemm N] [--reduce N] [--transpose N] [--bounds]   (0 skips)\n");
    return 2;
}

static bool parse(int argc, char **argv, struct table_run runs[LIT_TABLES], bool *bounds)
{
    *bounds = false;
    for (int t = 0; t < LIT_TABLES; t++)
        runs[t] = (struct table_run){.table = &lit_tables[t], .n = default_size[t]};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--bounds") == 0) {
            *bounds = true;
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

static void print_table(const struct table_run *r, const char *device, bool bounds)
{
    const struct lit_table *t = r->table;
    const char *unit = lit_unit_name(t->unit);
    printf("\n%s\n  published: %s\n             %s on %s\n", t->title, t->source, unit,
           t->published_on);
    char size[64];
    t->describe(r->n, size, sizeof size);
    printf("  modeled:   %s, %s, %s from the modeled time (%.0f s to emulate)\n\n", device, size,
           unit, r->seconds);
    printf("  %-32s %11s %11s %11s  %-8s %s\n", "kernel", "published", "modeled", "modeled ms",
           "limiter", "host s");
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
static void print_bandwidth(const struct table_run *r, int k)
{
    double goal = H100_DRAM_BYTES_S * ACHIEVABLE_SHARE;
    double bandwidth = r->out[k].bytes / (r->out[k].ms * 1e-3);
    double off = bandwidth / goal - 1;
    char size[64];
    r->table->describe(r->n, size, sizeof size);
    printf("  %-10s %-28s %-20s %6.3f TB/s  %+5.1f %%  %s\n", r->table->name,
           r->table->kernels[k].name, size, bandwidth / 1e12, off * 100,
           off <= BANDWIDTH_TOLERANCE && off >= -BANDWIDTH_TOLERANCE ? "met" : "MISSED");
}

/* The transpose table's copy and the fastest reduction. */
static void print_bandwidths(const struct table_run runs[LIT_TABLES])
{
    printf("\nBandwidth-bound kernels against %.0f %% of an H100's %.2f TB/s (%.3f TB/s; goal: "
           "within %.0f %%)\n",
           ACHIEVABLE_SHARE * 100, H100_DRAM_BYTES_S / 1e12,
           H100_DRAM_BYTES_S * ACHIEVABLE_SHARE / 1e12, BANDWIDTH_TOLERANCE * 100);
    for (int t = 0; t < LIT_TABLES; t++) {
        const struct table_run *r = &runs[t];
        if (!r->ran || r->table->unit == LIT_GFLOPS)
            continue;
        int best = 0;
        for (int k = 1; k < r->table->n_kernels; k++)
            if (r->out[k].ms < r->out[best].ms)
                best = k;
        print_bandwidth(r, r->table->unit == LIT_GBPS ? 0 : best);
    }
}

int main(int argc, char **argv)
{
    struct table_run runs[LIT_TABLES];
    bool bounds;
    if (!parse(argc, argv, runs, &bounds))
        return usage();
    struct lit_gpu gpu;
    if (!lit_gpu_start(&gpu))
        return 1;
    char device[256] = "a GPU";
    CUdevice d;
    if (cuCtxGetDevice(&d) == CUDA_SUCCESS)
        cuDeviceGetName(device, sizeof device, d);
    bool all = true;
    for (int t = 0; t < LIT_TABLES; t++) {
        if (runs[t].n == 0)
            continue;
        all = run_table(&gpu, &runs[t]) && all;
        if (runs[t].ran)
            print_table(&runs[t], device, bounds);
    }
    print_bandwidths(runs);
    lit_gpu_stop(&gpu);
    return all ? 0 : 1;
}
