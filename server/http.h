/*
 * Internal to server/: one HTTP request as the API handlers see it, the
 * response they fill, and the route table that joins them.
 */
#ifndef KGRADE_SERVER_HTTP_H
#define KGRADE_SERVER_HTTP_H

#include "service.h"

#include <jansson.h>
#include <microhttpd.h>

#define HTTP_HEADERS_MAX 6

struct http_request {
    struct service *service;
    struct MHD_Connection *connection;
    const char *method;
    const char *url;
    const char *body; /* NUL-terminated, body_size bytes */
    size_t body_size;
    char client[64];    /* the peer's address */
    int64_t path_id;    /* the {id} of the route, when it has one */
    char path_name[65]; /* the {name} of the route, when it has one */
    /* who is asking (auth.c) */
    bool signed_in;
    bool by_session; /* a cookie, not a token: state changes need the CSRF token */
    struct db_user user;
    char csrf[65];                             /* the session's CSRF token */
    unsigned char session_hash[DB_HASH_BYTES]; /* the session's, when by_session */
};

struct http_response {
    int status;
    const char *content_type;
    char *body; /* malloc'ed */
    size_t size;
    const char *cache_control;          /* NULL: "no-store" */
    char *headers[HTTP_HEADERS_MAX][2]; /* malloc'ed name, value */
    int n_headers;
    /* a streaming response (the event stream) instead of a body */
    struct MHD_Response *stream;
};

/* ---- responses (http_response.c) */
void http_json(struct http_response *res, int status, json_t *body); /* steals body */
void http_error(struct http_response *res, int status, const char *code, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
void http_text(struct http_response *res, int status, const char *content_type, char *body,
               size_t size); /* takes body */
void http_header(struct http_response *res, const char *name, const char *value);
/* A Retry-After header of `seconds`. */
void http_retry_after(struct http_response *res, int seconds);
void http_response_release(struct http_response *res);

/* The request's body as a JSON object; on failure answers 400 or 415 and
 * returns NULL. */
json_t *http_json_body(struct http_request *req, struct http_response *res);
/* The thread's database connection; NULL after answering 503. */
struct db *http_db(struct http_request *req, struct http_response *res);
/* A header of the request, or NULL. */
const char *http_header_of(struct http_request *req, const char *name);
/* Whether the client reached the reverse proxy in front by HTTPS
 * (X-Forwarded-Proto: https): cookies are then marked Secure. */
bool http_forwarded_tls(struct http_request *req);
/* A query argument, or NULL. */
const char *http_query(struct http_request *req, const char *name);

/* ---- bodies other than JSON, errors with more (http_response.c) */
/* Whether the request's Content-Type is the media type `type`. */
bool http_body_is(struct http_request *req, const char *type);
/* Whether the request's Accept header names the media type `type`. */
bool http_accepts(struct http_request *req, const char *type);
/* http_error with one more member in "error", `key`: `value` (stolen),
 * such as the "lines" of a refused file. */
void http_error_with(struct http_response *res, int status, const char *code, const char *key,
                     json_t *value, const char *format, ...) __attribute__((format(printf, 6, 7)));

/* ---- routes (routes.c) */
/* Who may call a route. An account whose password must be changed first
 * reaches only the public routes and HTTP_ACCOUNT's (its own password,
 * logging out); the others answer it 403 password_change_required. */
enum http_access {
    HTTP_PUBLIC,
    HTTP_ACCOUNT,   /* signed in, even with a password to change */
    HTTP_SIGNED_IN, /* signed in with a password of one's own */
    HTTP_INSTRUCTOR,
};

typedef void http_handler(struct http_request *req, struct http_response *res);

struct http_route {
    const char *method;
    const char *pattern; /* "/api/v1/submissions/{id}": {id} a number, {name} a word */
    enum http_access access;
    http_handler *handler;
};

/* The route of a method and path: its index, with {id}/{name} in `req`;
 * -1 when no route has the path (404), -2 when the path exists for other
 * methods only (405). */
int http_route_find(const char *method, const char *path, struct http_request *req);
const struct http_route *http_route(int index);
int http_route_count(void);

/* ---- who is asking (auth.c) */

/* Fills req->user from a bearer token or a session cookie. False with the
 * response set (401) when a credential is given but bad; on a public route
 * a stale session cookie is cleared and the request goes on anonymous. */
bool auth_identify(struct http_request *req, struct http_response *res, bool public_route);
/* For a state change by session: the X-CSRF-Token header must match. */
bool auth_csrf_ok(struct http_request *req);

#endif
