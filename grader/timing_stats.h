/*
 * Internal to grader/: the statistics of repeated timings — the median
 * (what a timed result reports) and the relative standard error of the mean
 * (what says when enough runs were taken).
 */
#ifndef KGRADE_GRADER_TIMING_STATS_H
#define KGRADE_GRADER_TIMING_STATS_H

#include <stddef.h>

struct timing_stats {
    size_t runs;
    double median; /* ms; 0 with no runs */
    double mean;   /* ms */
    /* stddev / sqrt(runs) / mean: 0 for identical runs; INFINITY with fewer
     * than two runs or a mean of 0, so "enough runs" is never decided on
     * too little. */
    double rse;
};

/* The statistics of `runs` times (ms). `values` is not changed. */
/* The monotonic clock, in seconds. */
double timing_now_seconds(void);

void timing_stats_of(const double *values, size_t runs, struct timing_stats *stats);

#endif
