/*
 * kgrade worker: one grading job, inside the sandbox.
 *
 * Started by the sandbox with exec (job_protocol.h): forbids itself any
 * further exec, reads the job from fd 0, grades it, and writes one JSON
 * line per phase to fd 3 and the verdict last. Its own standard output
 * goes nowhere, so what a kernel prints can never pass for a verdict.
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
};

static void write_line(FILE *out, json_t *line)
{
    json_dumpf(line, out, JSON_COMPACT);
    fputc('\n', out);
    fflush(out);
    json_decref(line);
}

/* One line per change of phase or case. */
static void on_phase(void *context, enum grader_phase phase, int case_index, int n_cases)
{
    struct progress *p = context;
    const char *name = job_phase_name(phase);
    if (p->last && strcmp(p->last, name) == 0 && case_index == p->last_case)
        return;
    p->last = name;
    p->last_case = case_index;
    json_t *line = json_pack("{s:s}", "phase", name);
    if (case_index >= 0) {
        json_object_set_new(line, "case", json_integer(case_index + 1));
        json_object_set_new(line, "cases", json_integer(n_cases));
    }
    write_line(p->out, line);
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
    char error[512];
    json_t *holder = NULL;
    struct grader_request request;
    if (!input || !job_decode(input, size, &request, &holder, error, sizeof error)) {
        write_line(out, json_pack("{s:s, s:s}", "phase", "error", "message",
                                  input ? error : "out of memory"));
        free(input);
        json_decref(holder);
        return CLI_EXIT_INTERNAL;
    }
    struct progress progress = {out, NULL, -2};
    request.progress = on_phase;
    request.progress_context = &progress;
    enum grader_verdict verdict;
    json_t *result = grader_grade(&request, &verdict, error, sizeof error);
    if (result)
        write_line(out, json_pack("{s:s, s:s, s:o}", "phase", "done", "verdict",
                                  grader_verdict_name(verdict), "result", result));
    else
        write_line(out, json_pack("{s:s, s:s}", "phase", "error", "message", error));
    free(input);
    json_decref(holder);
    fclose(out);
    return CLI_EXIT_OK;
}
