/*
 * Internal to server/: a client of kgrade's REST API, over libcurl, for
 * `kgrade submit` (and the other commands that talk to a server).
 *
 * One client holds the server's base URL and an API token, and makes
 * requests with JSON bodies and JSON answers, or reads an event stream.
 * Every call says what happened in a struct api_reply: the status (0 when
 * the server was not reached), the JSON body, Retry-After, and a sentence
 * for a person: libcurl's for a transport failure, the server's
 * error.message for an error status.
 */
#ifndef KGRADE_SERVER_API_CLIENT_H
#define KGRADE_SERVER_API_CLIENT_H

#include "sse_parser.h"

#include <jansson.h>
#include <stdbool.h>

#define API_CLIENT_BODY_MAX        (16u << 20) /* a larger answer is refused */
#define API_CLIENT_CONNECT_SECONDS 15
#define API_CLIENT_REQUEST_SECONDS 120
/* The server sends a keep-alive comment every 15 s: a stream silent this
 * long has lost its connection. */
#define API_CLIENT_STREAM_SILENCE_SECONDS 50

struct api_client;

struct api_reply {
    long status;      /* the HTTP status; 0 when the server was not reached */
    json_t *body;     /* the JSON answer; NULL when there was none or it was not JSON */
    long retry_after; /* seconds, from Retry-After; -1 when absent */
    char message[512];
};

/* A client of the server at `base_url` (http:// or https://, a trailing
 * slash allowed) with `token` (NULL: none, for public routes). NULL with a sentence in `why` when
 * the URL or the token cannot be used. */
struct api_client *api_client_new(const char *base_url, const char *token, char *why,
                                  size_t why_size);
void api_client_free(struct api_client *client);

/* `method` `path` (from the API's root, e.g. "/api/v1/submissions") with
 * `body` as JSON when not NULL, and an Idempotency-Key header when `key`
 * is not NULL. Returns true when an answer came, whatever its status. */
bool api_client_request(struct api_client *client, const char *method, const char *path,
                        const json_t *body, const char *key, struct api_reply *reply);

/* Reads the event stream at `path`, giving each event to `fn` until `fn`
 * returns false (returns true), or the stream ends or fails (returns
 * false; reply->status is 200 when it had opened). */
bool api_client_events(struct api_client *client, const char *path, sse_event_fn fn, void *context,
                       struct api_reply *reply);

/* The base URL, as given (for messages). */
const char *api_client_server(const struct api_client *client);

void api_reply_free(struct api_reply *reply);

#endif
