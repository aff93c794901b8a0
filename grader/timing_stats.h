/*
 * Internal to grader/: the statistics of repeated timings — the median
 * (what a timed result reports) and the relative standard error of the mean
 * (what says when enough runs were taken).
 */
#ifndef KGRADE_GRADER_TIMING_STATS_H
#define KGRADE_GRADER_TIMING_STATS_H

#include <stdbool.h>
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

/* The repeated timing's protocol (DESIGN.md, "Grading protocol"): after a
 * warm-up, runs of the student and the reference in alternation, at least
 * TIMING_MIN_RUNS of each, until the relative standard error of both is
 * under TIMING_TARGET_RSE, TIMING_MAX_SECONDS have passed or
 * TIMING_MAX_RUNS are taken; the medians are the times. The kernel form's
 * (grade_timing.c) and the host form's (host_wall.c). */
#define TIMING_MIN_RUNS    5    /* of each side, whatever the error */
#define TIMING_MAX_RUNS    1000 /* of each side */
#define TIMING_TARGET_RSE  0.01
#define TIMING_MAX_SECONDS 10.0

/* The monotonic clock, in seconds. */
double timing_now_seconds(void);

/* The statistics of `runs` times (ms). `values` is not changed. */
void timing_stats_of(const double *values, size_t runs, struct timing_stats *stats);

/* Whether `runs` pairs of times (ms), the first taken at `started`
 * (timing_now_seconds), are enough by the protocol above. */
bool timing_enough(const double *student, const double *reference, size_t runs, double started);

#endif
