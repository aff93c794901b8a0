/*
 * The gradebook of a course (gradebook.h): the course file gives the
 * exercises and their order, the accounts the students, db_progress the
 * standing that counts, the certificates their column.
 */
#include "gradebook.h"

#include "course_dates.h"
#include "exercise_cache.h"
#include "grader/grader.h"

#include <stdio.h>
#include <string.h>

/* The course `id` among the loadable ones (NULL: the first), or NULL. */
static json_t *pick_course(const json_t *courses, const char *id)
{
    size_t i;
    json_t *c;
    json_array_foreach(courses, i, c)
    {
        const char *cid = json_string_value(json_object_get(c, "id"));
        if (!json_object_get(c, "error") && (!id || strcmp(cid, id) == 0))
            return c;
    }
    return NULL;
}

static json_t *course_summaries(const json_t *courses)
{
    json_t *list = json_array(), *c;
    size_t i;
    json_array_foreach(courses, i, c) if (!json_object_get(c, "error"))
        json_array_append_new(list, json_pack("{s:O, s:O}", "id", json_object_get(c, "id"), "title",
                                              json_object_get(c, "title")));
    return list;
}

static bool listed(const json_t *ids, const char *id)
{
    size_t i;
    json_t *e;
    json_array_foreach(ids, i, e) if (strcmp(json_string_value(e), id) == 0) return true;
    return false;
}

/* One column: the exercise's title (its id when it cannot be loaded) and
 * effective dates. */
static json_t *column(const char *id, const json_t *section, bool assessment, const json_t *dates,
                      const char *folder)
{
    json_t *e = exercise_cache_find(folder, id), *d = json_object_get(dates, id);
    json_t *title = json_object_get(e, "title");
    json_t *c =
        json_pack("{s:s, s:O, s:O, s:b}", "id", id, "title", title ? title : json_string(id),
                  "section", section ? section : json_null(), "assessment", assessment);
    if (!title)
        json_decref(json_object_get(c, "title")); /* the string made above */
    json_object_set(c, "opens", d ? json_object_get(d, "opens") : json_null());
    json_object_set(c, "deadline", d ? json_object_get(d, "deadline") : json_null());
    json_decref(e);
    return c;
}

/* The course's exercises in its order; every exercise without a course. */
static json_t *columns(struct service *s, const json_t *course, const json_t *dates)
{
    const char *folder = s->config.exercises;
    json_t *list = json_array(), *section, *id;
    size_t i, k;
    if (course) {
        json_t *assessments = json_object_get(course, "assessments");
        json_array_foreach(json_object_get(course, "sections"), i, section)
            json_array_foreach(json_object_get(section, "exercises"), k, id) json_array_append_new(
                list, column(json_string_value(id), json_object_get(section, "title"),
                             listed(assessments, json_string_value(id)), dates, folder));
        return list;
    }
    char error[256];
    json_t *all = exercise_cache_list(folder, error, sizeof error), *e;
    json_array_foreach(all, i, e) if (!json_object_get(e, "error")) json_array_append_new(
        list, column(json_string_value(json_object_get(e, "id")), NULL,
                     json_is_true(json_object_get(e, "assessment")), dates, folder));
    json_decref(all);
    return list;
}

static bool among_columns(const json_t *columns, const char *id)
{
    size_t i;
    json_t *c;
    json_array_foreach(columns, i, c) if (strcmp(json_string_value(json_object_get(c, "id")), id) ==
                                          0) return true;
    return false;
}

/* {NAME: {EXERCISE: cell}} from db_progress's rows, for the columns only. */
static json_t *cells_by_student(const json_t *progress, const json_t *columns)
{
    json_t *by = json_object(), *row;
    size_t i;
    json_array_foreach(progress, i, row)
    {
        const char *name = json_string_value(json_object_get(row, "name"));
        const char *exercise = json_string_value(json_object_get(row, "exercise"));
        if (!among_columns(columns, exercise))
            continue;
        json_t *best = json_object_get(row, "best_submission");
        json_t *cell = json_pack(
            "{s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:O}", "status", json_object_get(row, "status"),
            "best_ratio", json_object_get(row, "best_ratio"), "submissions",
            json_object_get(row, "submissions"), "late", json_object_get(row, "late"), "submission",
            json_is_integer(best) ? best : json_object_get(row, "newest_submission"),
            "best_submission", best, "best_at", json_object_get(row, "best_at"), "first_at",
            json_object_get(row, "first_at"));
        if (!json_object_get(by, name))
            json_object_set_new(by, name, json_object());
        json_object_set_new(json_object_get(by, name), exercise, cell);
    }
    return by;
}

static int assessments_passed(const json_t *cells, const json_t *columns)
{
    int n = 0;
    size_t i;
    json_t *c;
    json_array_foreach(columns, i, c)
    {
        json_t *cell = json_object_get(cells, json_string_value(json_object_get(c, "id")));
        const char *status = json_string_value(json_object_get(cell, "status"));
        n += json_is_true(json_object_get(c, "assessment")) && status &&
             strcmp(status, "passed") == 0;
    }
    return n;
}

/* Every student, with their cells, assessments passed and certificate. */
static json_t *rows(struct db *db, const json_t *columns, const char *course)
{
    json_t *users = db_users_list(db), *progress = db_progress(db, 0);
    json_t *cells = cells_by_student(progress, columns);
    json_t *certificates = course ? db_course_certificates(db, course) : json_object();
    json_t *list = json_array(), *u;
    size_t i;
    json_array_foreach(users, i, u)
    {
        const char *name = json_string_value(json_object_get(u, "name"));
        if (strcmp(json_string_value(json_object_get(u, "role")), "student") != 0)
            continue;
        json_t *mine = json_object_get(cells, name), *held = json_object_get(certificates, name);
        json_array_append_new(list,
                              json_pack("{s:s, s:O, s:i, s:o, s:o}", "name", name, "display_name",
                                        json_object_get(u, "display_name"), "assessments_passed",
                                        assessments_passed(mine, columns), "certificate",
                                        held ? json_incref(held) : json_null(), "cells",
                                        mine ? json_incref(mine) : json_object()));
    }
    json_decref(users);
    json_decref(progress);
    json_decref(cells);
    json_decref(certificates);
    return list;
}

json_t *gradebook_build(struct service *s, struct db *db, const char *course_id, char *error,
                        size_t error_size)
{
    json_t *courses = grader_courses(s->config.exercises);
    json_t *course = pick_course(courses, course_id);
    if (course_id && !course) {
        snprintf(error, error_size, "no course '%.64s': see GET /api/v1/courses", course_id);
        json_decref(courses);
        return NULL;
    }
    course_dates_sync(s, db);
    json_t *dates = db_dates(db);
    json_t *cols = columns(s, course, json_object_get(dates, "exercises"));
    const char *id = course ? json_string_value(json_object_get(course, "id")) : NULL;
    json_t *book = json_pack("{s:o, s:o, s:o, s:o}", "course",
                             course ? json_pack("{s:O, s:O}", "id", json_object_get(course, "id"),
                                                "title", json_object_get(course, "title"))
                                    : json_null(),
                             "courses", course_summaries(courses), "exercises", cols, "students",
                             rows(db, cols, id));
    json_decref(dates);
    json_decref(courses);
    return book;
}
