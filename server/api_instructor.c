/*
 * The instructors' routes: class progress, accounts (list, add, reset a
 * password) and the audit log (hiding and regrading: api_hide.c,
 * api_regrade.c; the gradebook and the grades as CSV: api_gradebook.c).
 * Every change goes to the audit log, which they can read.
 */
#include "api.h"
#include "credentials.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AUDIT_ROWS 1000 /* the newest entries shown */

static void audit(struct http_request *req, struct db *db, const char *action, const char *target)
{
    db_audit(db, req->user.id, action, target, NULL);
}

void api_progress(struct http_request *req, struct http_response *res)
{
    struct db *db = http_db(req, res);
    if (db)
        http_json(res, 200, json_pack("{s:o}", "progress", db_progress(db, 0)));
}

void api_users_list(struct http_request *req, struct http_response *res)
{
    struct db *db = http_db(req, res);
    if (db)
        http_json(res, 200, json_pack("{s:o}", "users", db_users_list(db)));
}

/* An account; its first password (given, or generated and answered) is
 * someone else's choice, so its owner must change it at the first login. */
void api_user_create(struct http_request *req, struct http_response *res)
{
    json_t *body = http_json_body(req, res);
    const char *name = NULL, *display = NULL, *role_name = "student", *password = NULL;
    enum db_role role;
    char generated[GENERATED_PASSWORD_LENGTH + 1], hash[PASSWORD_HASH_MAX];
    struct db *db = body ? http_db(req, res) : NULL;
    if (!db) {
        json_decref(body);
        return;
    }
    if (json_unpack(body, "{s:s, s?s, s?s, s?s}", "name", &name, "display_name", &display, "role",
                    &role_name, "password", &password) != 0 ||
        !db_user_name_valid(name) || !db_role_parse(role_name, &role) ||
        (password && strlen(password) < PASSWORD_MIN_LENGTH)) {
        http_error(res, 422, "invalid",
                   "send {\"name\": " DB_NAME_RULE ", \"role\": student|instructor|admin, "
                   "\"display_name\"?, \"password\"? (%d characters or more)}",
                   PASSWORD_MIN_LENGTH);
    } else if (role == DB_ROLE_ADMIN && req->user.role != DB_ROLE_ADMIN) {
        http_error(res, 403, "forbidden", "only an admin may add an admin");
    } else {
        if (!password) {
            password_random(generated, GENERATED_PASSWORD_LENGTH);
            password = generated;
        }
        enum db_outcome o =
            password_hash(password, hash)
                ? db_user_add(db, name, display ? display : name, role, hash, true, NULL)
                : DB_FAILED;
        if (o == DB_EXISTS)
            http_error(res, 409, "exists", "there is already a user '%s'", name);
        else if (o != DB_OK)
            http_error(res, 500, "internal", "the account could not be created");
        else {
            audit(req, db, "user add", name);
            http_json(res, 201,
                      json_pack("{s:s, s:s, s:s, s:b}", "name", name, "role", role_name, "password",
                                password, "must_change_password", true));
        }
    }
    json_decref(body);
}

/* Resets a password to a generated one, which its owner must change at
 * the next login; the user's sessions and API tokens end at once, in the
 * same transaction. Instructors reset students' passwords; an instructor's
 * or an admin's only an admin resets. */
void api_user_password(struct http_request *req, struct http_response *res)
{
    struct db *db = http_db(req, res);
    struct db_user user;
    char generated[GENERATED_PASSWORD_LENGTH + 1], hash[PASSWORD_HASH_MAX];
    if (!db)
        return;
    if (db_user_by_name(db, req->path_name, &user, NULL, 0) != DB_OK) {
        http_error(res, 404, "not_found", "no user '%s'", req->path_name);
        return;
    }
    if (user.role != DB_ROLE_STUDENT && req->user.role != DB_ROLE_ADMIN) {
        http_error(res, 403, "forbidden", "only an admin may reset the password of an %s",
                   db_role_name(user.role));
        return;
    }
    struct db_password_change change = {
        .password_hash = hash, .must_change = true, .end_tokens = true, .keep_session = NULL};
    password_random(generated, GENERATED_PASSWORD_LENGTH);
    if (!password_hash(generated, hash) || db_user_set_password(db, user.id, &change) != DB_OK) {
        http_error(res, 500, "internal", "the password could not be set");
        return;
    }
    audit(req, db, "password reset", user.name);
    http_json(res, 200,
              json_pack("{s:s, s:s, s:b}", "name", user.name, "password", generated,
                        "must_change_password", true));
}

/* The audit log, newest first: who did what to whom, and when. */
void api_audit(struct http_request *req, struct http_response *res)
{
    struct db *db = http_db(req, res);
    if (db)
        http_json(res, 200, json_pack("{s:o}", "entries", db_audit_list(db, AUDIT_ROWS)));
}
