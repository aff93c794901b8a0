/*
 * The gradebook's routes, for instructors: the gradebook of a course as
 * JSON (gradebook.h), and the grades as CSV in two formats. The long one
 * (the default, as before: one row per student and exercise tried, from
 * db_progress) keeps its columns and appends the dates and the late mark;
 * the wide one (?format=wide) is the gradebook: one row per student, per
 * exercise in course order its status, best counted ratio, the date of its
 * best counted submission and its late mark, then the assessments passed
 * and the certificate.
 */
#include "api.h"
#include "csv.h"
#include "gradebook.h"
#include "grader/grader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LONG_HEADER                                                                                \
    "name,display_name,exercise,status,best_ratio,submissions,first_submitted_at,"                 \
    "best_submitted_at,late\n"

void api_gradebook(struct http_request *req, struct http_response *res)
{
    struct db *db = http_db(req, res);
    char error[256];
    if (!db)
        return;
    json_t *book =
        gradebook_build(req->service, db, http_query(req, "course"), error, sizeof error);
    if (book)
        http_json(res, 200, book);
    else
        http_error(res, 404, "not_found", "%s", error);
}

/* A JSON value as a CSV field: text as it is, a ratio with three
 * significant figures, a count, true as "late" (false and null empty). */
static void value_field(FILE *out, const json_t *v, bool last)
{
    char number[GRADER_NUMBER_TEXT_MAX];
    if (json_is_string(v))
        csv_field(out, json_string_value(v), last);
    else if (json_is_integer(v)) {
        snprintf(number, sizeof number, "%lld", (long long)json_integer_value(v));
        csv_field(out, number, last);
    } else if (json_is_real(v))
        csv_field(out, grader_number_text(json_real_value(v), number), last);
    else
        csv_field(out, json_is_true(v) ? "late" : NULL, last);
}

static void long_format(FILE *out, struct db *db)
{
    static const char *const keys[] = {"name",     "display_name", "exercise",
                                       "status",   "best_ratio",   "submissions",
                                       "first_at", "best_at",      "late"};
    json_t *rows = db_progress(db, 0), *row;
    size_t i;
    fputs(LONG_HEADER, out);
    json_array_foreach(rows, i, row) for (int k = 0; k < 9; k++)
        value_field(out, json_object_get(row, keys[k]), k == 8);
    json_decref(rows);
}

static void wide_header(FILE *out, const json_t *exercises)
{
    static const char *const parts[] = {"status", "best_ratio", "best_submitted_at", "late"};
    char name[128];
    size_t i;
    json_t *e;
    fputs("name,display_name,", out);
    json_array_foreach(exercises, i, e) for (int k = 0; k < 4; k++)
    {
        snprintf(name, sizeof name, "%s.%s", json_string_value(json_object_get(e, "id")), parts[k]);
        csv_field(out, name, false);
    }
    fputs("assessments_passed,certificate_id,certificate_issued_at,certificate_revoked\n", out);
}

static void wide_row(FILE *out, const json_t *student, const json_t *exercises)
{
    static const char *const parts[] = {"status", "best_ratio", "best_at", "late"};
    json_t *cells = json_object_get(student, "cells"), *e;
    json_t *certificate = json_object_get(student, "certificate");
    size_t i;
    csv_field(out, json_string_value(json_object_get(student, "name")), false);
    csv_field(out, json_string_value(json_object_get(student, "display_name")), false);
    json_array_foreach(exercises, i, e)
    {
        json_t *cell = json_object_get(cells, json_string_value(json_object_get(e, "id")));
        if (!cell)
            csv_field(out, "untried", false);
        for (int k = cell ? 0 : 1; k < 4; k++)
            value_field(out, json_object_get(cell, parts[k]), false);
    }
    value_field(out, json_object_get(student, "assessments_passed"), false);
    value_field(out, json_object_get(certificate, "id"), false);
    value_field(out, json_object_get(certificate, "issued_at"), false);
    csv_field(out, json_is_true(json_object_get(certificate, "revoked")) ? "revoked" : NULL, true);
}

static bool wide_format(FILE *out, struct http_request *req, struct db *db, char *error,
                        size_t size)
{
    json_t *book = gradebook_build(req->service, db, http_query(req, "course"), error, size);
    if (!book)
        return false;
    json_t *exercises = json_object_get(book, "exercises"), *student;
    size_t i;
    wide_header(out, exercises);
    json_array_foreach(json_object_get(book, "students"), i, student)
        wide_row(out, student, exercises);
    json_decref(book);
    return true;
}

void api_export_grades(struct http_request *req, struct http_response *res)
{
    struct db *db = http_db(req, res);
    const char *format = http_query(req, "format");
    char *text = NULL, error[256];
    size_t size = 0;
    if (!db)
        return;
    bool wide = format && strcmp(format, "wide") == 0;
    if (format && !wide && strcmp(format, "long") != 0) {
        http_error(res, 422, "unknown_format",
                   "format is long (one row per student and exercise, the default) or wide (one "
                   "row per student), not '%.32s'",
                   format);
        return;
    }
    FILE *out = open_memstream(&text, &size);
    bool ok = wide ? wide_format(out, req, db, error, sizeof error) : (long_format(out, db), true);
    fclose(out);
    if (!ok) {
        free(text);
        http_error(res, 404, "not_found", "%s", error);
        return;
    }
    http_header(res, "Content-Disposition",
                wide ? "attachment; filename=\"grades-wide.csv\""
                     : "attachment; filename=\"grades.csv\"");
    http_text(res, 200, "text/csv; charset=utf-8", text, size);
}
