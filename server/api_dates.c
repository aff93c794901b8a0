/*
 * The instructors' routes for opening times, deadlines and extensions:
 * read every course's and exercise's dates (the files', the overrides,
 * the effective ones), set a course's or an exercise's dates (stored,
 * winning over its file until cleared) or clear them, and grant, list and
 * revoke a student's extension. Every change goes to the audit log, and
 * the students it may concern are considered for their certificates at
 * once (a late pass that now counts may complete a course).
 */
#include "api.h"
#include "certificate_issue.h"
#include "course_dates.h"
#include "grader/grader.h"

#include <stdio.h>
#include <string.h>

#define DATES_RULE                                                                                 \
    "send {\"opens\": …, \"deadline\": …}, each an ISO 8601 date-time with its zone "          \
    "(\"2026-12-15T23:59:00+01:00\") or null for none"

/* The database, with the files' dates synced in; NULL after answering. */
static struct db *dated_db(struct http_request *req, struct http_response *res)
{
    struct db *db = http_db(req, res);
    if (db)
        course_dates_sync(req->service, db);
    return db;
}

void api_dates(struct http_request *req, struct http_response *res)
{
    struct db *db = dated_db(req, res);
    if (db)
        http_json(res, 200, db_dates(db));
}

/* Whether the files know the course or exercise `name`; else 404. */
static bool known(struct http_response *res, struct db *db, enum db_scope scope, const char *name)
{
    json_t *dates = db_dates(db);
    bool found =
        json_object_get(json_object_get(dates, scope == DB_SCOPE_COURSE ? "courses" : "exercises"),
                        name) != NULL;
    json_decref(dates);
    if (!found)
        http_error(res, 404, "not_found", "no %s '%.64s'", db_scope_name(scope), name);
    return found;
}

/* One date of a body: absent or null is DB_NO_TIME; false after 422. */
static bool body_time(json_t *body, const char *key, int64_t *ms, struct http_response *res)
{
    json_t *v = json_object_get(body, key);
    char why[256];
    *ms = DB_NO_TIME;
    if (!v || json_is_null(v))
        return true;
    if (!json_is_string(v)) {
        http_error(res, 422, "invalid_date", "'%s' must be a string or null: " DATES_RULE, key);
        return false;
    }
    if (!iso8601_parse(json_string_value(v), ms, why, sizeof why)) {
        http_error(res, 422, "invalid_date", "%s: %s", key, why);
        return false;
    }
    return true;
}

static void audit_dates(struct http_request *req, struct db *db, const char *action,
                        enum db_scope scope, const char *detail)
{
    char target[96];
    snprintf(target, sizeof target, "%s %s", db_scope_name(scope), req->path_name);
    db_audit(db, req->user.id, action, target, detail);
}

static void set_dates(struct http_request *req, struct http_response *res, enum db_scope scope)
{
    json_t *body = http_json_body(req, res);
    struct db *db = body ? dated_db(req, res) : NULL;
    int64_t opens, deadline;
    char detail[160], a[ISO8601_TEXT_MAX] = "none", b[ISO8601_TEXT_MAX] = "none";
    if (!db || !known(res, db, scope, req->path_name) || !body_time(body, "opens", &opens, res) ||
        !body_time(body, "deadline", &deadline, res)) {
        json_decref(body);
        return;
    }
    json_decref(body);
    if (opens != DB_NO_TIME && deadline != DB_NO_TIME && deadline <= opens) {
        http_error(res, 422, "invalid_date", "the deadline must come after the opening time");
        return;
    }
    if (db_dates_override(db, scope, req->path_name, opens, deadline, req->user.id) != DB_OK) {
        http_error(res, 500, "internal", "the dates could not be stored: %s", db_error(db));
        return;
    }
    if (opens != DB_NO_TIME)
        iso8601_format(opens, a);
    if (deadline != DB_NO_TIME)
        iso8601_format(deadline, b);
    snprintf(detail, sizeof detail, "opens %s, deadline %s", a, b);
    audit_dates(req, db, "dates set", scope, detail);
    certificates_issue_students(req->service, db);
    http_json(res, 200, db_dates(db));
}

static void clear_dates(struct http_request *req, struct http_response *res, enum db_scope scope)
{
    struct db *db = dated_db(req, res);
    if (!db || !known(res, db, scope, req->path_name))
        return;
    if (db_dates_clear(db, scope, req->path_name) == DB_FAILED) {
        http_error(res, 500, "internal", "the dates could not be cleared: %s", db_error(db));
        return;
    }
    audit_dates(req, db, "dates clear", scope, NULL);
    certificates_issue_students(req->service, db);
    http_json(res, 200, db_dates(db));
}

void api_course_dates_set(struct http_request *req, struct http_response *res)
{
    set_dates(req, res, DB_SCOPE_COURSE);
}

void api_course_dates_clear(struct http_request *req, struct http_response *res)
{
    clear_dates(req, res, DB_SCOPE_COURSE);
}

void api_exercise_dates_set(struct http_request *req, struct http_response *res)
{
    set_dates(req, res, DB_SCOPE_EXERCISE);
}

void api_exercise_dates_clear(struct http_request *req, struct http_response *res)
{
    clear_dates(req, res, DB_SCOPE_EXERCISE);
}

void api_extensions_list(struct http_request *req, struct http_response *res)
{
    struct db *db = http_db(req, res);
    if (db)
        http_json(res, 200, json_pack("{s:o}", "extensions", db_extensions_list(db)));
}

/* The extension a body asks for: its student, what it is on and until
 * when; false after answering. */
struct extension_request {
    struct db_user user;
    enum db_scope scope;
    const char *name;
    int64_t deadline;
};

static bool extension_of(struct http_response *res, struct db *db, json_t *body,
                         struct extension_request *x)
{
    const char *user = NULL, *exercise = NULL, *course = NULL;
    if (json_unpack(body, "{s:s, s?s, s?s}", "user", &user, "exercise", &exercise, "course",
                    &course) != 0 ||
        !exercise == !course || !json_is_string(json_object_get(body, "deadline"))) {
        http_error(res, 422, "invalid",
                   "send {\"user\": a login, \"exercise\": an id or \"course\": an id, "
                   "\"deadline\": an ISO 8601 date-time with its zone}");
        return false;
    }
    if (db_user_by_name(db, user, &x->user, NULL, 0) != DB_OK) {
        http_error(res, 404, "not_found", "no user '%.64s'", user);
        return false;
    }
    x->scope = exercise ? DB_SCOPE_EXERCISE : DB_SCOPE_COURSE;
    x->name = exercise ? exercise : course;
    return known(res, db, x->scope, x->name) && body_time(body, "deadline", &x->deadline, res);
}

void api_extension_grant(struct http_request *req, struct http_response *res)
{
    json_t *body = http_json_body(req, res);
    struct db *db = body ? dated_db(req, res) : NULL;
    struct extension_request x;
    int64_t id = 0;
    char target[160], when[ISO8601_TEXT_MAX];
    if (db && extension_of(res, db, body, &x)) {
        if (db_extension_grant(db, x.user.id, x.scope, x.name, x.deadline, req->user.id, &id) !=
            DB_OK) {
            http_error(res, 500, "internal", "the extension could not be stored: %s", db_error(db));
        } else {
            iso8601_format(x.deadline, when);
            snprintf(target, sizeof target, "%s, %s %.64s", x.user.name, db_scope_name(x.scope),
                     x.name);
            db_audit(db, req->user.id, "extension grant", target, when);
            certificates_issue(req->service, db, x.user.id, NULL, 0);
            http_json(res, 201,
                      json_pack("{s:I, s:s, s:s, s:s, s:s}", "id", (json_int_t)id, "user",
                                x.user.name, "scope", db_scope_name(x.scope), "name", x.name,
                                "deadline", when));
        }
    }
    json_decref(body);
}

void api_extension_revoke(struct http_request *req, struct http_response *res)
{
    struct db *db = http_db(req, res);
    char target[64];
    if (!db)
        return;
    snprintf(target, sizeof target, "extension %lld", (long long)req->path_id);
    enum db_outcome o = db_extension_revoke(db, req->path_id);
    if (o == DB_NOT_FOUND) {
        http_error(res, 404, "not_found", "no %s", target);
    } else if (o != DB_OK) {
        http_error(res, 500, "internal", "the extension could not be revoked: %s", db_error(db));
    } else {
        db_audit(db, req->user.id, "extension revoke", target, NULL);
        http_json(res, 200, json_pack("{s:I, s:b}", "id", (json_int_t)req->path_id, "revoked", 1));
    }
}
