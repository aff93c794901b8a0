/*
 * The HTTP daemon: libmicrohttpd with a thread pool on epoll, suspend and
 * resume for the event streams. Each request's headers must all arrive
 * within HTTP_HEADERS_SECONDS, and its body within HTTP_BODY_SECONDS of
 * them (request_deadline.h); its body is gathered (at most
 * SERVICE_BODY_MAX bytes: 413 beyond, refused from Content-Length before
 * it is read), then routed: 404 for an unknown path or one holding
 * a NUL byte (raw or %00), 405 for a known path with another method, 401
 * for a bad or missing credential, 403 for a role too low, for an account
 * that must change its password first, or for a session's state change
 * without its CSRF token. One log line per request; metrics by route and
 * status.
 */
#include "http_daemon.h"

#include "api.h"
#include "metrics.h"
#include "request_deadline.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define CONNECTIONS_MAX         1000
#define CONNECTIONS_PER_CLIENT  64
#define CONNECTION_MEMORY_BYTES (64 * 1024) /* headers and URL */
#define HTTP_HEADERS_SECONDS    10          /* all of a request's headers, however slow */
#define HTTP_BODY_SECONDS       20          /* all of its body after them: 256 KB at 13 KB/s */

/* Scripts from the server's own files only: no inline script can run,
 * whatever a page shows. Styles may also be inline, because the editor
 * (CodeMirror) sets style attributes; the pages never render HTML from
 * users, so no one else's style can get in. */
#define CONTENT_SECURITY_POLICY                                                                    \
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "                    \
    "img-src 'self' data:; "                                                                       \
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "             \
    "form-action 'self'"

struct http_daemon {
    struct MHD_Daemon *mhd;
    struct request_deadlines *deadlines;
};

/* One request's state, made when its URI arrives (on_uri). */
struct gathering {
    char *body;
    size_t size;
    bool too_large;
    bool headers_done; /* the access handler has been called */
    bool nul_in_path;  /* a NUL byte in the path, raw or %00: 404 */
    const char *raw_uri;
    size_t raw_uri_length; /* up to a raw NUL, if any */
    bool raw_uri_has_query;
    double started;
};

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void client_of(struct MHD_Connection *c, char *out, size_t size)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    snprintf(out, size, "?");
    if (!info || !info->client_addr)
        return;
    const struct sockaddr *a = info->client_addr;
    if (a->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)a)->sin_addr, out,
                  (socklen_t)size);
    else if (a->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)a)->sin6_addr, out,
                  (socklen_t)size);
}

/* Who may call the route, and a session's CSRF token for a state change. */
static bool allowed(const struct http_route *route, struct http_request *req,
                    struct http_response *res)
{
    if (route->access != HTTP_PUBLIC && !req->signed_in) {
        http_error(res, 401, "unauthorized",
                   "log in, or send an API token in 'Authorization: Bearer TOKEN'");
        return false;
    }
    if (route->access > HTTP_ACCOUNT && req->user.must_change_password) {
        http_error(res, 403, "password_change_required",
                   "choose a password of your own first: on the page /password, or with POST "
                   "/api/v1/me/password {\"current_password\", \"new_password\"}");
        return false;
    }
    if (route->access == HTTP_INSTRUCTOR && req->user.role == DB_ROLE_STUDENT) {
        http_error(res, 403, "forbidden", "this is for instructors and admins");
        return false;
    }
    if (strcmp(route->method, "GET") != 0 && route->handler != api_login && !auth_csrf_ok(req)) {
        http_error(res, 403, "csrf", "send the session's CSRF token in the X-CSRF-Token header");
        return false;
    }
    return true;
}

static int dispatch(struct http_request *req, struct http_response *res, const struct gathering *g)
{
    int index = g->nul_in_path ? -1 : http_route_find(req->method, req->url, req);
    if (index == -1)
        http_error(res, 404, "not_found", "no such resource: %.200s%s", req->url,
                   g->nul_in_path ? " (with a NUL byte)" : "");
    else if (index == -2)
        http_error(res, 405, "method_not_allowed", "%.200s does not take %s", req->url,
                   req->method);
    else if (g->too_large)
        http_error(res, 413, "too_large", "the body is over %d KB", SERVICE_BODY_MAX / 1024);
    else if (auth_identify(req, res, http_route(index)->access == HTTP_PUBLIC) &&
             allowed(http_route(index), req, res))
        http_route(index)->handler(req, res);
    return index;
}

static enum MHD_Result send_response(struct MHD_Connection *c, struct http_response *res)
{
    struct MHD_Response *r = res->stream;
    if (!r) {
        r = MHD_create_response_from_buffer(res->size, res->body, MHD_RESPMEM_MUST_FREE);
        res->body = NULL;
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                                res->content_type ? res->content_type : "application/json");
        MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
                                res->cache_control ? res->cache_control : "no-store");
    }
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Content-Security-Policy", CONTENT_SECURITY_POLICY);
    MHD_add_response_header(r, "X-Frame-Options", "DENY");
    MHD_add_response_header(r, "Referrer-Policy", "same-origin");
    for (int i = 0; i < res->n_headers; i++)
        MHD_add_response_header(r, res->headers[i][0], res->headers[i][1]);
    enum MHD_Result ok = MHD_queue_response(c, (unsigned)res->status, r);
    MHD_destroy_response(r);
    return ok;
}

/* A body larger than the limit announced up front: refused before reading. */
static bool announced_too_large(struct MHD_Connection *c)
{
    const char *length =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    return length && strtoull(length, NULL, 10) > SERVICE_BODY_MAX;
}

static enum MHD_Result answer(struct service *service, struct MHD_Connection *c, const char *url,
                              const char *method, struct gathering *g)
{
    struct http_request req = {.service = service,
                               .connection = c,
                               .method = method,
                               .url = url,
                               .body = g->body ? g->body : "",
                               .body_size = g->size};
    struct http_response res = {.status = 500};
    request_deadlines_answered(c);
    client_of(c, req.client, sizeof req.client);
    int route = dispatch(&req, &res, g);
    double ms = (now_seconds() - g->started) * 1e3;
    metrics_request(service->metrics, route, res.status, ms);
    fprintf(stderr, "http %s %s %s %d %.1f ms %s\n", req.client, method, url, res.status, ms,
            req.signed_in ? req.user.name : "-");
    enum MHD_Result ok = send_response(c, &res);
    http_response_release(&res);
    return ok;
}

/* Whether the path of a raw URI holds an encoded NUL (%00), which
 * libmicrohttpd would decode into a path cut short. */
static bool encoded_nul_in_path(const char *uri)
{
    const char *nul = strstr(uri, "%00");
    return nul && nul < uri + strcspn(uri, "?");
}

/* Made when the request line has arrived: the request's state, and what
 * its raw URI says. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)cls, (void)c;
    struct gathering *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->started = now_seconds();
    g->raw_uri = uri;
    g->raw_uri_length = strlen(uri);
    g->raw_uri_has_query = strchr(uri, '?') != NULL;
    g->nul_in_path = encoded_nul_in_path(uri);
    return g;
}

/* Whether bytes of the path hid behind a raw NUL. libmicrohttpd 0.9.75
 * takes a NUL in the request line and hands over the URI cut at it (later
 * versions refuse the request). It parses the line in place: the URL
 * starts where the raw URI did, and the version follows the raw URI's end
 * (the space before it, and any the URI ended with, become NULs). So
 * anything else between the visible URI and the version came after a NUL
 * (in the path, unless the visible part reached the query already). The
 * bytes are read only where the URL is where the raw URI was and the
 * version lies within the request line's buffer: a parser that copies is
 * not second-guessed. */
static bool raw_nul_in_path(const struct gathering *g, const char *url, const char *version)
{
    uintptr_t start = (uintptr_t)g->raw_uri, v = (uintptr_t)version;
    if (g->raw_uri_has_query || (uintptr_t)url != start || v <= start + g->raw_uri_length ||
        v - start > CONNECTION_MEMORY_BYTES)
        return false;
    for (const char *p = g->raw_uri + g->raw_uri_length; p < version; p++)
        if (*p != '\0' && *p != ' ' && *p != '\t')
            return true;
    return false;
}

/* Adds a piece of the body; false when memory is short. */
static bool gather(struct gathering *g, const char *data, size_t n)
{
    if (g->too_large || g->size + n > SERVICE_BODY_MAX) {
        g->too_large = true;
        return true;
    }
    char *grown = realloc(g->body, g->size + n + 1);
    if (!grown)
        return false;
    memcpy(grown + g->size, data, n);
    g->body = grown;
    g->size += n;
    g->body[g->size] = '\0';
    return true;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_size, void **state)
{
    struct gathering *g = *state;
    if (!g)
        return MHD_NO;
    if (!g->headers_done) {
        request_deadlines_headers_done(c);
        g->headers_done = true;
        g->nul_in_path = g->nul_in_path || raw_nul_in_path(g, url, version);
        g->too_large = announced_too_large(c);
        return g->too_large ? answer(cls, c, url, method, g) : MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        return gather(g, upload_data, n) ? MHD_YES : MHD_NO;
    }
    return answer(cls, c, url, method, g);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **state,
                         enum MHD_RequestTerminationCode code)
{
    (void)cls, (void)code;
    struct gathering *g = *state;
    if (g)
        free(g->body);
    free(g);
    *state = NULL;
    request_deadlines_next(c);
}

static struct MHD_Daemon *start_mhd(struct service *service, struct request_deadlines *deadlines,
                                    const struct sockaddr_in *address)
{
    unsigned flags =
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG | MHD_USE_ITC;
    return MHD_start_daemon(
        flags, (uint16_t)service->config.port, NULL, NULL, on_request, service,
        MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)address, MHD_OPTION_THREAD_POOL_SIZE,
        (unsigned)service->config.http_threads, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)service->config.client_timeout_seconds, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)CONNECTIONS_MAX, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        (unsigned)CONNECTIONS_PER_CLIENT, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)CONNECTION_MEMORY_BYTES, MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_NOTIFY_CONNECTION,
        request_deadlines_notify, deadlines, MHD_OPTION_END);
}

struct http_daemon *http_daemon_start(struct service *service, char *error, size_t error_size)
{
    struct sockaddr_in address = {.sin_family = AF_INET,
                                  .sin_port = htons((uint16_t)service->config.port)};
    if (inet_pton(AF_INET, service->config.bind, &address.sin_addr) != 1) {
        snprintf(error, error_size, "--bind %s is not an IPv4 address", service->config.bind);
        return NULL;
    }
    struct http_daemon *d = calloc(1, sizeof *d);
    if (d)
        d->deadlines = request_deadlines_start(HTTP_HEADERS_SECONDS, HTTP_BODY_SECONDS);
    if (d && d->deadlines)
        d->mhd = start_mhd(service, d->deadlines, &address);
    if (d && d->mhd)
        return d;
    snprintf(error, error_size, "cannot listen on %s:%d (in use, or not allowed)",
             service->config.bind, service->config.port);
    if (d)
        request_deadlines_stop(d->deadlines);
    free(d);
    return NULL;
}

void http_daemon_quiesce(struct http_daemon *daemon)
{
    MHD_quiesce_daemon(daemon->mhd);
}

void http_daemon_stop(struct http_daemon *daemon)
{
    MHD_stop_daemon(daemon->mhd); /* closes every connection first */
    request_deadlines_stop(daemon->deadlines);
    free(daemon);
}
