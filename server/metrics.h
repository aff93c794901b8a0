/*
 * Internal to server/: the service's counters, shown at GET /metrics in
 * Prometheus's text format: HTTP requests by route and status, graded
 * submissions by verdict, a histogram of grading times, the queue's depth,
 * the busy workers, the keys of each rate limiter and the open event
 * streams (a flood shows there first).
 */
#ifndef KGRADE_SERVER_METRICS_H
#define KGRADE_SERVER_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct metrics;

struct metrics *metrics_new(int routes);
void metrics_free(struct metrics *m);

/* A request answered: its route (negative: none) and status. */
void metrics_request(struct metrics *m, int route, int status, double ms);
/* A submission graded: its verdict's name and the seconds it took. */
void metrics_graded(struct metrics *m, const char *verdict, double seconds);

/* What GET /metrics reads from the service at the time it is asked. */
struct metrics_gauges {
    int64_t queue_depth; /* -1: unknown */
    int busy_workers, workers;
    int anonymous_keys, account_keys, submission_keys; /* of the rate limiters */
    int event_streams;
};

/* The text of GET /metrics (malloc'ed). */
char *metrics_text(struct metrics *m, const struct metrics_gauges *g, size_t *size);

#endif
