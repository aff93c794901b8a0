/*
 * Submissions: POST one (in CUDA C or, with "language": "numba", in Numba
 * CUDA Python, when its exercise takes that language), committed to the
 * queue before 202 is answered. The same Idempotency-Key with the same
 * request gives the same submission back, not counted by the rate limit
 * again; with another exercise, language or source it is 422
 * idempotency_mismatch. A full queue is 503, a user over the rate limit or
 * with too many submissions waiting 429, each with Retry-After; a user
 * whose sources and results would pass their storage budget 413
 * storage_full. Also: read one's state and result, list one's own (an
 * instructor: anyone's, by ?user=), and follow one's grading as events.
 * Students see only their own submissions; instructors all. Before an
 * exercise opens only instructors may submit to it (403 not_open, the
 * rule trials keep too: api_exercise_open_to); after its deadline a
 * submission is taken and marked late (the store decides when read).
 */
#include "api.h"
#include "course_dates.h"
#include "events.h"
#include "grader/grader.h"
#include "rate_limit.h"
#include "submission_body.h"

#include <stdio.h>
#include <string.h>

#define IDEMPOTENCY_KEY_MAX 128
#define LIST_LIMIT          200
#define USER_KEY_SIZE       32 /* "submit:" and a user id, the rate limiter's key */
#define RETRY_USER_QUEUE_S  30 /* a user's own waiting submissions: about one job's time */

/* The rate limiter's key of the caller's submissions. */
static void rate_key(const struct http_request *req, char key[USER_KEY_SIZE])
{
    snprintf(key, USER_KEY_SIZE, "submit:%lld", (long long)req->user.id);
}

static bool under_rate(struct http_request *req, struct http_response *res)
{
    char key[USER_KEY_SIZE];
    int wait = 0;
    rate_key(req, key);
    if (rate_allow(req->service->limiters.submissions, key, req->service->config.rate_per_minute,
                   60, &wait))
        return true;
    http_retry_after(res, wait);
    http_error(res, 429, "rate_limited", "more than %d submissions a minute: wait %d s",
               req->service->config.rate_per_minute, wait);
    return false;
}

static void accepted(struct http_response *res, struct db *db, int64_t id)
{
    char url[64];
    snprintf(url, sizeof url, "/api/v1/submissions/%lld", (long long)id);
    json_t *sub = db_submission_json(db, id, false);
    http_header(res, "Location", url);
    http_json(res, 202,
              json_pack("{s:I, s:O, s:s, s:O}", "id", (json_int_t)id, "status",
                        json_object_get(sub, "status"), "url", url, "queue_position",
                        json_object_get(sub, "queue_position")));
    json_decref(sub);
}

void api_queue_full(struct http_response *res)
{
    http_retry_after(res, API_RETRY_FULL_QUEUE_S);
    http_error(res, 503, "queue_full", "the queue is full: try again in %d s",
               API_RETRY_FULL_QUEUE_S);
}

/* 413 storage_full: what the caller's submissions hold, the budget, and
 * what to do. */
static void storage_full(struct http_request *req, struct http_response *res, struct db *db)
{
    double mb = SERVICE_MB;
    http_error(res, 413, "storage_full",
               "your submissions hold %.3g MB of sources and results, and this one would take "
               "them past the %.3g MB kept per user: nothing more of yours can be stored; ask "
               "an instructor to raise storage_mb_per_user in the server's config.json",
               (double)db_user_storage(db, req->user.id) / mb,
               (double)req->service->config.storage_per_user / mb);
}

/* The answer to an enqueue: 202, or why the queue did not take it (after
 * a refusal already answered, nothing). */
static void answer_enqueue(struct http_request *req, struct http_response *res, struct db *db,
                           enum db_enqueue e, int64_t id)
{
    if (e == DB_ENQUEUED || e == DB_DUPLICATE) {
        accepted(res, db, id);
        if (e == DB_ENQUEUED)
            service_wake_workers(req->service);
    } else if (e == DB_KEY_MISMATCH) {
        http_error(res, 422, "idempotency_mismatch",
                   "the Idempotency-Key '%.64s' was used for your submission %lld, of another "
                   "exercise, language or source: a retry sends the same request again; a new "
                   "submission needs a new key",
                   http_header_of(req, "Idempotency-Key"), (long long)id);
    } else if (e == DB_STORAGE_FULL) {
        storage_full(req, res, db);
    } else if (e == DB_QUEUE_FULL) {
        api_queue_full(res);
    } else if (e == DB_USER_QUEUE_FULL) {
        http_retry_after(res, RETRY_USER_QUEUE_S);
        http_error(res, 429, "too_many_waiting",
                   "you have %lld submissions waiting; wait for one to finish",
                   (long long)req->service->config.queue_max_per_user);
    } else if (db && !res->body) { /* not answered already (429, not_open) */
        http_error(res, 500, "internal", "the submission could not be stored: %s", db_error(db));
    }
}

bool api_exercise_open_to(struct http_request *req, struct http_response *res, struct db *db,
                          const char *exercise)
{
    int64_t opens, deadline;
    char when[ISO8601_TEXT_MAX];
    if (req->user.role != DB_ROLE_STUDENT)
        return true;
    course_dates_sync(req->service, db);
    if (db_exercise_dates(db, exercise, &opens, &deadline) != DB_OK || opens == DB_NO_TIME ||
        db_now_ms() >= opens)
        return true;
    iso8601_format(opens, when);
    http_error(res, 403, "not_open",
               "the exercise '%.64s' opens at %s (UTC): submissions and trials are taken from "
               "then on",
               exercise, when);
    return false;
}

/* A submission that is no retry: queued when the exercise is open to the
 * caller and the caller under the rate limit, which counts it. A retry
 * that raced its first request (the same key, at once) is given its
 * count back. */
static enum db_enqueue enqueue_counted(struct http_request *req, struct http_response *res,
                                       struct db *db, const struct db_new_submission *n,
                                       int64_t *id)
{
    const struct service_config *c = &req->service->config;
    struct db_queue_limits limits = {.total = c->queue_max,
                                     .per_user = c->queue_max_per_user,
                                     .storage_per_user = c->storage_per_user};
    char key[USER_KEY_SIZE];
    if (!api_exercise_open_to(req, res, db, n->exercise) || !under_rate(req, res))
        return DB_ENQUEUE_FAILED;
    enum db_enqueue e = db_submission_add(db, n, &limits, id);
    if (e == DB_DUPLICATE || e == DB_KEY_MISMATCH) {
        rate_key(req, key);
        rate_refund(req->service->limiters.submissions, key);
    }
    return e;
}

void api_submit(struct http_request *req, struct http_response *res)
{
    struct submission_body b = {0};
    const char *key = http_header_of(req, "Idempotency-Key");
    if (key && (!key[0] || strlen(key) > IDEMPOTENCY_KEY_MAX)) {
        http_error(res, 400, "bad_idempotency_key", "an Idempotency-Key has 1 to %d characters",
                   IDEMPOTENCY_KEY_MAX);
        return;
    }
    json_t *body = submission_body(req, res, &b);
    struct db *db = service_db(req->service);
    if (!body)
        return;
    struct db_new_submission n = {.user_id = req->user.id,
                                  .exercise = b.exercise,
                                  .language = b.language,
                                  .source = b.source,
                                  .size = b.size,
                                  .idempotency_key = key};
    enum db_enqueue e = DB_ENQUEUE_FAILED;
    int64_t id = 0;
    if (!db)
        http_error(res, 503, "unavailable", "the database cannot be reached");
    else if ((e = key ? db_submission_replay(db, &n, &id) : DB_ENQUEUED) == DB_ENQUEUED)
        e = enqueue_counted(req, res, db, &n, &id); /* a retry is answered again, not counted */
    answer_enqueue(req, res, db, e, id);
    json_decref(body);
}

/* Whose submissions a list shows: the caller's, or with ?user=NAME (an
 * instructor's right; a student may name only themself) another's. False
 * after answering. */
static bool list_owner(struct http_request *req, struct http_response *res, struct db *db,
                       int64_t *owner)
{
    const char *name = http_query(req, "user");
    *owner = req->user.id;
    if (!name || strcmp(name, "me") == 0 || strcmp(name, req->user.name) == 0)
        return true;
    struct db_user u;
    if (req->user.role == DB_ROLE_STUDENT) {
        http_error(res, 403, "forbidden", "students see only their own submissions");
        return false;
    }
    if (db_user_by_name(db, name, &u, NULL, 0) != DB_OK) {
        http_error(res, 404, "not_found", "no user '%.64s'", name);
        return false;
    }
    *owner = u.id;
    return true;
}

/* GET /api/v1/submissions[?user=NAME][&exercise=ID]: newest first. */
void api_submissions_list(struct http_request *req, struct http_response *res)
{
    struct db *db = service_db(req->service);
    int64_t owner;
    if (!db)
        http_error(res, 503, "unavailable", "the database cannot be reached");
    else if (list_owner(req, res, db, &owner))
        http_json(res, 200,
                  json_pack("{s:o}", "submissions",
                            db_submissions_of(db, owner, http_query(req, "exercise"), LIST_LIMIT)));
}

/* The submission of the route, when the caller may see it; else 404. */
static bool visible(struct http_request *req, struct http_response *res, struct db **db)
{
    int64_t owner = 0;
    *db = service_db(req->service);
    if (!*db) {
        http_error(res, 503, "unavailable", "the database cannot be reached");
        return false;
    }
    if (db_submission_owner(*db, req->path_id, &owner) != DB_OK ||
        (owner != req->user.id && req->user.role == DB_ROLE_STUDENT)) {
        http_error(res, 404, "not_found", "no submission %lld of yours", (long long)req->path_id);
        return false;
    }
    return true;
}

void api_submission(struct http_request *req, struct http_response *res)
{
    struct db *db;
    if (!visible(req, res, &db))
        return;
    json_t *sub = db_submission_json(db, req->path_id, true);
    if (sub)
        http_json(res, 200, sub);
    else
        http_error(res, 500, "internal", "the submission could not be read");
}

void api_submission_events(struct http_request *req, struct http_response *res)
{
    struct db *db;
    if (!visible(req, res, &db))
        return;
    events_stream(req->service->events, req, res, EVENTS_SUBMISSION, req->path_id);
}
