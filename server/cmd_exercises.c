/*
 * `kgrade exercises [--exercises DIR] [--json]`: the exercises kgrade can
 * grade, one a line (or as JSON), broken ones with their error.
 */
#include "cli.h"
#include "grader/grader.h"

#include <stdio.h>

static void print_line(const json_t *x)
{
    const char *id = json_string_value(json_object_get(x, "id"));
    const json_t *error = json_object_get(x, "error");
    if (error) {
        printf("%-20s BROKEN: %s\n", id, json_string_value(error));
        return;
    }
    printf("%-20s %-44s %s%s\n", id, json_string_value(json_object_get(x, "title")),
           json_string_value(json_object_get(x, "course")),
           json_is_true(json_object_get(x, "assessment")) ? " (assessment)" : "");
}

int cmd_exercises(const struct cli_args *args)
{
    char folder[4096], error[512];
    cli_exercises_folder(args, folder, sizeof folder);
    json_t *list = grader_exercises(folder, error, sizeof error);
    if (!list) {
        fprintf(stderr, "kgrade exercises: %s\n", error);
        return CLI_EXIT_USAGE;
    }
    if (cli_given(args, OPT_JSON)) {
        json_dumpf(list, stdout, JSON_INDENT(2));
        putchar('\n');
    } else {
        size_t i;
        json_t *x;
        json_array_foreach(list, i, x) print_line(x);
    }
    json_decref(list);
    return CLI_EXIT_OK;
}
