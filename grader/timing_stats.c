/*
 * The median and the relative standard error of repeated timings, the
 * clock they are taken with, and when there are enough of them.
 */
#include "timing_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(const double *values, size_t runs)
{
    double *sorted = malloc(runs * sizeof *sorted);
    if (!sorted)
        return values[runs / 2]; /* out of memory: one sample, not a crash */
    memcpy(sorted, values, runs * sizeof *sorted);
    qsort(sorted, runs, sizeof *sorted, by_value);
    double m = runs % 2 ? sorted[runs / 2] : (sorted[runs / 2 - 1] + sorted[runs / 2]) / 2;
    free(sorted);
    return m;
}

void timing_stats_of(const double *values, size_t runs, struct timing_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    stats->runs = runs;
    stats->rse = INFINITY;
    if (runs == 0)
        return;
    /* Sums of the differences to the first value (the shifted-data
     * algorithm): exact for identical runs, stable for close ones. */
    double shift = values[0], sum = 0, squares = 0;
    for (size_t i = 0; i < runs; i++) {
        sum += values[i] - shift;
        squares += (values[i] - shift) * (values[i] - shift);
    }
    stats->mean = shift + sum / (double)runs;
    stats->median = median_of(values, runs);
    if (runs < 2 || stats->mean <= 0)
        return;
    double variance = (squares - sum * sum / (double)runs) / (double)(runs - 1);
    double stddev = sqrt(variance > 0 ? variance : 0);
    stats->rse = stddev / sqrt((double)runs) / stats->mean;
}

double timing_now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

bool timing_enough(const double *student, const double *reference, size_t runs, double started)
{
    struct timing_stats s, r;
    if (runs >= TIMING_MAX_RUNS)
        return true;
    if (runs < TIMING_MIN_RUNS)
        return false;
    if (timing_now_seconds() - started >= TIMING_MAX_SECONDS)
        return true;
    timing_stats_of(student, runs, &s);
    timing_stats_of(reference, runs, &r);
    return s.rse < TIMING_TARGET_RSE && r.rse < TIMING_TARGET_RSE;
}
