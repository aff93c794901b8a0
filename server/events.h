/*
 * Internal to server/: the progress of gradings as Server-Sent Events.
 *
 * Workers publish each phase of a submission's grading; a client's
 * GET /api/v1/submissions/{id}/events gets them as a stream (queued with
 * its position, position when the queue moves, compiling, running,
 * checking, timing, done with the verdict). An idle stream is a suspended
 * connection (libmicrohttpd's suspend and resume): no thread and no busy
 * loop per stream; a keep-alive comment goes out every 15 s.
 */
#ifndef KGRADE_SERVER_EVENTS_H
#define KGRADE_SERVER_EVENTS_H

#include "http.h"

#define EVENTS_KEEPALIVE_SECONDS 15
/* Streams one user may have open at once; beyond: 429. A stream a client
 * left is closed by the next keep-alive, so a slot frees within that. */
#define EVENTS_STREAMS_PER_USER 8
#define EVENTS_RETRY_AFTER      "15"

struct event_hub *events_new(struct service *service);
void events_free(struct event_hub *hub);

/* What is graded: a submission or a trial (GET /api/v1/trials/{id}/events),
 * each numbered apart. */
enum events_kind { EVENTS_SUBMISSION, EVENTS_TRIAL };

/* A grading of submission or trial `id` begins: its earlier events are
 * dropped. */
void events_begin(struct event_hub *hub, enum events_kind kind, int64_t id);
/* An event of its grading (name, and its data, which is not stolen). */
void events_publish(struct event_hub *hub, enum events_kind kind, int64_t id, const char *name,
                    const json_t *data);
/* The queue moved: queued streams recompute their position. */
void events_queue_moved(struct event_hub *hub);

/* Answers the stream of submission or trial `id` (its access checked):
 * 200 with the streaming response, or 429 with Retry-After when the user
 * has EVENTS_STREAMS_PER_USER open. */
void events_stream(struct event_hub *hub, struct http_request *req, struct http_response *res,
                   enum events_kind kind, int64_t id);
/* The streams open now. */
int events_streams(struct event_hub *hub);

#endif
