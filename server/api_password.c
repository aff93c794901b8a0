/*
 * POST /api/v1/me/password: a user changes their own password, giving the
 * current one. This is also how a password someone else made up (the
 * first admin's, a generated one, an instructor's reset) is replaced, which
 * the account must do before anything else. Changing it ends the user's
 * other web sessions and keeps the one asking; API tokens stay (they are
 * revoked one by one on the tokens page). A wrong current password counts
 * as a failed login (login_limit.h), so a session left open cannot be used
 * to guess it.
 */
#include "api.h"
#include "credentials.h"
#include "login_limit.h"

#include <string.h>

/* Checks the current password, then sets the new one. */
static void change(struct http_request *req, struct http_response *res, const char *current,
                   const char *fresh)
{
    struct db *db = http_db(req, res);
    struct db_user user;
    char hash[PASSWORD_HASH_MAX];
    if (!db || !login_attempt_begin(req, res, req->user.name))
        return;
    if (!password_check_account(db, req->user.name, current, &user)) {
        http_error(res, 403, "wrong_password", "the current password is not right");
        return;
    }
    if (!login_attempt_succeeded(req, res, req->user.name))
        return;
    struct db_password_change change = {
        .password_hash = hash,
        .must_change = false,
        .end_tokens = false,
        .keep_session = req->by_session ? req->session_hash : NULL,
    };
    if (!password_hash(fresh, hash) || db_user_set_password(db, user.id, &change) != DB_OK) {
        http_error(res, 500, "internal", "the password could not be changed");
        return;
    }
    db_audit(db, user.id, "password change", user.name, NULL);
    http_json(res, 200, json_pack("{s:b, s:b}", "changed", true, "must_change_password", false));
}

void api_me_password(struct http_request *req, struct http_response *res)
{
    json_t *body = http_json_body(req, res);
    const char *current = NULL, *fresh = NULL;
    if (!body)
        return;
    if (json_unpack(body, "{s:s, s:s}", "current_password", &current, "new_password", &fresh) != 0)
        http_error(res, 422, "invalid",
                   "send {\"current_password\": \"...\", \"new_password\": \"...\"}");
    else if (strlen(fresh) < PASSWORD_MIN_LENGTH || strlen(fresh) > PASSWORD_MAX_LENGTH)
        http_error(res, 422, "weak_password", "the new password needs %d to %d characters",
                   PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH);
    else if (strcmp(fresh, current) == 0)
        http_error(res, 422, "same_password", "the new password must differ from the current one");
    else
        change(req, res, current, fresh);
    json_decref(body);
}
