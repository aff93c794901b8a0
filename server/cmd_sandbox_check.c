/*
 * kgrade sandbox-check: which protections the sandbox gives a job on this
 * machine, tried for real with a trivial job, then whether a grade runs
 * through it on the device `kgrade grade` would use (--device: a real GPU
 * where /dev/nvidia* is, else the virtual GPU): vector-add's reference,
 * graded as a student's kernel at a small size, must pass. On a GPU server
 * that is the check that the driver works inside a job.
 *
 * Exits 0 when the minimum a grading service needs is there (seccomp,
 * resource limits, the timeout) and the grade passes, 1 when not, saying
 * what is missing or what the grade said.
 */
#include "cli.h"
#include "grader/grader.h"
#include "grading_job.h"
#include "sandbox/sandbox.h"
#include "source_file.h"

#include <limits.h>
#include <stdio.h>

#define PROBE_EXERCISE "vector-add"
#define PROBE_N        1000
#define PROBE_N_TEXT   "1,000"

/* Grades the probe exercise's reference in the sandbox; true when it
 * passes. `said` gets the device's name, or why it did not pass. */
static bool grade_in_the_sandbox(const struct cli_args *args, char *said, size_t size)
{
    char exercises[PATH_MAX], path[PATH_MAX + 64], why[1024];
    cli_exercises_folder(args, exercises, sizeof exercises);
    snprintf(path, sizeof path, "%s/%s/reference.cu", exercises, PROBE_EXERCISE);
    struct source_file file;
    if (!source_file_read(path, &file, why, sizeof why)) {
        snprintf(said, size, "no exercise to grade (%.900s)", why);
        return false;
    }
    struct grader_request request = {
        .exercises = exercises,
        .exercise = PROBE_EXERCISE,
        .source = file.data,
        .size = file.size,
        .file_name = "reference.cu",
        .seed_given = true,
        .seed = grader_fresh_seed(),
        .n = PROBE_N,
        .device = cli_device(args),
    };
    struct grading_job job;
    grading_job_here(&job, &request);
    enum grader_verdict verdict = GRADER_VERDICT_INTERNAL_ERROR;
    json_t *result = grading_job_run(&job, &verdict, why, sizeof why);
    const char *device =
        json_string_value(json_object_get(json_object_get(result, "device"), "name"));
    const char *message = json_string_value(json_object_get(result, "message"));
    bool passed = result && verdict == GRADER_VERDICT_PASSED;
    if (passed)
        snprintf(said, size, "%s", device ? device : "a GPU");
    else
        snprintf(said, size, "%s: %.900s", result ? grader_verdict_name(verdict) : "not graded",
                 result ? (message ? message : "") : why);
    json_decref(result);
    source_file_free(&file);
    return passed;
}

int cmd_sandbox_check(const struct cli_args *args)
{
    struct sandbox_protections p;
    char why[1024];
    if (!sandbox_probe(&p, why, sizeof why)) {
        printf("sandbox: not usable here: %s\n", why);
        return CLI_EXIT_FAILED;
    }
    printf("sandbox protections on this machine:\n");
    sandbox_print_protections(&p, stdout);
    const char *missing = sandbox_missing_minimum(&p);
    bool graded = grade_in_the_sandbox(args, why, sizeof why);
    printf("  %-18s %-8s %s\n", "a grade", graded ? "passed" : "FAILED", why);
    if (graded)
        printf("                              (%s's reference at n = %s, as a student's kernel)\n",
               PROBE_EXERCISE, PROBE_N_TEXT);
    if (missing) {
        printf("not enough to grade untrusted kernels: %s\n", missing);
        return CLI_EXIT_FAILED;
    }
    if (!graded) {
        printf("grading does not work in the sandbox here: see the line above\n");
        return CLI_EXIT_FAILED;
    }
    printf("enough to grade untrusted kernels\n");
    return CLI_EXIT_OK;
}
