/*
 * Server-Sent Events of gradings (events.h).
 *
 * The hub keeps, per submission being graded, the events of its current
 * grading (replayed to a stream that joins late) and the list of open
 * streams. A stream's reader runs in libmicrohttpd's thread: it writes
 * what is new, and when there is nothing suspends its connection; a
 * publisher, the queue moving (for the streams of submissions in it or
 * being graded) or the keep-alive ticker resumes it. The reader asks the store
 * outside the hub's lock, so a slow query holds up no other stream nor a
 * publishing worker.
 */
#include "events.h"

#include <stdatomic.h>
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
    enum events_kind kind;
    int64_t id;
    struct event *events;
    int n, cap;
    int64_t finished_at;
    struct grading_log *next;
};

/* A stream's `started`, `ended` and pending text are its reader's own;
 * the rest is under the hub's lock, but `position_stale`, which the reader
 * takes before it asks the store, outside the lock. */
struct stream {
    struct event_hub *hub;
    struct MHD_Connection *connection;
    enum events_kind kind;
    int64_t id, user_id;
    int next;         /* the next event of the log to send */
    int64_t position; /* the queue position last sent; -1: not waiting in the queue */
    bool started, ended, suspended, keepalive;
    atomic_bool position_stale;
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

static struct grading_log *find_log(struct event_hub *hub, enum events_kind kind, int64_t id)
{
    for (struct grading_log *l = hub->logs; l; l = l->next)
        if (l->kind == kind && l->id == id)
            return l;
    return NULL;
}

/* Whether stream `s` follows the grading of `kind` `id`. */
static bool follows(const struct stream *s, enum events_kind kind, int64_t id)
{
    return s->kind == kind && s->id == id;
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

void events_begin(struct event_hub *hub, enum events_kind kind, int64_t id)
{
    pthread_mutex_lock(&hub->lock);
    struct grading_log **at = &hub->logs;
    while (*at && ((*at)->kind != kind || (*at)->id != id))
        at = &(*at)->next;
    if (*at) {
        struct grading_log *old = *at;
        *at = old->next;
        free_log(old);
    }
    for (struct stream *s = hub->streams; s; s = s->next_stream)
        if (follows(s, kind, id))
            s->next = 0;
    pthread_mutex_unlock(&hub->lock);
}

void events_publish(struct event_hub *hub, enum events_kind kind, int64_t id, const char *name,
                    const json_t *data)
{
    char *text = format_event(name, data);
    if (!text)
        return;
    pthread_mutex_lock(&hub->lock);
    struct grading_log *l = find_log(hub, kind, id);
    if (!l && (l = calloc(1, sizeof *l)) != NULL) {
        l->kind = kind;
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
        if (follows(s, kind, id))
            wake(s);
    prune(hub);
    pthread_mutex_unlock(&hub->lock);
    free(text);
}

/* Whether the queue's moving may change what a stream tells: its
 * submission waits in the queue, or its grading began and has not ended
 * (a worker that died puts it back in the queue). Not so for the others,
 * which are spared a query each time the queue moves. */
static bool may_be_queued(struct event_hub *hub, const struct stream *s)
{
    const struct grading_log *l = s->position >= 0 ? NULL : find_log(hub, s->kind, s->id);
    return s->position >= 0 || (l && !l->finished_at);
}

void events_queue_moved(struct event_hub *hub)
{
    pthread_mutex_lock(&hub->lock);
    for (struct stream *s = hub->streams; s; s = s->next_stream)
        if (may_be_queued(hub, s)) {
            atomic_store(&s->position_stale, true);
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

/* What the store says of the submission or trial, asked outside the
 * hub's lock (the queue's positions take a query of the whole queue). */
static json_t *from_store(struct stream *s)
{
    struct db *db = service_db(s->hub->service);
    if (!db)
        return NULL;
    return s->kind == EVENTS_TRIAL ? db_trial_json(db, s->id)
                                   : db_submission_json(db, s->id, false);
}

/* The events of what the store said, `sub`: queued with the position (or
 * position when it moved), and when done the "done" event (for a stream
 * whose grading's log is gone). Hub locked. */
static void store_events(struct stream *s, const json_t *sub, bool first)
{
    const char *status = json_string_value(json_object_get(sub, "status"));
    int64_t position = json_integer_value(json_object_get(sub, "queue_position"));
    bool queued = status && strcmp(status, "queued") == 0;
    if (status && strcmp(status, "done") == 0 && !find_log(s->hub, s->kind, s->id)) {
        json_t *data = json_pack("{s:I, s:O}", "id", (json_int_t)s->id, "verdict",
                                 json_object_get(sub, "verdict"));
        queue_text(s, format_event("done", data));
        json_decref(data);
        s->ended = true;
    } else if (queued && (first || position != s->position)) {
        json_t *data =
            json_pack("{s:I, s:I}", "id", (json_int_t)s->id, "position", (json_int_t)position);
        queue_text(s, format_event(first ? "queued" : "position", data));
        json_decref(data);
    }
    s->position = queued ? position : -1;
}

/* The events of the log not yet sent. */
static void from_log(struct stream *s)
{
    struct grading_log *l = find_log(s->hub, s->kind, s->id);
    for (; l && s->next < l->n; s->next++) {
        queue_text(s, strdup(l->events[s->next].text));
        if (l->events[s->next].done)
            s->ended = true;
    }
}

/* Fills the pending text with what is new (hub locked); `sub` is what the
 * store said, or NULL when it was not asked. */
static void refill(struct stream *s, const json_t *sub)
{
    free(s->pending);
    s->pending = NULL;
    s->pending_size = s->pending_sent = 0;
    if (sub)
        store_events(s, sub, !s->started);
    s->started = true;
    if (!s->ended)
        from_log(s);
    if (s->keepalive && s->pending_size == 0)
        queue_text(s, strdup(": keep-alive\n\n"));
    s->keepalive = false;
}

/* Writes what is pending, ends the stream, or suspends it until there is
 * more (hub locked). */
static ssize_t write_pending(struct stream *s, char *buf, size_t max)
{
    if (s->pending_sent < s->pending_size) {
        size_t n =
            s->pending_size - s->pending_sent < max ? s->pending_size - s->pending_sent : max;
        memcpy(buf, s->pending + s->pending_sent, n);
        s->pending_sent += n;
        return (ssize_t)n;
    }
    if (s->ended)
        return MHD_CONTENT_READER_END_OF_STREAM;
    s->suspended = true;
    MHD_suspend_connection(s->connection);
    if (atomic_load(&s->position_stale))
        wake(s); /* the queue moved while the store was asked */
    return 0;
}

static ssize_t read_stream(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct stream *s = cls;
    bool empty = s->pending_sent == s->pending_size;
    bool stale = empty && atomic_exchange(&s->position_stale, false);
    json_t *sub = empty && (!s->started || stale) ? from_store(s) : NULL;
    pthread_mutex_lock(&s->hub->lock);
    if (empty)
        refill(s, sub);
    ssize_t n = write_pending(s, buf, max);
    pthread_mutex_unlock(&s->hub->lock);
    json_decref(sub);
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

/* Links `s` to the hub unless its user has EVENTS_STREAMS_PER_USER open. */
static bool add_stream(struct event_hub *hub, struct stream *s)
{
    int open = 0;
    pthread_mutex_lock(&hub->lock);
    for (struct stream *o = hub->streams; o; o = o->next_stream)
        open += o->user_id == s->user_id;
    if (open < EVENTS_STREAMS_PER_USER) {
        s->next_stream = hub->streams;
        hub->streams = s;
    }
    pthread_mutex_unlock(&hub->lock);
    return open < EVENTS_STREAMS_PER_USER;
}

static void too_many_streams(struct http_response *res)
{
    http_header(res, "Retry-After", EVENTS_RETRY_AFTER);
    http_error(res, 429, "too_many_streams",
               "you have %d event streams open, the most one may have: close a page that "
               "follows a grading, or ask GET /api/v1/submissions/{id} (or trials/{id}) instead",
               EVENTS_STREAMS_PER_USER);
}

void events_stream(struct event_hub *hub, struct http_request *req, struct http_response *res,
                   enum events_kind kind, int64_t id)
{
    struct stream *s = calloc(1, sizeof *s);
    struct MHD_Response *r = NULL;
    if (s) {
        *s = (struct stream){.hub = hub,
                             .connection = req->connection,
                             .kind = kind,
                             .id = id,
                             .user_id = req->user.id,
                             .position = -1};
        atomic_init(&s->position_stale, false);
    }
    if (s && !add_stream(hub, s)) {
        free(s);
        too_many_streams(res);
        return;
    }
    if (s && !(r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, STREAM_CHUNK, read_stream, s,
                                                     free_stream)))
        free_stream(s);
    if (!r) {
        http_error(res, 500, "internal", "the event stream could not be opened");
        return;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    MHD_add_response_header(r, "X-Accel-Buffering", "no");
    res->stream = r;
    res->status = 200;
}

int events_streams(struct event_hub *hub)
{
    int n = 0;
    pthread_mutex_lock(&hub->lock);
    for (struct stream *s = hub->streams; s; s = s->next_stream)
        n++;
    pthread_mutex_unlock(&hub->lock);
    return n;
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
