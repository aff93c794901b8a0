/*
 * The result of a grading, as `kgrade grade` and `kgrade submit` print it
 * (the verdict and its sentence, the compiler's diagnostics with the
 * source line and a caret, the time against the reference's (numbers as
 * grader_ms_text and grader_ratio_text write them), the device
 * and seed, the kernels' output; or the grade JSON as it is), and the exit
 * code its verdict gives. One place, so both commands say the same.
 */
#include "grade_report.h"
#include "cli.h"
#include "grader/grader.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static void print_diagnostics(const json_t *result, const char *file,
                              const struct source_file *source)
{
    size_t i;
    json_t *d;
    json_t *compile = json_object_get(result, "compile");
    json_array_foreach(json_object_get(compile, "diagnostics"), i, d)
    {
        json_t *line = json_object_get(d, "line"), *col = json_object_get(d, "column");
        if (json_is_integer(line) && json_is_integer(col))
            printf("  %s:%lld:%lld: ", file, (long long)json_integer_value(line),
                   (long long)json_integer_value(col));
        else if (json_is_integer(line)) /* a column not known */
            printf("  %s:%lld: ", file, (long long)json_integer_value(line));
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

/* "time: 12.3 ms, reference 9.85 ms: ratio 1.25× (bar 1.25×), modeled". */
static void print_time(const json_t *perf)
{
    bool bound = json_is_true(json_object_get(perf, "lower_bound"));
    json_int_t runs = json_integer_value(json_object_get(json_object_get(perf, "timing"), "runs"));
    char how[64] = "", student[GRADER_NUMBER_TEXT_MAX], reference[GRADER_NUMBER_TEXT_MAX],
         ratio[GRADER_NUMBER_TEXT_MAX], bar[GRADER_NUMBER_TEXT_MAX];
    if (runs > 1)
        snprintf(how, sizeof how, ", medians of %lld runs", (long long)runs);
    printf("  time: %s%s, reference %s: ratio %s%s (bar %s)%s%s\n", bound ? "at least " : "",
           grader_ms_text(json_number_value(json_object_get(perf, "student_ms")), student),
           grader_ms_text(json_number_value(json_object_get(perf, "reference_ms")), reference),
           bound ? "> " : "",
           grader_ratio_text(json_number_value(json_object_get(perf, "ratio")), ratio),
           grader_ratio_text(json_number_value(json_object_get(perf, "max_ratio")), bar), how,
           json_is_true(json_object_get(perf, "estimated")) ? ", modeled" : "");
}

static void print_human(const json_t *r, const char *file, const struct source_file *source)
{
    json_t *perf = json_object_get(r, "performance");
    printf("%s: %s: %s\n", json_string_value(json_object_get(r, "exercise")),
           json_string_value(json_object_get(r, "verdict")),
           json_string_value(json_object_get(r, "message")));
    print_diagnostics(r, file, source);
    if (json_is_number(json_object_get(perf, "student_ms")))
        print_time(perf);
    json_t *device = json_object_get(r, "device");
    printf("  on %s; seed %s%s\n", json_string_value(json_object_get(device, "name")),
           json_string_value(json_object_get(r, "seed")),
           json_is_true(json_object_get(r, "assessment")) ? "" : "; not an assessment run (--n)");
    print_kernel_output(r);
}

void grade_report_print(const json_t *result, const char *file_name,
                        const struct source_file *source, bool as_json)
{
    if (as_json) {
        json_dumpf(result, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
        putchar('\n');
    } else {
        print_human(result, file_name, source);
    }
}

int grade_report_exit_code(const char *verdict)
{
    if (verdict && strcmp(verdict, "passed") == 0)
        return CLI_EXIT_OK;
    if (!verdict || strcmp(verdict, "internal_error") == 0)
        return CLI_EXIT_INTERNAL;
    return CLI_EXIT_FAILED;
}
