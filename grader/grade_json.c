/*
 * The grade JSON of DESIGN.md, and what a failed launch of the student's
 * kernel means as a verdict.
 *
 * Every field of the contract is present in every result: values a grading
 * did not reach are null, never left out, so clients need no special case.
 */
#include "grade.h"
#include "host_form.h"
#include "utf8.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef KGRADE_VERSION
#error "KGRADE_VERSION is set by the Makefile"
#endif

/* ---------------------------------------------------------------- faults */

static json_t *triple(const unsigned v[3])
{
    return json_pack("[I, I, I]", (json_int_t)v[0], (json_int_t)v[1], (json_int_t)v[2]);
}

void grade_fault_diagnostic(struct grading *g, enum grader_verdict verdict,
                            const struct kgemu_fault *f, const char *message)
{
    const char *kind = verdict == GRADER_VERDICT_TIMEOUT        ? "timeout"
                       : verdict == GRADER_VERDICT_MEMORY_ERROR ? "memory"
                                                                : "runtime";
    if (verdict == GRADER_VERDICT_TOO_SLOW)
        return;
    json_t *d = json_pack("{s:s, s:s}", "kind", kind, "message", message);
    json_object_set_new(d, "line", f->source_line > 0 ? json_integer(f->source_line) : json_null());
    json_object_set_new(d, "block", f->has_thread ? triple(f->block) : json_null());
    json_object_set_new(d, "thread", f->has_thread ? triple(f->thread) : json_null());
    json_array_append_new(g->diagnostics, d);
}

/* A student run stopped by the budget: its time is a lower bound (what the
 * model was sure of when it stopped it, at least the bar), and its
 * counters are those of the part that ran. */
static void too_slow_when_stopped(struct grading *g, const struct kgemu_fault *f, char *message,
                                  size_t size)
{
    double bar_ms = g->exercise.max_ratio * g->reference_ms;
    g->lower_bound = true;
    g->student_ms = f->bound_at_stop_ms > bar_ms ? f->bound_at_stop_ms : bar_ms;
    g->has_counters = g->api.kgemu_last_counters && g->api.kgemu_last_counters(&g->counters) == 1;
    char bar[GRADER_NUMBER_TEXT_MAX], reference[GRADER_NUMBER_TEXT_MAX];
    char needed[GRADER_NUMBER_TEXT_MAX], ratio[GRADER_NUMBER_TEXT_MAX];
    snprintf(message, size,
             "too slow: stopped when its %s time passed the bar of %s the reference's %s; "
             "at that point it needed at least %s, so it is at least %s the reference's time, "
             "and more if it had gone on",
             g->api.emulated ? "modeled" : "measured",
             grader_ratio_text(g->exercise.max_ratio, bar),
             grader_ms_text(g->reference_ms, reference), grader_ms_text(g->student_ms, needed),
             grader_ratio_text(g->student_ms / g->reference_ms, ratio));
}

enum grader_verdict grade_fault_verdict(struct grading *g, CUresult result,
                                        struct kgemu_fault *fault, char *message, size_t size)
{
    struct kgemu_fault f;
    memset(&f, 0, sizeof f);
    bool details = g->api.kgemu_last_fault && g->api.kgemu_last_fault(&f) == 1;
    *fault = f; /* as the device told it, before the message is reworded */
    char what[256];
    cuda_api_describe(&g->api, result, what, sizeof what);
    if (!details)
        snprintf(f.message, sizeof f.message, "the kernel failed: %s", what);
    if (!details && g->api.stuck) { /* a real GPU's kernel left running at its budget */
        f.over_time_budget = 1;
        f.bound_at_stop_ms = g->api.stuck_after_ms;
    }
    enum grader_verdict v;
    switch (result) {
    case CUDA_ERROR_LAUNCH_TIMEOUT: /* past the speed bar only at the timed case */
        v = f.over_time_budget && g->timed_case ? GRADER_VERDICT_TOO_SLOW : GRADER_VERDICT_TIMEOUT;
        if (f.over_time_budget && !g->timed_case && g->api.stuck)
            snprintf(f.message, sizeof f.message,
                     "the kernel was still running after %.1f s, more than %.0f× the reference's "
                     "time (and at least %.0f s), and was stopped: an endless loop?",
                     g->api.stuck_after_ms / 1e3, TIMEOUT_FACTOR, GPU_WAIT_FLOOR_MS / 1e3);
        else if (f.over_time_budget && !g->timed_case)
            snprintf(f.message, sizeof f.message,
                     "the kernel ran more than %.0f× the reference's time and was stopped: an "
                     "endless loop?",
                     TIMEOUT_FACTOR);
        break;
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
        v = GRADER_VERDICT_MEMORY_ERROR;
        break;
    default: /* trap, assert, deadlock, stack, a launch the device refuses */
        v = GRADER_VERDICT_RUNTIME_ERROR;
        break;
    }
    if (v == GRADER_VERDICT_TOO_SLOW) {
        too_slow_when_stopped(g, &f, message, size);
        return v;
    }
    snprintf(message, size, "%s", f.message);
    return v;
}

/* ---------------------------------------------------------------- parts */

static json_t *device_json(const struct grading *g)
{
    char toolkit[32] = "";
    grader_nvrtc_version(toolkit, sizeof toolkit);
    return json_pack("{s:s, s:b, s:s}", "name", g->api.device_name, "emulated", g->api.emulated,
                     "toolkit", toolkit);
}

static json_t *counters_json(const struct kgemu_counters *c)
{
    static const char *const classes[] = {"fp32",   "fp64",    "int",   "sfu",
                                          "memory", "control", "tensor"};
    json_t *issued = json_object();
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        json_object_set_new(issued, classes[i], json_integer((json_int_t)c->warp_instructions[i]));
    json_t *j = json_pack(
        "{s:f, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
        "s:I, s:i, s:i, s:b}",
        "modeled_ms", c->modeled_ms, "limiter", c->limiter, "issue_ms", c->issue_ms, "lsu_ms",
        c->lsu_ms, "shared_ms", c->shared_ms, "latency_ms", c->latency_ms, "l2_ms", c->l2_ms,
        "dram_ms", c->dram_ms, "atomic_ms", c->atomic_ms, "warp_instructions", issued,
        "global_requests", (json_int_t)c->global_requests, "global_sectors",
        (json_int_t)c->global_sectors, "dram_read_bytes", (json_int_t)c->dram_read_bytes,
        "dram_write_bytes", (json_int_t)c->dram_write_bytes, "shared_requests",
        (json_int_t)c->shared_requests, "shared_wavefronts", (json_int_t)c->shared_wavefronts,
        "global_atomics", (json_int_t)c->global_atomics, "max_same_address_atomics",
        (json_int_t)c->max_same_address_atomics, "blocks_per_sm", c->blocks_per_sm,
        "registers_per_thread", c->registers_per_thread, "registers_exact",
        c->registers_exact != 0);
    json_object_set_new(j, "worst_bank_conflict",
                        c->worst_bank_conflict_ways > 1
                            ? json_pack("{s:i, s:i}", "ways", (int)c->worst_bank_conflict_ways,
                                        "line", c->worst_bank_conflict_line)
                            : json_null());
    json_object_set_new(j, "worst_sectors_per_request",
                        json_pack("{s:i, s:i}", "sectors", (int)c->worst_sectors_per_request,
                                  "line", c->worst_sectors_line));
    json_object_set_new(j, "partial",
                        c->blocks_complete < c->blocks_total
                            ? json_pack("{s:I, s:I}", "blocks_complete",
                                        (json_int_t)c->blocks_complete, "blocks_total",
                                        (json_int_t)c->blocks_total)
                            : json_null());
    return j;
}

/* The DRAM peak the device reports, for the "suspicious" check. */
static double dram_peak(struct grading *g)
{
    CUdevice device;
    int khz = 0, bits = 0;
    if (g->api.cuDeviceGet(&device, 0) != CUDA_SUCCESS)
        return 0;
    g->api.cuDeviceGetAttribute(&khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, device);
    g->api.cuDeviceGetAttribute(&bits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, device);
    return 2.0 * khz * 1e3 * bits / 8; /* double data rate */
}

/* How the times were taken: {"method": "single"|"repeated", "runs", and the
 * relative standard errors of the repeated runs (null for one run)}. */
static json_t *timing_json(const struct grading *g)
{
    bool repeated = g->student_runs.runs > 0;
    json_t *j = json_pack("{s:s, s:I}", "method", repeated ? "repeated" : "single", "runs",
                          (json_int_t)(repeated ? g->student_runs.runs : 1));
    json_object_set_new(j, "student_rse", repeated ? json_real(g->student_runs.rse) : json_null());
    json_object_set_new(j, "reference_rse",
                        repeated ? json_real(g->reference_runs.rse) : json_null());
    return j;
}

/* Whether the times are the virtual GPU's model ("estimated"), not the
 * host form's wall-clock calls (host_wall.c), which are measured. */
static bool times_modeled(const struct grading *g)
{
    return g->api.emulated && !(host_form_requested(g->request) && host_wall_requested(g));
}

static json_t *performance_json(struct grading *g, enum grader_verdict v)
{
    bool reached = g->student_ms > 0 && g->reference_ms > 0;
    if (!reached)
        return json_pack("{s:n, s:n, s:n, s:f, s:n, s:b, s:b, s:b, s:n, s:n}", "student_ms",
                         "reference_ms", "ratio", "max_ratio", g->exercise.max_ratio, "passed",
                         "estimated", times_modeled(g), "lower_bound", false, "suspicious", false,
                         "counters", "timing");
    double peak = dram_peak(g);
    bool suspicious = peak > 0 && !g->lower_bound && g->student_ms * 1e-3 < g->bytes_moved / peak;
    json_t *j = json_pack("{s:f, s:f, s:f, s:f, s:b, s:b, s:b, s:b}", "student_ms", g->student_ms,
                          "reference_ms", g->reference_ms, "ratio", g->student_ms / g->reference_ms,
                          "max_ratio", g->exercise.max_ratio, "passed", v == GRADER_VERDICT_PASSED,
                          "estimated", times_modeled(g), "lower_bound", g->lower_bound,
                          "suspicious", suspicious);
    json_object_set_new(j, "counters", g->has_counters ? counters_json(&g->counters) : json_null());
    json_object_set_new(j, "timing", timing_json(g));
    return j;
}

json_t *grade_json(struct grading *g, enum grader_verdict verdict, const char *message,
                   json_t *cases, bool compiled)
{
    char seed[32];
    snprintf(seed, sizeof seed, "%" PRIu64, g->seed);
    bool all_passed = json_array_size(cases) > 0;
    size_t i;
    json_t *c;
    json_array_foreach(cases, i, c) all_passed &= json_is_true(json_object_get(c, "passed"));
    json_t *compile = grader_compile_result_to_json(&g->compiled[1]);
    json_t *correctness = json_pack("{s:b, s:o}", "passed", compiled && all_passed, "cases", cases);
    json_t *result = json_pack(
        "{s:s, s:o, s:s, s:s, s:s, s:o, s:b, s:s, s:o, s:o, s:o, s:o, s:O, s:s}", "exercise",
        g->exercise.id, "exercise_version", json_string(g->version), "kgrade_version",
        KGRADE_VERSION, "language", grader_language_name(g->request->language), "verdict",
        grader_verdict_name(verdict), "message", utf8_json(message), "assessment", g->assessment,
        "seed", seed, "device", device_json(g), "compile", compile ? compile : json_null(),
        "correctness", correctness, "performance", performance_json(g, verdict), "diagnostics",
        g->diagnostics, "output", "");
    json_object_set_new(result, "correctness_only", json_boolean(g->request->correctness_only));
    json_object_set_new(result, "form",
                        json_string(host_form_requested(g->request) ? "host" : "kernel"));
    if (host_form_requested(g->request) && host_wall_requested(g)) /* calls by the wall clock */
        json_object_set_new(result, "host_timing", json_string("wall_clock"));
    char *output = output_capture_text(&g->output);
    if (output != NULL)
        json_object_set_new(result, "output", json_string(output));
    free(output);
    return result;
}
