/*
 * `kgrade grade --exercise ID FILE.cu`: grade a kernel here, with no server
 * and no database, and print the verdict (a few lines, or the grade JSON
 * of DESIGN.md with --json).
 *
 * Exit codes: 0 passed; 1 any other verdict; 2 a usage or configuration
 * error (an unknown exercise, --device cuda without a GPU); 3 internal_error.
 */
#include "cli.h"
#include "grader/grader.h"
#include "grading_job.h"
#include "source_file.h"

#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The position of a CLI_CHOICE option's value among `names` (the enum's
 * order); 0, the default, when it was not given. */
static int choice_of(const struct cli_args *args, int option, const char *const names[], int count)
{
    const char *value = args->value[option];
    for (int i = 0; value && i < count; i++)
        if (strcmp(value, names[i]) == 0)
            return i;
    return 0;
}

static enum grader_device device_of(const struct cli_args *args)
{
    static const char *const names[] = {
        [GRADER_DEVICE_AUTO] = "auto",
        [GRADER_DEVICE_CUDA] = "cuda",
        [GRADER_DEVICE_EMULATOR] = "emulator",
    };
    return (enum grader_device)choice_of(args, OPT_DEVICE, names, 3);
}

static enum grader_timing timing_of(const struct cli_args *args)
{
    static const char *const names[] = {
        [GRADER_TIMING_AUTO] = "auto",
        [GRADER_TIMING_SINGLE] = "single",
        [GRADER_TIMING_REPEATED] = "repeated",
    };
    return (enum grader_timing)choice_of(args, OPT_TIMING, names, 3);
}

static void print_diagnostics(const json_t *result, const char *file,
                              const struct source_file *source)
{
    size_t i;
    json_t *d;
    json_t *compile = json_object_get(result, "compile");
    json_array_foreach(json_object_get(compile, "diagnostics"), i, d)
    {
        json_t *line = json_object_get(d, "line"), *col = json_object_get(d, "column");
        if (json_is_integer(line))
            printf("  %s:%lld:%lld: ", file, (long long)json_integer_value(line),
                   json_is_integer(col) ? (long long)json_integer_value(col) : 0LL);
        else
            printf("  ");
        printf("%s: %s\n", json_string_value(json_object_get(d, "severity")),
               json_string_value(json_object_get(d, "message")));
        source_file_print_line(source, (long)json_integer_value(line),
                               (long)json_integer_value(col), stdout);
    }
    json_array_foreach(json_object_get(result, "diagnostics"), i, d)
    {
        json_t *line = json_object_get(d, "line");
        if (!json_is_integer(line)) /* the message is the verdict's: just the place */
            continue;
        printf("  at %s:%lld\n", file, (long long)json_integer_value(line));
        source_file_print_line(source, (long)json_integer_value(line), 0, stdout);
    }
}

/* The first lines of the kernels' printf output, set off from ours. */
static void print_kernel_output(const json_t *r)
{
    enum { SHOWN_LINES = 20 };
    const char *text = json_string_value(json_object_get(r, "output"));
    if (text == NULL || *text == '\0')
        return;
    printf("  the kernel printed:\n");
    int line = 0;
    for (; line < SHOWN_LINES && *text; line++) {
        size_t n = strcspn(text, "\n");
        printf("  | %.*s\n", (int)n, text);
        text += n + (text[n] == '\n');
    }
    if (*text != '\0')
        printf("  | ... (the rest is in --json's \"output\")\n");
}

static void print_human(const json_t *r, const char *file, const struct source_file *source)
{
    json_t *perf = json_object_get(r, "performance");
    printf("%s: %s: %s\n", json_string_value(json_object_get(r, "exercise")),
           json_string_value(json_object_get(r, "verdict")),
           json_string_value(json_object_get(r, "message")));
    print_diagnostics(r, file, source);
    if (json_is_number(json_object_get(perf, "student_ms"))) {
        bool bound = json_is_true(json_object_get(perf, "lower_bound"));
        json_int_t runs =
            json_integer_value(json_object_get(json_object_get(perf, "timing"), "runs"));
        char how[64] = "";
        if (runs > 1)
            snprintf(how, sizeof how, ", medians of %lld runs", (long long)runs);
        printf("  time: %s%.4f ms, reference %.4f ms: ratio %s%.2f (bar %.2f)%s%s\n",
               bound ? "at least " : "", json_number_value(json_object_get(perf, "student_ms")),
               json_number_value(json_object_get(perf, "reference_ms")), bound ? "> " : "",
               json_number_value(json_object_get(perf, "ratio")),
               json_number_value(json_object_get(perf, "max_ratio")), how,
               json_is_true(json_object_get(perf, "estimated")) ? ", modeled" : "");
    }
    json_t *device = json_object_get(r, "device");
    printf("  on %s; seed %s%s\n", json_string_value(json_object_get(device, "name")),
           json_string_value(json_object_get(r, "seed")),
           json_is_true(json_object_get(r, "assessment")) ? "" : "; not an assessment run (--n)");
    print_kernel_output(r);
}

static int exit_code_of(enum grader_verdict v)
{
    if (v == GRADER_VERDICT_PASSED)
        return CLI_EXIT_OK;
    return v == GRADER_VERDICT_INTERNAL_ERROR ? CLI_EXIT_INTERNAL : CLI_EXIT_FAILED;
}

/* In the sandbox (a `kgrade worker`), or here with --no-sandbox. */
static json_t *grade_request(const struct grader_request *request, bool sandboxed,
                             enum grader_verdict *verdict, char *error, size_t error_size)
{
    if (!sandboxed)
        return grader_grade(request, verdict, error, error_size);
    struct grading_job job = {.request = request};
#ifdef __SANITIZE_ADDRESS__
    job.relaxed_for_sanitizers = true; /* the worker is this same sanitized binary */
#endif
    grading_default_limits(&job.limits);
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
    cli_exercises_folder(args, exercises, sizeof exercises);
    char *path_copy = strdup(path);
    struct grader_request request = {
        .exercises = exercises,
        .exercise = args->value[OPT_EXERCISE],
        .source = file.data,
        .size = file.size,
        .file_name = path_copy ? basename(path_copy) : NULL,
        .seed_given = true, /* drawn here, so a job the sandbox stops still has it */
        .seed = cli_given(args, OPT_SEED) ? cli_u64(args, OPT_SEED, 0) : grader_fresh_seed(),
        .n = (int64_t)cli_u64(args, OPT_N, 0),
        .device = device_of(args),
        .timing = timing_of(args),
    };
    enum grader_verdict verdict = GRADER_VERDICT_INTERNAL_ERROR;
    json_t *result =
        grade_request(&request, !cli_given(args, OPT_NO_SANDBOX), &verdict, why, sizeof why);
    int code = CLI_EXIT_USAGE;
    if (!result) {
        fprintf(stderr, "kgrade grade: %s\n", why);
    } else {
        if (cli_given(args, OPT_JSON)) {
            json_dumpf(result, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
            putchar('\n');
        } else {
            print_human(result, request.file_name ? request.file_name : path, &file);
        }
        code = exit_code_of(verdict);
        json_decref(result);
    }
    free(path_copy);
    source_file_free(&file);
    return code;
}
