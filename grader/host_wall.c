/*
 * The host form's wall-clock time (host_form.h), on a real GPU server:
 * the host jobs run on the GPU's own driver, which the grade job cannot
 * serve, so a call's time is what DLI's assess measures, the wall-clock
 * time of the call seen from outside the student's process (here, from
 * the request sent to the reply received): host work, copies, kernels and
 * synchronisation all count. No session tells where a result came from:
 * an answer computed by numpy on the host is judged by its time, which at
 * the assessed size is far over a GPU's. With a real GPU's noise, the
 * timed case is timed as the kernel form's is (timing_stats.h): a warm-up
 * call of each side, then calls in alternation, and the medians.
 */
#include "grade_run.h"
#include "host_form.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool host_wall_requested(const struct grading *g)
{
    return g->request->host_wall_time;
}

double host_call_ms(const struct host_form *host, const struct host_call_stats *call,
                    double seconds)
{
    return host->wall_time ? seconds * 1e3 : call->device_ms;
}

json_t *host_call_figures(const struct host_form *host, const struct host_call_stats *call,
                          double seconds)
{
    return host->wall_time ? json_pack("{s:f}", "wall_ms", seconds * 1e3) : host_call_json(call);
}

void host_speed_text(const struct grading *g, char *out, size_t size)
{
    const struct host_form *host = g->host;
    if (!host->wall_time) {
        host_copies_text(host, out, size);
        return;
    }
    char runs[64] = "one call each";
    if (g->student_runs.runs > 0)
        snprintf(runs, sizeof runs, "the median of %zu calls each", g->student_runs.runs);
    snprintf(out, size,
             "the wall-clock time of %s's calls, measured from outside the program (host work, "
             "copies and kernels included; %s)",
             g->exercise.numba_host.function, runs);
}

/* The timed case's calls, as both sides make them. */
struct wall_timing {
    struct run *r;
    const char *request;
    const int *fds;
    int n, returned;
    void *result; /* each call's returned array (the returned buffer's bytes) */
};

/* One call of `side`, its wall-clock ms in `*ms`. */
static enum host_reply wall_call(struct wall_timing *t, enum host_side side, double limit,
                                 double *ms, char *text, size_t size, bool *own)
{
    struct grading *g = t->r->g;
    struct host_call_stats stats;
    double seconds = 0;
    enum host_reply reply =
        host_call(g, &g->host->jobs[side], t->request, t->fds, t->n, t->result,
                  t->r->buffers[t->returned].bytes, limit, &stats, &seconds, text, size, own);
    if (reply == HOST_REPLY_LATE)
        host_job_stuck(g, &g->host->jobs[side]);
    *ms = seconds * 1e3;
    return reply;
}

static bool wall_reference(void *context, double *ms)
{
    struct wall_timing *t = context;
    char text[GRADER_MESSAGE_MAX];
    bool own;
    enum host_reply reply =
        wall_call(t, HOST_REFERENCE, HOST_REFERENCE_CALL_SECONDS, ms, text, sizeof text, &own);
    if (reply != HOST_REPLY_RETURNED)
        return run_fail(t->r,
                        "the host form's reference (reference_host.py) did not return when "
                        "timed: %.300s",
                        text[0] ? text : "it ended, or said something else");
    return true;
}

/* One student's call, its result checked; a failure leaves its verdict in
 * `out`. False when the grader failed. */
static bool wall_student(void *context, struct case_outcome *out, double *ms)
{
    struct wall_timing *t = context;
    char text[GRADER_MESSAGE_MAX];
    double limit = host_student_limit(t->r->g);
    bool own;
    enum host_reply reply = wall_call(t, HOST_STUDENT, limit, ms, text, sizeof text, &own);
    if (own)
        return run_fail(t->r, "%s", text);
    if (reply == HOST_REPLY_RETURNED)
        return run_check_returned(t->r, t->returned, t->result, out);
    host_student_failed(t->r, reply, text, limit, out);
    return true;
}

bool host_time_repeated(struct run *r, const char *request, const int *fds, int n, int returned,
                        struct case_outcome *out)
{
    size_t bytes = r->buffers[returned].bytes;
    struct wall_timing t = {.r = r,
                            .request = request,
                            .fds = fds,
                            .n = n,
                            .returned = returned,
                            .result = malloc(bytes ? bytes : 1)};
    if (!t.result)
        return run_fail(r, "out of host memory for the timed calls");
    struct timed_sides sides = {&t, wall_student, wall_reference};
    bool ok = run_time_sides(r, &sides, out);
    free(t.result);
    return ok;
}
