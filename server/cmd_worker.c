/*
 * kgrade worker: one grading job, inside the sandbox.
 *
 * Started by the sandbox with exec (job_protocol.h): forbids itself any
 * further exec, reads the job from fd 0, and either compiles an exercise's
 * reference or grades a student's source, writing one JSON line per phase
 * to fd 3 and the outcome last. Its own standard output goes nowhere, so
 * what a kernel prints can never pass for a verdict. It never sees the
 * exercise folder: the exercise arrives on fd 0.
 */
#include "cli.h"
#include "job_protocol.h"
#include "sandbox/sandbox.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RESULT_FD 3

struct progress {
    FILE *out;
    const char *last; /* the phase last written */
    int last_case;
    const char *last_step;
};

static void write_line(FILE *out, json_t *line)
{
    json_dumpf(line, out, JSON_COMPACT);
    fputc('\n', out);
    fflush(out);
    json_decref(line);
}

/* The run a "running" line is about: the reference's or the student's. */
static const char *step_of(enum grader_phase phase)
{
    return phase == GRADER_PHASE_REFERENCE ? "reference"
           : phase == GRADER_PHASE_STUDENT ? "student"
                                           : NULL;
}

/* One line per change of phase, case or run: {"phase", "case", "cases",
 * "what": "assessment, n = 100,000,000", "stage": "assessment" or
 * "correctness" (the kind of case), "sizes": "n = 100,000,000", and while
 * running "step" (whose run) and "expected_seconds" when known; the
 * compile's line says the "device", which a verdict the parent decides
 * (a job stopped at its limit) names too}. */
static void show_phase(struct progress *p, const struct grader_progress *g)
{
    const char *name = job_phase_name(g->phase), *step = step_of(g->phase);
    if (p->last && strcmp(p->last, name) == 0 && g->case_index == p->last_case &&
        p->last_step == step)
        return;
    p->last = name;
    p->last_case = g->case_index;
    p->last_step = step;
    json_t *line = json_pack("{s:s}", "phase", name);
    if (g->case_index >= 0) {
        json_object_set_new(line, "case", json_integer(g->case_index + 1));
        json_object_set_new(line, "cases", json_integer(g->n_cases));
        json_object_set_new(line, "what", json_string(g->case_label));
        json_object_set_new(line, "stage", json_string(g->assessed ? "assessment" : "correctness"));
        json_object_set_new(line, "sizes", json_string(g->case_sizes));
    }
    if (step)
        json_object_set_new(line, "step", json_string(step));
    if (g->expected_seconds > 0)
        json_object_set_new(line, "expected_seconds", json_real(g->expected_seconds));
    if (g->phase == GRADER_PHASE_COMPILE && g->device_name && g->device_name[0])
        json_object_set_new(line, "device", json_string(g->device_name));
    write_line(p->out, line);
}

/* The progress line, then, when the student's run of a case begins,
 * {"phase": "student", "reference_seconds": S}, which the parent scales
 * the student's time limit by (grading_job.c): it comes last, since any
 * other line ends the student's limit there. */
static void on_phase(void *context, const struct grader_progress *g)
{
    struct progress *p = context;
    show_phase(p, g);
    if (g->phase == GRADER_PHASE_STUDENT)
        write_line(p->out, json_pack("{s:s, s:i, s:f}", "phase", "student", "case",
                                     g->case_index + 1, "reference_seconds", g->reference_seconds));
}

static char *read_input(size_t *size)
{
    char *input = malloc(JOB_INPUT_MAX);
    size_t n = 0;
    ssize_t got;
    while (input && n < JOB_INPUT_MAX &&
           ((got = read(0, input + n, JOB_INPUT_MAX - n)) > 0 || (got < 0 && errno == EINTR)))
        n += got > 0 ? (size_t)got : 0;
    *size = n;
    return input;
}

/* A grade job: progress lines, then the verdict. */
static json_t *grade(struct grader_request *request, FILE *out, char *error, size_t error_size)
{
    struct progress progress = {out, NULL, -2, NULL};
    request->progress = on_phase;
    request->progress_context = &progress;
    enum grader_verdict verdict;
    json_t *result = grader_grade(request, &verdict, error, error_size);
    return result ? json_pack("{s:s, s:s, s:o}", "phase", "done", "verdict",
                              grader_verdict_name(verdict), "result", result)
                  : NULL;
}

/* A reference job: the reference compiled for this device. */
static json_t *build_reference(const struct grader_request *r, char *error, size_t error_size)
{
    json_t *built = grader_reference_build(r->definition, r->definition_size, r->source, r->size,
                                           r->device, r->emulator, error, error_size);
    return built ? json_pack("{s:s, s:o}", "phase", "done", "reference", built) : NULL;
}

int cmd_worker(const struct cli_args *args)
{
    (void)args;
    FILE *out = fdopen(RESULT_FD, "w");
    if (!out) {
        fprintf(stderr, "kgrade worker: no result pipe on fd %d (started outside the sandbox?)\n",
                RESULT_FD);
        return CLI_EXIT_USAGE;
    }
    if (!sandbox_forbid_exec()) {
        fprintf(stderr, "kgrade worker: cannot forbid exec\n");
        return CLI_EXIT_INTERNAL;
    }
    size_t size;
    char *input = read_input(&size);
    char error[512] = "out of memory";
    json_t *holder = NULL, *outcome = NULL;
    enum job_kind kind;
    struct grader_request request;
    bool valid = input && job_decode(input, size, &kind, &request, &holder, error, sizeof error);
    if (valid)
        outcome = kind == JOB_GRADE ? grade(&request, out, error, sizeof error)
                                    : build_reference(&request, error, sizeof error);
    write_line(out,
               outcome ? outcome : json_pack("{s:s, s:s}", "phase", "error", "message", error));
    free(input);
    json_decref(holder);
    fclose(out);
    return valid ? CLI_EXIT_OK : CLI_EXIT_INTERNAL;
}
