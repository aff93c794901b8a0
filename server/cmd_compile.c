/*
 * `kgrade compile FILE.cu`: compile a kernel exactly as the grader does and
 * show what NVRTC said and which kernels the PTX holds.
 *
 * It is the quickest check a student can make, and `make run` uses it on the
 * bundled example. Exit 0 when it compiles, 1 when the source is refused or
 * does not compile, 2 when the file cannot be read, 3 on kgrade's own fault.
 */
#include "cli.h"
#include "grader/grader.h"
#include "source_file.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

static void print_kernels(const struct grader_compile_result *r)
{
    for (size_t i = 0; i < r->n_kernels; i++) {
        const struct grader_kernel *k = &r->kernels[i];
        printf("  kernel %s", k->signature);
        if (k->registers >= 0)
            printf(": %d registers per thread", k->registers);
        if (strcmp(k->name, k->signature) != 0)
            printf(" (PTX entry %s)", k->name);
        putchar('\n');
    }
}

static void print_human(const struct grader_compile_result *r, const char *file_name,
                        const char *arch, double seconds)
{
    if (r->log[0] != '\0') {
        fputs(r->log, stdout);
        if (r->log[strlen(r->log) - 1] != '\n')
            putchar('\n');
    }
    char took[GRADER_NUMBER_TEXT_MAX];
    printf("%s: %s (%s, %s)\n", file_name, r->message, arch, grader_ms_text(seconds * 1e3, took));
    print_kernels(r);
}

static int print_json(const struct grader_compile_result *r, const char *arch, double seconds)
{
    json_t *compile = grader_compile_result_to_json(r);
    if (!compile) {
        fputs("kgrade compile: out of memory\n", stderr);
        return CLI_EXIT_INTERNAL;
    }
    json_object_set_new(compile, "arch", json_string(arch));
    json_object_set_new(compile, "seconds", json_real(seconds));
    json_dumpf(compile, stdout, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(4));
    putchar('\n');
    json_decref(compile);
    return CLI_EXIT_OK;
}

static int exit_code_of(enum grader_compile_status status)
{
    switch (status) {
    case GRADER_COMPILE_OK:
        return CLI_EXIT_OK;
    case GRADER_COMPILE_REJECTED:
    case GRADER_COMPILE_ERROR:
        return CLI_EXIT_FAILED;
    case GRADER_COMPILE_INTERNAL:
        return CLI_EXIT_INTERNAL;
    }
    return CLI_EXIT_INTERNAL;
}

int cmd_compile(const struct cli_args *args)
{
    const char *path = args->positional[0];
    const char *arch = cli_given(args, OPT_ARCH) ? args->value[OPT_ARCH] : GRADER_DEFAULT_ARCH;
    char why[512];
    if (!grader_arch_supported(arch, why)) {
        fprintf(stderr, "kgrade compile: %s\n", why);
        return CLI_EXIT_USAGE;
    }
    struct source_file file;
    if (!source_file_read(path, &file, why, sizeof why)) {
        fprintf(stderr, "kgrade compile: %s\n", why);
        return CLI_EXIT_USAGE;
    }
    char *path_copy = strdup(path);
    const char *file_name = path_copy ? basename(path_copy) : GRADER_DEFAULT_FILE_NAME;
    struct grader_compile_options options = {.arch = arch, .file_name = file_name};
    struct grader_compile_result result;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    grader_compile(file.data, file.size, &options, &result);
    double seconds = seconds_since(&start);
    int code = exit_code_of(result.status);
    if (cli_given(args, OPT_JSON)) {
        if (print_json(&result, arch, seconds) != CLI_EXIT_OK)
            code = CLI_EXIT_INTERNAL;
    } else {
        print_human(&result, file_name, arch, seconds);
    }
    grader_compile_result_free(&result);
    source_file_free(&file);
    free(path_copy);
    return code;
}
