/*
 * Server-Sent Events of gradings (events.h).
 *
 * The hub keeps, per submission being graded, the events of its current
 * grading (replayed to a stream that joins late) and the list of open
 * streams. A stream's reader runs in libmicrohttpd's thread: it writes
 * what is new, and when there is nothing suspends its connection; a
 * publisher, the queue moving or the keep-alive ticker resumes it.
 */
#include "events.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KEEP_FINISHED_MS 60000 /* a finished grading's events stay this long */
#define STREAM_CHUNK     4096

struct event {
    char *text; /* "event: NAME\ndata: {...}\n\n" */
    bool done;
};

struct grading_log {
    int64_t id;
    struct event *events;
    int n, cap;
    int64_t finished_at;
    struct grading_log *next;
};

struct stream {
    struct event_hub *hub;
    struct MHD_Connection *connection;
    int64_t id;
    int next;         /* the next event of the log to send */
    int64_t position; /* the queue position last sent; -1 none */
    bool started, ended, suspended, keepalive, position_stale;
    char *pending; /* formatted, not yet written */
    size_t pending_size, pending_sent;
    struct stream *next_stream;
};

struct event_hub {
    struct service *service;
    pthread_mutex_t lock;
    struct grading_log *logs;
    struct stream *streams;
    pthread_t ticker;
    pthread_cond_t tick;
    bool stopping;
};

static int64_t now_ms(void)
{
    return db_now_ms();
}

static struct grading_log *find_log(struct event_hub *hub, int64_t id)
{
    for (struct grading_log *l = hub->logs; l; l = l->next)
        if (l->id == id)
            return l;
    return NULL;
}

static void free_log(struct grading_log *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->events[i].text);
    free(l->events);
    free(l);
}

/* Drops logs finished long ago (the store has their results). */
static void prune(struct event_hub *hub)
{
    struct grading_log **at = &hub->logs;
    while (*at) {
        struct grading_log *l = *at;
        if (l->finished_at && now_ms() - l->finished_at > KEEP_FINISHED_MS) {
            *at = l->next;
            free_log(l);
        } else {
            at = &l->next;
        }
    }
}

/* Wakes a suspended stream (hub locked). */
static void wake(struct stream *s)
{
    if (s->suspended) {
        s->suspended = false;
        MHD_resume_connection(s->connection);
    }
}

static char *format_event(const char *name, const json_t *data)
{
    char *json = json_dumps(data, JSON_COMPACT);
    char *text = NULL;
    if (json && asprintf(&text, "event: %s\ndata: %s\n\n", name, json) < 0)
        text = NULL;
    free(json);
    return text;
}

void events_begin(struct event_hub *hub, int64_t id)
{
    pthread_mutex_lock(&hub->lock);
    struct grading_log **at = &hub->logs;
    while (*at && (*at)->id != id)
        at = &(*at)->next;
    if (*at) {
        struct grading_log *old = *at;
        *at = old->next;
        free_log(old);
    }
    for (struct stream *s = hub->streams; s; s = s->next_stream)
        if (s->id == id)
            s->next = 0;
    pthread_mutex_unlock(&hub->lock);
}

void events_publish(struct event_hub *hub, int64_t id, const char *name, const json_t *data)
{
    char *text = format_event(name, data);
    if (!text)
        return;
    pthread_mutex_lock(&hub->lock);
    struct grading_log *l = find_log(hub, id);
    if (!l && (l = calloc(1, sizeof *l)) != NULL) {
        l->id = id;
        l->next = hub->logs;
        hub->logs = l;
    }
    if (l && l->n == l->cap) {
        struct event *grown = realloc(l->events, (size_t)(l->cap * 2 + 8) * sizeof *grown);
        if (grown) {
            l->events = grown;
            l->cap = l->cap * 2 + 8;
        }
    }
    if (l && l->n < l->cap) {
        bool done = strcmp(name, "done") == 0;
        l->events[l->n++] = (struct event){text, done};
        if (done)
            l->finished_at = now_ms();
        text = NULL;
    }
    for (struct stream *s = hub->streams; s; s = s->next_stream)
        if (s->id == id)
            wake(s);
    prune(hub);
    pthread_mutex_unlock(&hub->lock);
    free(text);
}

void events_queue_moved(struct event_hub *hub)
{
    pthread_mutex_lock(&hub->lock);
    for (struct stream *s = hub->streams; s; s = s->next_stream) {
        s->position_stale = true;
        wake(s);
    }
    pthread_mutex_unlock(&hub->lock);
}

/* ---------------------------------------------------------- the reader */

static void queue_text(struct stream *s, char *text)
{
    if (!text)
        return;
    size_t n = strlen(text);
    char *grown = realloc(s->pending, s->pending_size + n);
    if (grown) {
        memcpy(grown + s->pending_size, text, n);
        s->pending = grown;
        s->pending_size += n;
    }
    free(text);
}

/* What the store says of the submission: its status, and when done the
 * "done" event (for a stream whose grading's log is gone). */
static void from_store(struct stream *s, bool first)
{
    struct db *db = service_db(s->hub->service);
    json_t *sub = db ? db_submission_json(db, s->id, false) : NULL;
    const char *status = json_string_value(json_object_get(sub, "status"));
    if (status && strcmp(status, "done") == 0 && !find_log(s->hub, s->id)) {
        json_t *data = json_pack("{s:I, s:O}", "id", (json_int_t)s->id, "verdict",
                                 json_object_get(sub, "verdict"));
        queue_text(s, format_event("done", data));
        json_decref(data);
        s->ended = true;
    } else if (status && strcmp(status, "queued") == 0) {
        int64_t position = json_integer_value(json_object_get(sub, "queue_position"));
        if (first || position != s->position) {
            json_t *data =
                json_pack("{s:I, s:I}", "id", (json_int_t)s->id, "position", (json_int_t)position);
            queue_text(s, format_event(first ? "queued" : "position", data));
            json_decref(data);
        }
        s->position = position;
    }
    json_decref(sub);
}

/* The events of the log not yet sent. */
static void from_log(struct stream *s)
{
    struct grading_log *l = find_log(s->hub, s->id);
    for (; l && s->next < l->n; s->next++) {
        queue_text(s, strdup(l->events[s->next].text));
        if (l->events[s->next].done)
            s->ended = true;
    }
}

static ssize_t read_stream(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct stream *s = cls;
    struct event_hub *hub = s->hub;
    pthread_mutex_lock(&hub->lock);
    if (s->pending_sent == s->pending_size) {
        free(s->pending);
        s->pending = NULL;
        s->pending_size = s->pending_sent = 0;
        if (!s->started || s->position_stale)
            from_store(s, !s->started);
        s->started = true;
        s->position_stale = false;
        if (!s->ended)
            from_log(s);
        if (s->keepalive && s->pending_size == 0)
            queue_text(s, strdup(": keep-alive\n\n"));
        s->keepalive = false;
    }
    ssize_t n = 0;
    if (s->pending_sent < s->pending_size) {
        n = (ssize_t)(s->pending_size - s->pending_sent < max ? s->pending_size - s->pending_sent
                                                              : max);
        memcpy(buf, s->pending + s->pending_sent, (size_t)n);
        s->pending_sent += (size_t)n;
    } else if (s->ended) {
        n = MHD_CONTENT_READER_END_OF_STREAM;
    } else {
        s->suspended = true;
        MHD_suspend_connection(s->connection);
    }
    pthread_mutex_unlock(&hub->lock);
    return n;
}

static void free_stream(void *cls)
{
    struct stream *s = cls;
    struct event_hub *hub = s->hub;
    pthread_mutex_lock(&hub->lock);
    for (struct stream **at = &hub->streams; *at; at = &(*at)->next_stream)
        if (*at == s) {
            *at = s->next_stream;
            break;
        }
    pthread_mutex_unlock(&hub->lock);
    free(s->pending);
    free(s);
}

struct MHD_Response *events_stream(struct event_hub *hub, struct http_request *req, int64_t id)
{
    struct stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->hub = hub;
    s->connection = req->connection;
    s->id = id;
    s->position = -1;
    struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, STREAM_CHUNK,
                                                               read_stream, s, free_stream);
    if (!r) {
        free(s);
        return NULL;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    MHD_add_response_header(r, "X-Accel-Buffering", "no");
    pthread_mutex_lock(&hub->lock);
    s->next_stream = hub->streams;
    hub->streams = s;
    pthread_mutex_unlock(&hub->lock);
    return r;
}

/* ------------------------------------------------------------ the ticker */

static void *tick(void *arg)
{
    struct event_hub *hub = arg;
    pthread_mutex_lock(&hub->lock);
    while (!hub->stopping) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += EVENTS_KEEPALIVE_SECONDS;
        pthread_cond_timedwait(&hub->tick, &hub->lock, &until);
        for (struct stream *s = hub->streams; s && !hub->stopping; s = s->next_stream) {
            s->keepalive = true;
            wake(s);
        }
        prune(hub);
    }
    pthread_mutex_unlock(&hub->lock);
    return NULL;
}

struct event_hub *events_new(struct service *service)
{
    struct event_hub *hub = calloc(1, sizeof *hub);
    if (!hub)
        return NULL;
    hub->service = service;
    pthread_mutex_init(&hub->lock, NULL);
    pthread_cond_init(&hub->tick, NULL);
    if (pthread_create(&hub->ticker, NULL, tick, hub) != 0) {
        free(hub);
        return NULL;
    }
    return hub;
}

void events_free(struct event_hub *hub)
{
    if (!hub)
        return;
    pthread_mutex_lock(&hub->lock);
    hub->stopping = true;
    pthread_cond_signal(&hub->tick);
    pthread_mutex_unlock(&hub->lock);
    pthread_join(hub->ticker, NULL);
    while (hub->logs) {
        struct grading_log *l = hub->logs;
        hub->logs = l->next;
        free_log(l);
    }
    free(hub);
}
