/*
 * Internal to server/: the grading service's state, shared by the HTTP
 * handlers, the workers and the event streams.
 */
#ifndef KGRADE_SERVER_SERVICE_H
#define KGRADE_SERVER_SERVICE_H

#include "db/db.h"
#include "grading_job.h"
#include "sandbox/sandbox.h"
#include "signing_key.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define SERVICE_BODY_MAX          (256 * 1024)
#define SERVICE_QUEUE_MAX         1000 /* queued submissions; beyond: 503 */
#define SERVICE_RATE_PER_MINUTE   30   /* submissions per user; beyond: 429 */
#define SERVICE_TRIALS_PER_MINUTE 6    /* trials per user (one at a time); beyond: 429 */
#define SERVICE_SESSION_SECONDS   (12 * 3600)
/* What one user may hold: a login past SERVICE_SESSIONS_PER_USER ends the
 * user's oldest session; a token past SERVICE_TOKENS_PER_USER live ones is
 * refused (409) until one is revoked. */
#define SERVICE_SESSIONS_PER_USER 20
#define SERVICE_TOKENS_PER_USER   20
#define SERVICE_WORKERS_MAX       64
#define SERVICE_CLIENT_TIMEOUT    30 /* seconds */

/* The graders are shared: what one user may have waiting, and how often a
 * grading interrupted by a death (its worker's, the server's) is tried. */
#define SERVICE_QUEUE_MAX_PER_USER 10 /* queued submissions of one user; beyond: 429 */
#define SERVICE_GRADING_ATTEMPTS   2  /* the second interruption: internal_error */

/* The disk is shared too. Each stored result (a submission's or a trial's
 * grade JSON) is compacted to SERVICE_RESULT_STORED_MAX bytes
 * (result_compact.h says what it keeps); a user's sources and results
 * together may take SERVICE_STORAGE_MB_PER_USER (config.json
 * "storage_mb_per_user"), beyond which a submission is 413 storage_full.
 * At 64 KB of source and a full result each, that is some 3,000
 * submissions; at a student's usual few KB, tens of thousands. */
#define SERVICE_RESULT_STORED_MAX   (16 * 1024)
#define SERVICE_STORAGE_MB_PER_USER 256
#define SERVICE_MB                  (1024 * 1024) /* bytes, as config.json's *_mb keys count */

struct service_config {
    const char *bind;
    int port;
    const char *data;       /* the data folder */
    const char *db_path;    /* the database */
    const char *exercises;  /* the exercise folder */
    const char *web;        /* the pages: index.html, static/ */
    const char *web_bundle; /* the editor bundle the Makefile builds (may be missing) */
    int workers;
    int64_t queue_max;
    int64_t queue_max_per_user;
    int rate_per_minute;
    int64_t storage_per_user; /* bytes of sources and results; 0: no limit */
    struct grading_limits limits;
    int http_threads;
    int client_timeout_seconds; /* an idle or slow connection is closed after this */
};

struct event_hub;
struct metrics;
struct rate_limiter;

/* The rate limiters (rate_limit.h), apart so that keys anyone can make up
 * never crowd out the keys of accounts: a full limiter pushes out its
 * oldest key with events left. */
struct service_limiters {
    struct rate_limiter *anonymous;   /* login names and client addresses: anyone adds keys */
    struct rate_limiter *accounts;    /* per account, added only by its holder: logins, known
                                       * browsers' failures */
    struct rate_limiter *submissions; /* per user */
};
struct reference_cache;
struct response_cache;

struct service {
    struct service_config config;
    struct sandbox_protections protections;
    struct event_hub *events;
    struct metrics *metrics;
    struct service_limiters limiters;
    struct response_cache *answers;     /* rendered scoreboards */
    struct reference_cache *references; /* the exercises' compiled references */
    struct signing_key signing_key;     /* signs certificates (<data>/signing.key) */
    pthread_mutex_t queue_lock;
    pthread_cond_t queue_ready; /* a submission was queued, or stopping */
    atomic_bool stopping;
    atomic_int busy_workers;
    pthread_t workers[SERVICE_WORKERS_MAX];
    int n_workers;
};

/* The calling thread's own connection to the database (opened on first
 * use, closed when the thread ends); NULL when it cannot be opened. */
struct db *service_db(struct service *service);
/* Closes the calling thread's connection now: the main thread's, which no
 * thread's end closes. */
void service_db_close(void);

/* Wakes a worker: a submission was queued. */
void service_wake_workers(struct service *service);

/* Starts and stops the worker pool (workers.c). */
bool workers_start(struct service *service, char *error, size_t error_size);
void workers_stop(struct service *service);
/* Before the workers start: the submissions a crash left running go back
 * to the queue, but one taken SERVICE_GRADING_ATTEMPTS times is finished as
 * internal_error (it may be what kills the server). The number requeued. */
int64_t workers_recover(struct service *service, struct db *db);

#endif
