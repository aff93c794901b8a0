/*
 * Who is asking: an API token (Authorization: Bearer) or a web session
 * (the kgrade_session cookie, whose state changes need the X-CSRF-Token
 * header to match the session's).
 */
#include "credentials.h"
#include "http.h"

#include <sodium.h>
#include <string.h>

#define SESSION_COOKIE "kgrade_session"

bool auth_identify(struct http_request *req, struct http_response *res, bool public_route)
{
    struct db *db = service_db(req->service);
    const char *authorization = http_header_of(req, MHD_HTTP_HEADER_AUTHORIZATION);
    unsigned char hash[DB_HASH_BYTES];
    if (authorization) {
        if (strncmp(authorization, "Bearer ", 7) != 0 || strlen(authorization) > 200) {
            http_error(res, 401, "unauthorized", "use 'Authorization: Bearer TOKEN'");
            return false;
        }
        credential_hash(authorization + 7, hash);
        if (!db || db_token_user(db, hash, &req->user) != DB_OK) {
            http_error(res, 401, "unauthorized",
                       "the token is unknown or revoked: create one with kgrade token create");
            return false;
        }
        req->signed_in = true;
        return true;
    }
    const char *cookie =
        MHD_lookup_connection_value(req->connection, MHD_COOKIE_KIND, SESSION_COOKIE);
    if (!cookie)
        return true; /* anonymous */
    credential_hash(cookie, hash);
    if (!db || db_session_user(db, hash, db_now_ms(), &req->user, req->csrf) != DB_OK) {
        if (public_route) { /* a stale cookie does not keep anyone from public pages */
            http_header(res, "Set-Cookie",
                        SESSION_COOKIE "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
            return true;
        }
        http_error(res, 401, "session_expired", "your session has expired: log in again");
        return false;
    }
    req->signed_in = true;
    req->by_session = true;
    memcpy(req->session_hash, hash, sizeof req->session_hash);
    return true;
}

bool auth_csrf_ok(struct http_request *req)
{
    if (!req->by_session)
        return true;
    const char *sent = http_header_of(req, "X-CSRF-Token");
    return sent && strlen(sent) == strlen(req->csrf) &&
           sodium_memcmp(sent, req->csrf, strlen(req->csrf)) == 0;
}
