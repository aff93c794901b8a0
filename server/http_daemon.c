/*
 * The HTTP daemon: libmicrohttpd with a thread pool on epoll, suspend and
 * resume for the event streams. Each request's body is gathered (at most
 * SERVICE_BODY_MAX bytes: 413 beyond, refused from Content-Length before
 * it is read), then routed: 404 for an unknown path, 405 for a known path
 * with another method, 401 for a bad or missing credential, 403 for a role
 * too low or a session's state change without its CSRF token. One log
 * line per request; metrics by route and status.
 */
#include "http_daemon.h"

#include "api.h"
#include "metrics.h"

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

/* Scripts from the server's own files only: no inline script can run,
 * whatever a page shows. Styles may also be inline, because the editor
 * (CodeMirror) sets style attributes; the pages never render HTML from
 * users, so no one else's style can get in. */
#define CONTENT_SECURITY_POLICY                                                                    \
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "                    \
    "img-src 'self' data:; "                                                                       \
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "             \
    "form-action 'self'"

struct gathering {
    char *body;
    size_t size;
    bool too_large;
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

static int dispatch(struct http_request *req, struct http_response *res, bool too_large)
{
    int index = http_route_find(req->method, req->url, req);
    if (index == -1)
        http_error(res, 404, "not_found", "no such resource: %.200s", req->url);
    else if (index == -2)
        http_error(res, 405, "method_not_allowed", "%.200s does not take %s", req->url,
                   req->method);
    else if (too_large)
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
    client_of(c, req.client, sizeof req.client);
    int route = dispatch(&req, &res, g->too_large);
    double ms = (now_seconds() - g->started) * 1e3;
    metrics_request(service->metrics, route, res.status, ms);
    fprintf(stderr, "http %s %s %s %d %.1f ms %s\n", req.client, method, url, res.status, ms,
            req.signed_in ? req.user.name : "-");
    enum MHD_Result ok = send_response(c, &res);
    http_response_release(&res);
    return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_size, void **state)
{
    (void)version;
    struct gathering *g = *state;
    if (!g) {
        g = calloc(1, sizeof *g);
        if (!g)
            return MHD_NO;
        g->started = now_seconds();
        g->too_large = announced_too_large(c);
        *state = g;
        return g->too_large ? answer(cls, c, url, method, g) : MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (g->too_large || g->size + n > SERVICE_BODY_MAX) {
            g->too_large = true;
            return MHD_YES;
        }
        char *grown = realloc(g->body, g->size + n + 1);
        if (!grown)
            return MHD_NO;
        memcpy(grown + g->size, upload_data, n);
        g->body = grown;
        g->size += n;
        g->body[g->size] = '\0';
        return MHD_YES;
    }
    return answer(cls, c, url, method, g);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **state,
                         enum MHD_RequestTerminationCode code)
{
    (void)cls, (void)c, (void)code;
    struct gathering *g = *state;
    if (g)
        free(g->body);
    free(g);
    *state = NULL;
}

struct MHD_Daemon *http_daemon_start(struct service *service, char *error, size_t error_size)
{
    struct sockaddr_in address = {.sin_family = AF_INET,
                                  .sin_port = htons((uint16_t)service->config.port)};
    if (inet_pton(AF_INET, service->config.bind, &address.sin_addr) != 1) {
        snprintf(error, error_size, "--bind %s is not an IPv4 address", service->config.bind);
        return NULL;
    }
    unsigned flags =
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG | MHD_USE_ITC;
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, (uint16_t)service->config.port, NULL, NULL, on_request, service,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address, MHD_OPTION_THREAD_POOL_SIZE,
        (unsigned)service->config.http_threads, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)service->config.client_timeout_seconds, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)CONNECTIONS_MAX, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        (unsigned)CONNECTIONS_PER_CLIENT, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)CONNECTION_MEMORY_BYTES, MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
        MHD_OPTION_END);
    if (!d)
        snprintf(error, error_size, "cannot listen on %s:%d (in use, or not allowed)",
                 service->config.bind, service->config.port);
    return d;
}

void http_daemon_quiesce(struct MHD_Daemon *daemon)
{
    MHD_quiesce_daemon(daemon);
}

void http_daemon_stop(struct MHD_Daemon *daemon)
{
    MHD_stop_daemon(daemon);
}
