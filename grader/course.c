/*
 * Courses, as data: exercises/courses/<id>.json, each
 *   {"id", "title", "sections": [{"title", "exercises": [ids]}],
 *    "assessments": [ids], "opens"?, "deadline"?}
 * where every assessment is one of the sections' exercises (the dates,
 * ISO 8601 with a zone, are given back in UTC, null when absent), and the rule
 * to complete a course is to pass every assessment at the assessment
 * size. A file that breaks these rules is listed with its error, like a
 * broken exercise, so whoever maintains the folder sees it.
 */
#include "dates.h"
#include "grader.h"
#include "utf8.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COURSES_FOLDER  "courses"
#define COURSES_MAX     64
#define COURSE_FILE_MAX (64 * 1024)

static bool is_id_list(const json_t *list)
{
    size_t i;
    json_t *id;
    if (!json_is_array(list) || json_array_size(list) == 0)
        return false;
    json_array_foreach(list, i, id) if (!json_is_string(id) || json_string_length(id) == 0 ||
                                        json_string_length(id) > 64) return false;
    return true;
}

static bool listed(const json_t *sections, const char *id)
{
    size_t i, k;
    json_t *section, *e;
    json_array_foreach(sections, i, section)
    {
        json_array_foreach(json_object_get(section, "exercises"), k,
                           e) if (strcmp(json_string_value(e), id) == 0) return true;
    }
    return false;
}

/* The course's "opens" and "deadline", checked and written back in UTC;
 * false with the file and the key in `why`. */
static bool check_dates(json_t *c, const char *file_id, char *why, size_t size)
{
    struct grader_dates dates;
    const char *key;
    char sentence[256];
    if (!grader_dates_read(c, &dates, &key, sentence, sizeof sentence)) {
        snprintf(why, size, "courses/%.*s.json: %s: %s", utf8_prefix(file_id, 64), file_id, key,
                 sentence);
        return false;
    }
    grader_dates_set(c, &dates);
    return true;
}

/* Checks one course's shape; false with a sentence in `why`. */
static bool check_course(json_t *c, const char *file_id, char *why, size_t size)
{
    json_t *sections = NULL, *assessments = NULL, *opens = NULL, *deadline = NULL;
    const char *id = NULL, *title = NULL;
    json_error_t jerr;
    if (json_unpack_ex((json_t *)c, &jerr, JSON_STRICT, "{s:s, s:s, s:o, s:o, s?o, s?o}", "id", &id,
                       "title", &title, "sections", &sections, "assessments", &assessments, "opens",
                       &opens, "deadline", &deadline) != 0) {
        snprintf(why, size, "%s", jerr.text);
        return false;
    }
    if (strcmp(id, file_id) != 0) {
        snprintf(why, size, "its id '%.*s' is not its file's name '%.*s'", utf8_prefix(id, 64), id,
                 utf8_prefix(file_id, 64), file_id);
        return false;
    }
    size_t i;
    json_t *section, *a;
    if (!json_is_array(sections) || json_array_size(sections) == 0) {
        snprintf(why, size, "'sections' must be a list of {title, exercises}");
        return false;
    }
    json_array_foreach(sections, i, section)
    {
        json_t *t = json_object_get(section, "title");
        if (!json_is_string(t) || !is_id_list(json_object_get(section, "exercises")) ||
            json_object_size(section) != 2) {
            snprintf(why, size, "section %zu must be {\"title\": text, \"exercises\": [ids]}",
                     i + 1);
            return false;
        }
    }
    if (!is_id_list(assessments)) {
        snprintf(why, size, "'assessments' must be a list of exercise ids");
        return false;
    }
    json_array_foreach(assessments, i, a) if (!listed(sections, json_string_value(a)))
    {
        snprintf(why, size, "the assessment '%s' is in no section", json_string_value(a));
        return false;
    }
    return check_dates(c, file_id, why, size);
}

json_t *grader_course_parse(const char *text, size_t size, const char *id)
{
    char why[512];
    json_error_t jerr;
    json_t *c = json_loadb(text, size, JSON_REJECT_DUPLICATES, &jerr);
    if (!c)
        snprintf(why, sizeof why, "line %d: %s", jerr.line, jerr.text);
    if (c && check_course(c, id, why, sizeof why))
        return c;
    json_decref(c);
    char *text_why = utf8_sanitize(why, strlen(why)); /* JSON text must be UTF-8 */
    json_t *error = json_pack("{s:s, s:s}", "id", id, "error", text_why ? text_why : "unreadable");
    free(text_why);
    return error;
}

static json_t *load_course(const char *folder, const char *file)
{
    char path[4200], id[128];
    snprintf(id, sizeof id, "%.*s", (int)(strlen(file) - 5), file); /* without ".json" */
    snprintf(path, sizeof path, "%s/%s", folder, file);
    FILE *f = fopen(path, "rb");
    char *text = f ? malloc(COURSE_FILE_MAX) : NULL;
    size_t n = text ? fread(text, 1, COURSE_FILE_MAX, f) : 0;
    bool too_long = f && n == COURSE_FILE_MAX;
    if (f)
        fclose(f);
    json_t *course = !text      ? json_pack("{s:s, s:s}", "id", id, "error", "cannot be read")
                     : too_long ? json_pack("{s:s, s:s}", "id", id, "error", "over 64 KB")
                                : grader_course_parse(text, n, id);
    free(text);
    return course;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

json_t *grader_courses(const char *exercises)
{
    char folder[4096];
    snprintf(folder, sizeof folder, "%s/%s", exercises, COURSES_FOLDER);
    json_t *list = json_array();
    DIR *d = opendir(folder);
    char *names[COURSES_MAX];
    int n = 0;
    struct dirent *entry;
    while (d && (entry = readdir(d)) && n < COURSES_MAX) {
        size_t len = strlen(entry->d_name);
        if (entry->d_name[0] != '.' && len > 5 && strcmp(entry->d_name + len - 5, ".json") == 0 &&
            (names[n] = strdup(entry->d_name)))
            n++;
    }
    if (d)
        closedir(d);
    qsort(names, (size_t)n, sizeof *names, compare_names);
    for (int i = 0; i < n; i++) {
        json_array_append_new(list, load_course(folder, names[i]));
        free(names[i]);
    }
    return list;
}
