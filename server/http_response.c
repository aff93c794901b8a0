/*
 * Filling responses: JSON bodies, the error body of DESIGN.md
 * ({"error": {"code", "message"}}), extra headers; and reading requests:
 * the JSON body, headers, query arguments.
 */
#include "http.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void http_text(struct http_response *res, int status, const char *content_type, char *body,
               size_t size)
{
    free(res->body);
    res->status = status;
    res->content_type = content_type;
    res->body = body;
    res->size = size;
}

void http_json(struct http_response *res, int status, json_t *body)
{
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body);
    if (!text) {
        http_text(res, 500, "application/json",
                  strdup("{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}"), 0);
        res->size = res->body ? strlen(res->body) : 0;
        return;
    }
    http_text(res, status, "application/json", text, strlen(text));
}

void http_error(struct http_response *res, int status, const char *code, const char *format, ...)
{
    char message[512];
    va_list ap;
    va_start(ap, format);
    vsnprintf(message, sizeof message, format, ap);
    va_end(ap);
    http_json(res, status, json_pack("{s:{s:s, s:s}}", "error", "code", code, "message", message));
}

void http_error_with(struct http_response *res, int status, const char *code, const char *key,
                     json_t *value, const char *format, ...)
{
    char message[512];
    va_list ap;
    va_start(ap, format);
    vsnprintf(message, sizeof message, format, ap);
    va_end(ap);
    http_json(
        res, status,
        json_pack("{s:{s:s, s:s, s:o}}", "error", "code", code, "message", message, key, value));
}

void http_header(struct http_response *res, const char *name, const char *value)
{
    if (res->n_headers == HTTP_HEADERS_MAX)
        return;
    res->headers[res->n_headers][0] = strdup(name);
    res->headers[res->n_headers][1] = strdup(value);
    res->n_headers++;
}

void http_retry_after(struct http_response *res, int seconds)
{
    char retry[16];
    snprintf(retry, sizeof retry, "%d", seconds);
    http_header(res, "Retry-After", retry);
}

void http_response_release(struct http_response *res)
{
    free(res->body);
    for (int i = 0; i < res->n_headers; i++) {
        free(res->headers[i][0]);
        free(res->headers[i][1]);
    }
    memset(res, 0, sizeof *res);
}

const char *http_header_of(struct http_request *req, const char *name)
{
    return MHD_lookup_connection_value(req->connection, MHD_HEADER_KIND, name);
}

bool http_forwarded_tls(struct http_request *req)
{
    const char *proto = http_header_of(req, "X-Forwarded-Proto");
    return proto && strcmp(proto, "https") == 0;
}

const char *http_query(struct http_request *req, const char *name)
{
    return MHD_lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND, name);
}

/* Whether a Content-Type value is the media type `type` (case aside),
 * with parameters or none: "application/json; charset=utf-8" is
 * application/json, "application/jsonx" and "text/json" are not. */
static bool media_type_is(const char *value, const char *type)
{
    size_t n = strlen(type);
    if (!value || strncasecmp(value, type, n) != 0)
        return false;
    value += n;
    value += strspn(value, " \t");
    return *value == '\0' || *value == ';';
}

bool http_body_is(struct http_request *req, const char *type)
{
    return media_type_is(http_header_of(req, MHD_HTTP_HEADER_CONTENT_TYPE), type);
}

bool http_accepts(struct http_request *req, const char *type)
{
    size_t n = strlen(type);
    for (const char *item = http_header_of(req, MHD_HTTP_HEADER_ACCEPT); item;
         item = strchr(item, ',') ? strchr(item, ',') + 1 : NULL) {
        item += strspn(item, " \t");
        if (strncasecmp(item, type, n) == 0 && strchr(" \t;,", item[n]))
            return true;
    }
    return false;
}

json_t *http_json_body(struct http_request *req, struct http_response *res)
{
    if (!media_type_is(http_header_of(req, MHD_HTTP_HEADER_CONTENT_TYPE), "application/json")) {
        http_error(res, 415, "unsupported_media_type",
                   "send the body as JSON, with Content-Type: application/json");
        return NULL;
    }
    json_error_t error;
    json_t *body = json_loadb(req->body, req->body_size, JSON_REJECT_DUPLICATES, &error);
    if (!body || !json_is_object(body)) {
        http_error(res, 400, "bad_json", "the body is not a JSON object: %s",
                   body ? "another JSON value" : error.text);
        json_decref(body);
        return NULL;
    }
    return body;
}

struct db *http_db(struct http_request *req, struct http_response *res)
{
    struct db *db = service_db(req->service);
    if (!db)
        http_error(res, 503, "unavailable", "the database cannot be reached");
    return db;
}
