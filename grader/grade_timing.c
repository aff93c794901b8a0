/*
 * The repeated timing of a real GPU (DESIGN.md, "Grading protocol").
 *
 * One launch on a real GPU is noisy: clocks ramp up, caches hold the last
 * run's data, another process shares the device. So after the correctness
 * run of the timed case: a warm-up of each side, then runs of the student
 * and the reference in alternation (student-reference, then
 * reference-student, so a drift of the clock costs both the same), each on
 * restored inputs, after a write of twice the L2 size (no side finds the
 * other's data in the cache) and a reset of persisting L2 lines, timed with
 * events. Runs go on until the relative standard error of both sides is
 * under 1 % or 10 s pass, and the medians are the times. Every timed student
 * run's outputs are checked: a kernel that is right only on its first run
 * is wrong.
 *
 * The virtual GPU's times are deterministic, so it uses one launch; this
 * protocol runs there only when asked (--timing repeated), for testing.
 */
#include "grade_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define L2_FALLBACK_BYTES (64u << 20) /* when the device does not say */

/* The kernel form's: the L2 flush's scratch. */
struct timing {
    struct run *r;
    CUdeviceptr scratch; /* twice the L2 size, written before every run */
    size_t scratch_bytes;
    unsigned char flush_value;
};

/* The protocol's pairs of runs. */
struct pairs {
    const struct timed_sides *sides;
    double student[TIMING_MAX_RUNS], reference[TIMING_MAX_RUNS];
    size_t runs;
};

static bool allocate_scratch(struct timing *t)
{
    struct cuda_api *api = &t->r->g->api;
    CUdevice device;
    int l2 = 0;
    if (api->cuDeviceGet(&device, 0) == CUDA_SUCCESS)
        api->cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device);
    t->scratch_bytes = 2 * (l2 > 0 ? (size_t)l2 : L2_FALLBACK_BYTES);
    if (api->cuMemAlloc(&t->scratch, t->scratch_bytes) != CUDA_SUCCESS)
        return run_fail(t->r, "no device memory for the L2 flush (%zu bytes)", t->scratch_bytes);
    return true;
}

/* Nothing of the last run stays in L2: a fresh write of twice its size, and
 * persisting lines back to normal (not every device has them). */
static void flush_l2(struct timing *t)
{
    struct cuda_api *api = &t->r->g->api;
    api->cuMemsetD8(t->scratch, t->flush_value++, t->scratch_bytes);
    api->cuCtxResetPersistingL2Cache();
}

/* "on timed run 3: " (or "on the warm-up run: ") before the check's own
 * sentence. */
static void name_run(struct case_outcome *out, size_t run, bool warm_up)
{
    char message[GRADER_MESSAGE_MAX], which[32] = "the warm-up run";
    if (!warm_up)
        snprintf(which, sizeof which, "timed run %zu", run + 1);
    snprintf(message, sizeof message, "on %s: %.220s", which, out->message);
    memcpy(out->message, message, sizeof message);
}

/* One timed student run, checked. False when the grader failed; a failed
 * check leaves its verdict in `out`. */
static bool time_student(struct pairs *p, struct case_outcome *out, bool warm_up)
{
    double ms = 0;
    if (!p->sides->student(p->sides->context, out, &ms))
        return false;
    if (out->verdict != GRADER_VERDICT_PASSED)
        name_run(out, p->runs, warm_up);
    else if (!warm_up)
        p->student[p->runs] = ms;
    return true;
}

static bool time_reference(struct pairs *p, bool warm_up)
{
    double ms = 0;
    if (!p->sides->reference(p->sides->context, &ms))
        return false;
    if (!warm_up)
        p->reference[p->runs] = ms;
    return true;
}

/* One pair of runs, in the order the pair's number says. A student's run
 * that failed ends the pair: on a real GPU its kernel may still be running
 * (cuda_api.stuck), and the reference's run would wait for it for ever. */
static bool time_pair(struct pairs *p, struct case_outcome *out, bool warm_up)
{
    bool student_first = p->runs % 2 == 0;
    bool ok = student_first
                  ? time_student(p, out, warm_up) &&
                        (out->verdict != GRADER_VERDICT_PASSED || time_reference(p, warm_up))
                  : time_reference(p, warm_up) && time_student(p, out, warm_up);
    if (ok && !warm_up && out->verdict == GRADER_VERDICT_PASSED)
        p->runs++;
    return ok;
}

bool run_time_sides(struct run *r, const struct timed_sides *sides, struct case_outcome *out)
{
    struct grading *g = r->g;
    grade_phase(g, GRADER_PHASE_TIMING);
    struct pairs *p = calloc(1, sizeof *p);
    if (!p)
        return run_fail(r, "out of host memory");
    p->sides = sides;
    bool ok = time_pair(p, out, true);
    double started = timing_now_seconds();
    while (ok && out->verdict == GRADER_VERDICT_PASSED &&
           !timing_enough(p->student, p->reference, p->runs, started))
        ok = time_pair(p, out, false);
    if (ok && out->verdict == GRADER_VERDICT_PASSED) {
        timing_stats_of(p->student, p->runs, &g->student_runs);
        timing_stats_of(p->reference, p->runs, &g->reference_runs);
        g->student_ms = g->student_runs.median;
        g->reference_ms = g->reference_runs.median;
    }
    free(p);
    return ok;
}

/* The kernel form's student run: the L2 flushed, the kernels run on
 * restored inputs, checked. */
static bool kernels_student(void *context, struct case_outcome *out, double *ms)
{
    struct timing *t = context;
    float taken = 0;
    CUresult rc;
    flush_l2(t);
    if (!run_student_once(t->r, false, &taken, &rc))
        return false;
    if (rc != CUDA_SUCCESS)
        run_fault(t->r, rc, out);
    else if (!run_check_student(t->r, out))
        return false;
    *ms = taken;
    return true;
}

static bool kernels_reference(void *context, double *ms)
{
    struct timing *t = context;
    float taken = 0;
    flush_l2(t);
    if (!run_reference_once(t->r, false, &taken))
        return false;
    *ms = taken;
    return true;
}

bool run_time_repeated(struct run *r, struct case_outcome *out)
{
    struct grading *g = r->g;
    struct timing t = {.r = r};
    struct timed_sides sides = {&t, kernels_student, kernels_reference};
    bool ok = allocate_scratch(&t) && run_time_sides(r, &sides, out);
    if (t.scratch && !g->api.stuck)
        g->api.cuMemFree(t.scratch);
    return ok;
}
