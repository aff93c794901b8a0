/*
 * `kgrade exercises [--exercises DIR] [--json]`: the exercises kgrade can
 * grade, one a line, by course and section (the folder's courses/ files), then
 * those in no course; broken ones with their error. --json gives the flat
 * list, sorted by id.
 */
#include "cli.h"
#include "grader/grader.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

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

static const json_t *find(const json_t *list, const char *id)
{
    size_t i;
    json_t *x;
    json_array_foreach(list, i, x) if (strcmp(json_string_value(json_object_get(x, "id")), id) ==
                                       0) return x;
    return NULL;
}

/* One course: its title, then each section's title and exercises. */
static void print_course(const json_t *course, const json_t *list, json_t *shown)
{
    size_t i, k;
    json_t *section, *id;
    printf("%s: %s\n", json_string_value(json_object_get(course, "id")),
           json_object_get(course, "error") ? json_string_value(json_object_get(course, "error"))
                                            : json_string_value(json_object_get(course, "title")));
    json_array_foreach(json_object_get(course, "sections"), i, section)
    {
        printf("  %s\n", json_string_value(json_object_get(section, "title")));
        json_array_foreach(json_object_get(section, "exercises"), k, id)
        {
            const json_t *x = find(list, json_string_value(id));
            if (x)
                print_line(x);
            else
                printf("%-20s MISSING: the course lists it, the folder has no such exercise\n",
                       json_string_value(id));
            json_object_set_new(shown, json_string_value(id), json_true());
        }
    }
}

static void print_by_course(const json_t *list, const json_t *courses)
{
    json_t *shown = json_object(), *x;
    size_t i;
    json_array_foreach(courses, i, x)
    {
        if (i > 0)
            putchar('\n');
        print_course(x, list, shown);
    }
    bool header = false;
    json_array_foreach(list, i, x)
    {
        if (json_object_get(shown, json_string_value(json_object_get(x, "id"))))
            continue;
        if (!header && json_array_size(courses) > 0)
            printf("\nin no course:\n");
        header = true;
        print_line(x);
    }
    json_decref(shown);
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
        json_t *courses = grader_courses(folder);
        print_by_course(list, courses);
        json_decref(courses);
    }
    json_decref(list);
    return CLI_EXIT_OK;
}
