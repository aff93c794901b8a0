/*
 * The public routes: health, the exercises, the scoreboards, the metrics.
 */
#include "api.h"
#include "course_dates.h"
#include "events.h"
#include "exercise_cache.h"
#include "grader/grader.h"
#include "metrics.h"
#include "rate_limit.h"
#include "response_cache.h"

#include <cmark.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCOREBOARD_ROWS 100
#define FILE_MAX        (256 * 1024)

void api_health(struct http_request *req, struct http_response *res)
{
    struct db *db = service_db(req->service);
    http_json(res, db ? 200 : 503,
              json_pack("{s:s, s:i, s:i, s:b}", "status", db ? "ok" : "no database", "workers",
                        req->service->n_workers, "busy_workers",
                        atomic_load(&req->service->busy_workers), "sandbox",
                        req->service->protections.seccomp));
}

/* The effective dates ("exercises" or "courses" of db_dates()) laid over
 * `list` (a copy the caller owns); the files' own when the database
 * cannot be reached. */
static void effective_dates(struct http_request *req, json_t *list, const char *which)
{
    struct db *db = service_db(req->service);
    if (!db)
        return;
    course_dates_sync(req->service, db);
    json_t *dates = db_dates(db);
    course_dates_apply(list, json_object_get(dates, which));
    json_decref(dates);
}

void api_exercises(struct http_request *req, struct http_response *res)
{
    char error[256];
    json_t *cached = exercise_cache_list(req->service->config.exercises, error, sizeof error);
    json_t *list = cached ? json_deep_copy(cached) : NULL;
    json_decref(cached);
    if (!list) {
        http_error(res, 500, "internal", "the exercise folder cannot be read");
        return;
    }
    effective_dates(req, list, "exercises");
    http_json(res, 200, list);
}

/* A file of an exercise's folder as a JSON string, or null. */
static json_t *exercise_file(const char *folder, const char *id, const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s/%s", folder, id, name);
    FILE *f = fopen(path, "rb");
    char *text = f ? malloc(FILE_MAX + 1) : NULL;
    size_t n = text ? fread(text, 1, FILE_MAX, f) : 0;
    if (f)
        fclose(f);
    json_t *j = text ? json_stringn(text, n) : NULL;
    free(text);
    return j ? j : json_null();
}

/* A statement's Markdown as HTML, by cmark (CommonMark's reference
 * implementation) in its safe mode: raw HTML in the Markdown is left out
 * and javascript: links are dropped, so the pages may show it as HTML. */
static json_t *statement_html(const json_t *markdown)
{
    if (!json_is_string(markdown))
        return json_null();
    char *html = cmark_markdown_to_html(json_string_value(markdown), json_string_length(markdown),
                                        CMARK_OPT_SAFE | CMARK_OPT_SMART);
    json_t *j = html ? json_string(html) : NULL;
    free(html);
    return j ? j : json_null();
}

/* The statement in the language asked for (?lang=fr: statement.fr.md)
 * when the exercise has it, else the English statement.md; `language`
 * says which ("en" or the code). */
static json_t *statement_in(const char *folder, const char *id, const char *asked, char language[3])
{
    bool two_letters = asked && strlen(asked) == 2 && asked[0] >= 'a' && asked[0] <= 'z' &&
                       asked[1] >= 'a' && asked[1] <= 'z';
    if (two_letters && strcmp(asked, "en") != 0) {
        char name[32];
        snprintf(name, sizeof name, "statement.%s.md", asked);
        json_t *translated = exercise_file(folder, id, name);
        if (json_is_string(translated)) {
            memcpy(language, asked, 3);
            return translated;
        }
        json_decref(translated);
    }
    memcpy(language, "en", 3);
    return exercise_file(folder, id, "statement.md");
}

void api_exercise(struct http_request *req, struct http_response *res)
{
    const char *folder = req->service->config.exercises;
    json_t *e = exercise_cache_find(folder, req->path_name);
    if (!e) {
        http_error(res, 404, "not_found", "no exercise '%s'", req->path_name);
        return;
    }
    json_t *copy = json_deep_copy(e), *one = json_pack("[O]", copy);
    json_decref(e);
    effective_dates(req, one, "exercises");
    json_decref(one);
    char language[3];
    json_t *statement = statement_in(folder, req->path_name, http_query(req, "lang"), language);
    json_object_set_new(copy, "language", json_string(language));
    json_object_set_new(copy, "statement_html", statement_html(statement));
    json_object_set_new(copy, "statement", statement);
    /* The starter in each language (null where the exercise has none);
     * "starter" is the CUDA C one, as before Numba. */
    json_t *cuda = exercise_file(folder, req->path_name, "starter.cu");
    json_object_set(copy, "starter", cuda);
    json_object_set_new(copy, "starters",
                        json_pack("{s:o, s:o}", "cuda", cuda, "numba",
                                  exercise_file(folder, req->path_name, "starter.py")));
    http_json(res, 200, copy);
}

/* Instructors see login names; one whose password must still be changed
 * sees what anyone sees, like every other privilege it does not have yet. */
static bool sees_real_names(const struct http_request *req)
{
    return req->signed_in && !req->user.must_change_password && req->user.role != DB_ROLE_STUDENT;
}

/* The scoreboard kept under `key`, when nothing it shows has changed since
 * it was rendered (`version`, the database's scoreboard version); true
 * when it was served. */
static bool serve_kept(struct http_request *req, struct http_response *res, const char *key,
                       int64_t version)
{
    size_t size;
    char *text =
        version >= 0 ? response_cache_get(req->service->answers, key, version, &size) : NULL;
    if (text)
        http_text(res, 200, "application/json", text, size);
    return text != NULL;
}

/* Serves a freshly rendered scoreboard (stolen) and keeps it. */
static void serve_and_keep(struct http_request *req, struct http_response *res, const char *key,
                           int64_t version, json_t *body)
{
    http_json(res, 200, body);
    if (version >= 0 && res->status == 200 && res->body)
        response_cache_put(req->service->answers, key, version, res->body, res->size);
}

void api_scoreboard(struct http_request *req, struct http_response *res)
{
    json_t *e = exercise_cache_find(req->service->config.exercises, req->path_name);
    struct db *db = service_db(req->service);
    if (!e) {
        http_error(res, 404, "not_found", "no exercise '%s'", req->path_name);
        return;
    }
    json_decref(e);
    if (!db) {
        http_error(res, 503, "unavailable", "the database cannot be reached");
        return;
    }
    char key[RESPONSE_CACHE_KEY_MAX];
    snprintf(key, sizeof key, "exercise/%s/%d", req->path_name, sees_real_names(req));
    int64_t version = db_scoreboard_version(db);
    if (serve_kept(req, res, key, version))
        return;
    json_t *rows = db_scoreboard(db, req->path_name, sees_real_names(req), SCOREBOARD_ROWS);
    serve_and_keep(req, res, key, version,
                   json_pack("{s:s, s:o}", "exercise", req->path_name, "rows", rows));
}

void api_course_scoreboard(struct http_request *req, struct http_response *res)
{
    char error[256];
    json_t *list = exercise_cache_list(req->service->config.exercises, error, sizeof error), *e;
    const char *assessments[64];
    int n = 0;
    size_t i;
    json_array_foreach(list, i, e)
    {
        const char *course = json_string_value(json_object_get(e, "course"));
        if (n < 64 && course && strcmp(course, req->path_name) == 0 &&
            json_is_true(json_object_get(e, "assessment")))
            assessments[n++] = json_string_value(json_object_get(e, "id"));
    }
    struct db *db = service_db(req->service);
    if (n == 0 || !db) {
        if (n == 0)
            http_error(res, 404, "not_found", "no course '%s' with assessments", req->path_name);
        else
            http_error(res, 503, "unavailable", "the database cannot be reached");
        json_decref(list);
        return;
    }
    char key[RESPONSE_CACHE_KEY_MAX];
    snprintf(key, sizeof key, "course/%s/%d", req->path_name, sees_real_names(req));
    int64_t version = db_scoreboard_version(db);
    if (serve_kept(req, res, key, version)) {
        json_decref(list);
        return;
    }
    json_t *names = json_array();
    for (int k = 0; k < n; k++)
        json_array_append_new(names, json_string(assessments[k]));
    json_t *rows = db_course_scoreboard(db, assessments, n, sees_real_names(req));
    json_decref(list); /* `assessments` pointed into it */
    serve_and_keep(
        req, res, key, version,
        json_pack("{s:s, s:o, s:o}", "course", req->path_name, "assessments", names, "rows", rows));
}

void api_courses(struct http_request *req, struct http_response *res)
{
    json_t *courses = grader_courses(req->service->config.exercises);
    effective_dates(req, courses, "courses");
    http_json(res, 200, json_pack("{s:o}", "courses", courses));
}

/* The key certificates are signed with, for anyone to verify them. */
void api_certificate_key(struct http_request *req, struct http_response *res)
{
    char key[SIGNING_KEY_BASE64_MAX];
    signing_key_public_base64(&req->service->signing_key, key);
    http_json(res, 200, json_pack("{s:s, s:s}", "algorithm", "Ed25519", "public_key", key));
}

void api_metrics(struct http_request *req, struct http_response *res)
{
    struct service *s = req->service;
    struct db *db = service_db(s);
    size_t size = 0;
    struct metrics_gauges g = {
        .queue_depth = db ? db_queue_length(db) : -1,
        .busy_workers = atomic_load(&s->busy_workers),
        .workers = s->n_workers,
        .anonymous_keys = rate_limiter_keys(s->limiters.anonymous),
        .account_keys = rate_limiter_keys(s->limiters.accounts),
        .submission_keys = rate_limiter_keys(s->limiters.submissions),
        .event_streams = events_streams(s->events),
    };
    char *text = metrics_text(s->metrics, &g, &size);
    if (!text)
        http_error(res, 500, "internal", "out of memory");
    else
        http_text(res, 200, "text/plain; version=0.0.4", text, size);
}
