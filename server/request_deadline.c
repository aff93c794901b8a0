/*
 * Deadlines on request headers and bodies (request_deadline.h): a list of
 * the open connections under one lock, each with the part of its request
 * it is waiting for and since when, and a watchdog thread that looks at it
 * every WATCH_TICK_MS. O(connections) a tick, at most CONNECTIONS_MAX.
 */
#include "request_deadline.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#define WATCH_TICK_MS 500

/* What a connection's request is waiting for. */
enum part { HEADERS, BODY, NOTHING, PARTS_TIMED = NOTHING };

static const char *const part_names[PARTS_TIMED] = {"headers", "body"};

struct watched {
    struct watched *prev, *next;
    struct request_deadlines *owner;
    int fd;
    enum part waiting;  /* for this part of its request */
    int64_t started_ms; /* since then */
};

struct request_deadlines {
    pthread_mutex_t lock;
    pthread_cond_t wake; /* stopping */
    bool stopping;
    int64_t limit_ms[PARTS_TIMED];
    struct watched *first;
    pthread_t thread;
};

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Shuts down the sockets past their deadline; called with the lock held. */
static void cut_late(struct request_deadlines *d)
{
    int64_t now = now_ms();
    for (struct watched *w = d->first; w; w = w->next) {
        if (w->waiting == NOTHING || now - w->started_ms <= d->limit_ms[w->waiting])
            continue;
        shutdown(w->fd, SHUT_RDWR);
        fprintf(stderr, "http: closed a connection whose %s took over %lld s\n",
                part_names[w->waiting], (long long)(d->limit_ms[w->waiting] / 1000));
        w->waiting = NOTHING; /* once is enough */
    }
}

static void *watch(void *arg)
{
    struct request_deadlines *d = arg;
    pthread_mutex_lock(&d->lock);
    while (!d->stopping) {
        cut_late(d);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += WATCH_TICK_MS * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&d->wake, &d->lock, &until);
    }
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

struct request_deadlines *request_deadlines_start(int headers_s, int body_s)
{
    struct request_deadlines *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    pthread_mutex_init(&d->lock, NULL);
    pthread_cond_init(&d->wake, NULL);
    d->limit_ms[HEADERS] = (int64_t)headers_s * 1000;
    d->limit_ms[BODY] = (int64_t)body_s * 1000;
    if (pthread_create(&d->thread, NULL, watch, d) != 0) {
        free(d);
        return NULL;
    }
    return d;
}

void request_deadlines_stop(struct request_deadlines *d)
{
    if (!d)
        return;
    pthread_mutex_lock(&d->lock);
    d->stopping = true;
    pthread_cond_signal(&d->wake);
    pthread_mutex_unlock(&d->lock);
    pthread_join(d->thread, NULL);
    pthread_cond_destroy(&d->wake);
    pthread_mutex_destroy(&d->lock);
    free(d);
}

static void opened(struct request_deadlines *d, struct MHD_Connection *c, void **socket_context)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    struct watched *w = info ? calloc(1, sizeof *w) : NULL;
    *socket_context = w;
    if (!w)
        return; /* not watched: the idle timeout still applies */
    w->owner = d;
    w->fd = info->connect_fd;
    w->waiting = HEADERS;
    w->started_ms = now_ms();
    pthread_mutex_lock(&d->lock);
    w->next = d->first;
    if (d->first)
        d->first->prev = w;
    d->first = w;
    pthread_mutex_unlock(&d->lock);
}

static void closed(struct request_deadlines *d, struct watched *w)
{
    pthread_mutex_lock(&d->lock);
    if (w->prev)
        w->prev->next = w->next;
    else
        d->first = w->next;
    if (w->next)
        w->next->prev = w->prev;
    pthread_mutex_unlock(&d->lock);
    free(w);
}

void request_deadlines_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                              enum MHD_ConnectionNotificationCode code)
{
    if (code == MHD_CONNECTION_NOTIFY_STARTED)
        opened(cls, c, socket_context);
    else if (*socket_context) {
        closed(cls, *socket_context);
        *socket_context = NULL;
    }
}

/* Sets what the connection's request waits for, from now. */
static void mark(struct MHD_Connection *c, enum part waiting)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct watched *w = info ? info->socket_context : NULL;
    if (!w)
        return;
    pthread_mutex_lock(&w->owner->lock);
    w->waiting = waiting;
    w->started_ms = now_ms();
    pthread_mutex_unlock(&w->owner->lock);
}

void request_deadlines_headers_done(struct MHD_Connection *c)
{
    mark(c, BODY);
}

void request_deadlines_answered(struct MHD_Connection *c)
{
    mark(c, NOTHING);
}

void request_deadlines_next(struct MHD_Connection *c)
{
    mark(c, HEADERS);
}
