/*
 * `kgrade grade --exercise ID FILE.cu|FILE.py`: grade a kernel here, with no server
 * and no database, and print the verdict (a few lines, or the grade JSON
 * of DESIGN.md with --json).
 *
 * What the sandboxed workers write on their standard error (the virtual
 * GPU's KGEMU_JIT_STATS) is copied to ours once each job ends, as
 * --no-sandbox would show it.
 *
 * Exit codes: 0 passed; 1 any other verdict; 2 a usage or configuration
 * error (an unknown exercise, --device cuda without a GPU); 3 internal_error.
 */
#include "cli.h"
#include "grade_report.h"
#include "grader/grader.h"
#include "grading_job.h"
#include "source_file.h"

#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static enum grader_timing timing_of(const struct cli_args *args)
{
    static const char *const names[] = {
        [GRADER_TIMING_AUTO] = "auto",
        [GRADER_TIMING_SINGLE] = "single",
        [GRADER_TIMING_REPEATED] = "repeated",
    };
    return (enum grader_timing)cli_choice(args, OPT_TIMING, names, 3);
}

/* A job's standard error, on ours: what --no-sandbox would show. */
static void print_job_log(void *context, const char *log, size_t size, bool truncated)
{
    (void)context;
    fwrite(log, 1, size, stderr);
    if (log[size - 1] != '\n')
        fputc('\n', stderr);
    if (truncated)
        fprintf(stderr, "kgrade grade: the job's log was cut at %u KB\n",
                SANDBOX_DEFAULT_LOG_BYTES >> 10);
}

/* In the sandbox (a `kgrade worker`), or here with --no-sandbox. */
static json_t *grade_request(const struct grader_request *request, bool sandboxed,
                             enum grader_verdict *verdict, char *error, size_t error_size)
{
    if (!sandboxed)
        return grader_grade(request, verdict, error, error_size);
    struct grading_job job;
    grading_job_here(&job, request);
    job.log = print_job_log;
    return grading_job_run(&job, verdict, error, error_size);
}

int cmd_grade(const struct cli_args *args)
{
    const char *path = args->positional[0];
    char why[1024], exercises[4096];
    struct source_file file;
    if (!source_file_read(path, &file, why, sizeof why)) {
        fprintf(stderr, "kgrade grade: %s\n", why);
        return CLI_EXIT_USAGE;
    }
    enum grader_language language = cli_language(args);
    if (language == GRADER_LANGUAGE_NUMBA && cli_given(args, OPT_NO_SANDBOX)) {
        fprintf(stderr, "kgrade grade: a Numba kernel is compiled by running its Python module, "
                        "which only the sandbox may do: drop --no-sandbox\n");
        source_file_free(&file);
        return CLI_EXIT_USAGE;
    }
    cli_exercises_folder(args, exercises, sizeof exercises);
    char *path_copy = strdup(path);
    struct grader_request request = {
        .exercises = exercises,
        .exercise = args->value[OPT_EXERCISE],
        .source = file.data,
        .size = file.size,
        .file_name = path_copy ? basename(path_copy) : NULL,
        .language = language,
        .seed_given = true, /* drawn here, so a job the sandbox stops still has it */
        .seed = cli_given(args, OPT_SEED) ? cli_u64(args, OPT_SEED, 0) : grader_fresh_seed(),
        .n = (int64_t)cli_u64(args, OPT_N, 0),
        .device = cli_device(args),
        .timing = timing_of(args),
    };
    enum grader_verdict verdict = GRADER_VERDICT_INTERNAL_ERROR;
    json_t *result =
        grade_request(&request, !cli_given(args, OPT_NO_SANDBOX), &verdict, why, sizeof why);
    int code = CLI_EXIT_USAGE;
    if (!result) {
        fprintf(stderr, "kgrade grade: %s\n", why);
    } else {
        grade_report_print(result, request.file_name ? request.file_name : path, &file,
                           cli_given(args, OPT_JSON));
        code = grade_report_exit_code(grader_verdict_name(verdict));
        json_decref(result);
    }
    free(path_copy);
    source_file_free(&file);
    return code;
}
