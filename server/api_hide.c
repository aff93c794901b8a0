/*
 * Hiding a submission from the scoreboards: an instructor's call, kept
 * with its reason (which the submission's owner reads on their pages), who
 * made it and when; the submission itself is kept, for the record, and can
 * be shown again. Each change goes to the audit log with its reason.
 */
#include "api.h"

#include <stdio.h>
#include <string.h>

/* The request's JSON object, or an empty one when it has no body (these
 * routes take a bare POST); NULL after answering 400 or 415. */
json_t *api_optional_body(struct http_request *req, struct http_response *res)
{
    return req->body_size ? http_json_body(req, res) : json_object();
}

/* "submission 12 of sam": what an audit entry names; false when there is
 * no such submission. */
bool api_submission_target(struct db *db, int64_t id, char *target, size_t size)
{
    int64_t owner;
    struct db_user user;
    if (db_submission_owner(db, id, &owner) != DB_OK || db_user_by_id(db, owner, &user) != DB_OK)
        return false;
    snprintf(target, size, "submission %lld of %s", (long long)id, user.name);
    return true;
}

/* The body's "reason": NULL when absent, null or empty; false after
 * answering 422 when it is not a string or is too long. */
static bool reason_of(json_t *body, struct http_response *res, const char **reason)
{
    json_t *given = json_object_get(body, "reason");
    *reason = json_string_value(given);
    if (given && !json_is_null(given) && !json_is_string(given)) {
        http_error(res, 422, "invalid", "the reason is a string: {\"reason\": \"why\"}");
        return false;
    }
    if (*reason && strlen(*reason) > API_REASON_MAX) {
        http_error(res, 422, "reason_too_long",
                   "the reason is %zu bytes long; at most %d are kept: shorten it", strlen(*reason),
                   API_REASON_MAX);
        return false;
    }
    if (*reason && !**reason)
        *reason = NULL;
    return true;
}

/* Hides (or shows again) the route's submission, and audits it. */
static void hide_or_show(struct http_request *req, struct http_response *res, struct db *db,
                         bool hidden, const char *reason)
{
    char target[128];
    if (!api_submission_target(db, req->path_id, target, sizeof target)) {
        http_error(res, 404, "not_found", "no submission %lld", (long long)req->path_id);
    } else if (db_submission_hide(db, req->path_id, hidden, req->user.id, reason) != DB_OK) {
        http_error(res, 500, "internal", "the submission could not be changed");
    } else {
        db_audit(db, req->user.id, hidden ? "hide" : "show", target, reason);
        http_json(res, 200,
                  json_pack("{s:I, s:b, s:s?}", "id", (json_int_t)req->path_id, "hidden", hidden,
                            "hidden_reason", hidden ? reason : NULL));
    }
}

/* POST /api/v1/submissions/{id}/hide {"hidden"?: true|false, "reason"?}:
 * hides (the default) or shows again; answers {id, hidden, hidden_reason}. */
void api_submission_hide(struct http_request *req, struct http_response *res)
{
    json_t *body = api_optional_body(req, res);
    struct db *db = body ? http_db(req, res) : NULL;
    json_t *flag = json_object_get(body, "hidden");
    const char *reason = NULL;
    if (db && flag && !json_is_boolean(flag))
        http_error(res, 422, "invalid", "\"hidden\" is true or false");
    else if (db && reason_of(body, res, &reason))
        hide_or_show(req, res, db, !json_is_false(flag), reason);
    json_decref(body);
}
