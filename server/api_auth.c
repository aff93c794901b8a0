/*
 * Logging in and out (a session cookie and its CSRF token), and API
 * tokens (created shown once, listed, revoked). Logins are limited
 * (login_limit.h), and a password longer than any account's is refused
 * before it is counted: it would cost no Argon2 check; a user holds at most
 * SERVICE_SESSIONS_PER_USER sessions and SERVICE_TOKENS_PER_USER live tokens.
 */
#include "api.h"
#include "credentials.h"
#include "known_browser.h"
#include "login_limit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOKEN_NAME_MAX      64
#define SESSION_COOKIE_NAME "kgrade_session"

static bool start_session(struct http_request *req, struct http_response *res,
                          const struct db_user *user, char csrf[CREDENTIAL_TEXT_MAX])
{
    char cookie[CREDENTIAL_TEXT_MAX], header[256];
    unsigned char hash[DB_HASH_BYTES], ignored[DB_HASH_BYTES];
    struct db *db = service_db(req->service);
    if (!credential_new("", cookie, hash) || !credential_new("", csrf, ignored) || !db ||
        db_session_add(db, user->id, hash, csrf,
                       db_now_ms() + (int64_t)SERVICE_SESSION_SECONDS * 1000,
                       SERVICE_SESSIONS_PER_USER) != DB_OK)
        return false;
    snprintf(header, sizeof header, "%s=%s; Path=/; HttpOnly; SameSite=Strict; Max-Age=%d%s",
             SESSION_COOKIE_NAME, cookie, SERVICE_SESSION_SECONDS,
             http_forwarded_tls(req) ? "; Secure" : "");
    http_header(res, "Set-Cookie", header);
    return true;
}

/* Checks the password (an unknown name costs the same time) and starts a
 * session (the user's oldest beyond SERVICE_SESSIONS_PER_USER ends). */
static void log_in(struct http_request *req, struct http_response *res, const char *name,
                   const char *password)
{
    struct db_user user;
    char csrf[CREDENTIAL_TEXT_MAX];
    if (!password_check_account(service_db(req->service), name, password, &user)) {
        http_error(res, 401, "bad_credentials", "wrong name or password");
        return;
    }
    if (!login_attempt_succeeded(req, res, name))
        return;
    if (!start_session(req, res, &user, csrf)) {
        http_error(res, 500, "internal", "the session could not be started");
        return;
    }
    known_browser_remember(req, res, name);
    http_json(res, 200,
              json_pack("{s:s, s:s, s:s, s:s, s:b}", "name", user.name, "display_name",
                        user.display_name, "role", db_role_name(user.role), "csrf_token", csrf,
                        "must_change_password", user.must_change_password));
}

void api_login(struct http_request *req, struct http_response *res)
{
    json_t *body = http_json_body(req, res);
    const char *name = NULL, *password = NULL;
    if (!body)
        return;
    if (json_unpack(body, "{s:s, s:s}", "name", &name, "password", &password) != 0)
        http_error(res, 422, "invalid", "send {\"name\": \"...\", \"password\": \"...\"}");
    else if (strlen(password) > PASSWORD_MAX_LENGTH) /* no account's: refused, not counted */
        http_error(res, 422, "invalid",
                   "a password has at most %d characters: this one was not checked",
                   PASSWORD_MAX_LENGTH);
    else if (login_attempt_begin(req, res, name))
        log_in(req, res, name, password);
    json_decref(body);
}

void api_logout(struct http_request *req, struct http_response *res)
{
    const char *cookie =
        MHD_lookup_connection_value(req->connection, MHD_COOKIE_KIND, SESSION_COOKIE_NAME);
    struct db *db = service_db(req->service);
    if (cookie && db) {
        unsigned char hash[DB_HASH_BYTES];
        credential_hash(cookie, hash);
        db_session_delete(db, hash);
    }
    http_header(res, "Set-Cookie",
                SESSION_COOKIE_NAME "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
    http_json(res, 200, json_pack("{s:b}", "logged_out", true));
}

void api_tokens_list(struct http_request *req, struct http_response *res)
{
    struct db *db = service_db(req->service);
    if (!db)
        http_error(res, 503, "unavailable", "the database cannot be reached");
    else
        http_json(res, 200, json_pack("{s:o}", "tokens", db_tokens_list(db, req->user.id)));
}

void api_token_create(struct http_request *req, struct http_response *res)
{
    json_t *body = http_json_body(req, res);
    const char *name = "token";
    if (!body)
        return;
    if (json_unpack(body, "{s?s}", "name", &name) != 0 || !name[0] ||
        strlen(name) > TOKEN_NAME_MAX) {
        http_error(res, 422, "invalid", "send {\"name\": \"a label of 1 to %d characters\"}",
                   TOKEN_NAME_MAX);
        json_decref(body);
        return;
    }
    char token[CREDENTIAL_TEXT_MAX];
    unsigned char hash[DB_HASH_BYTES];
    int64_t id = 0;
    struct db *db = service_db(req->service);
    enum db_outcome o =
        db && credential_new("kg_", token, hash)
            ? db_token_add(db, req->user.id, name, hash, SERVICE_TOKENS_PER_USER, &id)
            : DB_FAILED;
    if (o == DB_OK)
        http_json(res, 201,
                  json_pack("{s:I, s:s, s:s, s:s}", "id", (json_int_t)id, "name", name, "token",
                            token, "note", "shown once: keep it now"));
    else if (o == DB_FULL)
        http_error(res, 409, "too_many_tokens",
                   "you have %d live tokens, the most one may have: revoke one you no longer use "
                   "(DELETE /api/v1/tokens/{id}, or on the tokens page) first",
                   SERVICE_TOKENS_PER_USER);
    else
        http_error(res, 500, "internal", "the token could not be created");
    json_decref(body);
}

void api_token_revoke(struct http_request *req, struct http_response *res)
{
    struct db *db = service_db(req->service);
    enum db_outcome o = db ? db_token_revoke(db, req->user.id, req->path_id) : DB_FAILED;
    if (o == DB_OK) {
        char target[64];
        snprintf(target, sizeof target, "token %lld", (long long)req->path_id);
        db_audit(db, req->user.id, "token revoke", target, NULL);
        http_json(res, 200,
                  json_pack("{s:I, s:b}", "id", (json_int_t)req->path_id, "revoked", true));
    } else if (o == DB_NOT_FOUND)
        http_error(res, 404, "not_found", "you have no live token %lld", (long long)req->path_id);
    else
        http_error(res, 500, "internal", "the token could not be revoked");
}

/* GET /api/v1/me: who is signed in ({"signed_in": false} for nobody, so
 * a page can ask without an error), the session's CSRF token (what a page
 * reloaded needs to change anything), whether they must change their
 * password first, and their progress per exercise. */
void api_me(struct http_request *req, struct http_response *res)
{
    struct db *db = service_db(req->service);
    if (!req->signed_in) {
        http_json(res, 200, json_pack("{s:b}", "signed_in", false));
        return;
    }
    if (!db) {
        http_error(res, 503, "unavailable", "the database cannot be reached");
        return;
    }
    http_json(res, 200,
              json_pack("{s:b, s:s, s:s, s:s, s:s?, s:b, s:o}", "signed_in", true, "name",
                        req->user.name, "display_name", req->user.display_name, "role",
                        db_role_name(req->user.role), "csrf_token",
                        req->by_session ? req->csrf : NULL, "must_change_password",
                        req->user.must_change_password, "progress", db_progress(db, req->user.id)));
}
