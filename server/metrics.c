/*
 * The service's counters (metrics.h), lock-free: atomic adds.
 */
#include "metrics.h"

#include "api.h"
#include "grader/grader.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int statuses[] = {200, 201, 202, 204, 400, 401, 403, 404,
                               405, 409, 413, 415, 422, 429, 500, 503};
#define STATUSES ((int)(sizeof statuses / sizeof statuses[0]))
#define VERDICTS (GRADER_VERDICT_INTERNAL_ERROR + 1)
static const double buckets[] = {0.5, 1, 2, 5, 10, 30, 60, 120, 300};
#define BUCKETS ((int)(sizeof buckets / sizeof buckets[0]))

struct metrics {
    int routes;             /* routes + 1 (the last: no route) */
    atomic_llong *requests; /* [route][status + other] */
    atomic_llong verdicts[VERDICTS];
    atomic_llong grading_buckets[BUCKETS + 1];
    atomic_llong grading_count;
    _Atomic double grading_sum;
};

struct metrics *metrics_new(int routes)
{
    struct metrics *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->routes = routes + 1;
    m->requests = calloc((size_t)m->routes * (STATUSES + 1), sizeof *m->requests);
    if (!m->requests) {
        free(m);
        return NULL;
    }
    return m;
}

void metrics_free(struct metrics *m)
{
    if (m)
        free(m->requests);
    free(m);
}

static int status_slot(int status)
{
    for (int i = 0; i < STATUSES; i++)
        if (statuses[i] == status)
            return i;
    return STATUSES;
}

void metrics_request(struct metrics *m, int route, int status, double ms)
{
    (void)ms;
    int r = route >= 0 && route < m->routes - 1 ? route : m->routes - 1;
    atomic_fetch_add(&m->requests[r * (STATUSES + 1) + status_slot(status)], 1);
}

void metrics_graded(struct metrics *m, const char *verdict, double seconds)
{
    for (int v = 0; v < VERDICTS; v++)
        if (strcmp(grader_verdict_name((enum grader_verdict)v), verdict) == 0)
            atomic_fetch_add(&m->verdicts[v], 1);
    int b = 0;
    while (b < BUCKETS && seconds > buckets[b])
        b++;
    atomic_fetch_add(&m->grading_buckets[b], 1);
    atomic_fetch_add(&m->grading_count, 1);
    double old = atomic_load(&m->grading_sum);
    while (!atomic_compare_exchange_weak(&m->grading_sum, &old, old + seconds))
        ;
}

static void requests_text(struct metrics *m, FILE *out)
{
    fprintf(out, "# HELP kgrade_http_requests_total HTTP requests by route and status.\n"
                 "# TYPE kgrade_http_requests_total counter\n");
    for (int r = 0; r < m->routes; r++)
        for (int s = 0; s <= STATUSES; s++) {
            long long n = atomic_load(&m->requests[r * (STATUSES + 1) + s]);
            if (n == 0)
                continue;
            const char *route = r < m->routes - 1 ? http_route(r)->pattern : "none";
            const char *method = r < m->routes - 1 ? http_route(r)->method : "";
            char status[8];
            snprintf(status, sizeof status, "%d", s < STATUSES ? statuses[s] : 0);
            fprintf(out,
                    "kgrade_http_requests_total{method=\"%s\",route=\"%s\",status=\"%s\"} %lld\n",
                    method, route, s < STATUSES ? status : "other", n);
        }
}

static void grading_text(struct metrics *m, FILE *out)
{
    fprintf(out, "# HELP kgrade_submissions_total Graded submissions by verdict.\n"
                 "# TYPE kgrade_submissions_total counter\n");
    for (int v = 0; v < VERDICTS; v++)
        fprintf(out, "kgrade_submissions_total{verdict=\"%s\"} %lld\n",
                grader_verdict_name((enum grader_verdict)v), atomic_load(&m->verdicts[v]));
    fprintf(out, "# HELP kgrade_grading_seconds Time to grade a submission.\n"
                 "# TYPE kgrade_grading_seconds histogram\n");
    long long cumulative = 0;
    for (int b = 0; b <= BUCKETS; b++) {
        cumulative += atomic_load(&m->grading_buckets[b]);
        if (b < BUCKETS)
            fprintf(out, "kgrade_grading_seconds_bucket{le=\"%g\"} %lld\n", buckets[b], cumulative);
        else
            fprintf(out, "kgrade_grading_seconds_bucket{le=\"+Inf\"} %lld\n", cumulative);
    }
    fprintf(out, "kgrade_grading_seconds_sum %g\nkgrade_grading_seconds_count %lld\n",
            atomic_load(&m->grading_sum), atomic_load(&m->grading_count));
}

static void gauges_text(const struct metrics_gauges *g, FILE *out)
{
    fprintf(out,
            "# HELP kgrade_queue_depth Submissions waiting to be graded.\n"
            "# TYPE kgrade_queue_depth gauge\nkgrade_queue_depth %lld\n"
            "# HELP kgrade_workers_busy Workers grading now.\n"
            "# TYPE kgrade_workers_busy gauge\nkgrade_workers_busy %d\n"
            "# HELP kgrade_workers Workers in the pool.\n"
            "# TYPE kgrade_workers gauge\nkgrade_workers %d\n",
            (long long)g->queue_depth, g->busy_workers, g->workers);
    fprintf(out,
            "# HELP kgrade_rate_limit_keys Keys held by each rate limiter.\n"
            "# TYPE kgrade_rate_limit_keys gauge\n"
            "kgrade_rate_limit_keys{limiter=\"anonymous\"} %d\n"
            "kgrade_rate_limit_keys{limiter=\"accounts\"} %d\n"
            "kgrade_rate_limit_keys{limiter=\"submissions\"} %d\n"
            "# HELP kgrade_event_streams Event streams open.\n"
            "# TYPE kgrade_event_streams gauge\nkgrade_event_streams %d\n",
            g->anonymous_keys, g->account_keys, g->submission_keys, g->event_streams);
}

char *metrics_text(struct metrics *m, const struct metrics_gauges *g, size_t *size)
{
    char *text = NULL;
    FILE *out = open_memstream(&text, size);
    if (!out)
        return NULL;
    requests_text(m, out);
    grading_text(m, out);
    gauges_text(g, out);
    fclose(out);
    return text;
}
