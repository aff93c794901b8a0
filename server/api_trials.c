/*
 * Trials ("Try at small n"): a student's kernel graded at the exercise's
 * correctness sizes, up to the largest, without being recorded — not among
 * their submissions, on no scoreboard, gradebook, export or certificate.
 * A trial goes through the submissions' queue, fairly between users, and
 * is graded by the same workers in the same sandbox (never in the HTTP
 * thread), with no assessment run and no time judged.
 *
 * POST /api/v1/trials {exercise, source, language?} -> 202 {id, status,
 * queue_position, url, events_url}; GET /api/v1/trials/{id} and its
 * /events (SSE, the submissions' events), for its owner only (anyone
 * else: 404). A student's trial waits for the exercise's opening as a
 * submission does (403 not_open; instructors and admins may try before).
 * Limits: one trial waiting or running per user, and
 * SERVICE_TRIALS_PER_MINUTE a minute, beyond each 429 with Retry-After; a
 * full queue 503. A trial is deleted an hour after it finished
 * (DB_TRIAL_KEEP_MS), not when first read: a reload or a second tab still
 * shows it, and a page that reads it after its "done" event never races
 * the deletion.
 */
#include "api.h"
#include "events.h"
#include "rate_limit.h"
#include "submission_body.h"

#include <stdio.h>

#define RETRY_TRIAL_RUNNING_S 10 /* a trial at the correctness sizes takes seconds */

static bool under_rate(struct http_request *req, struct http_response *res)
{
    char key[64];
    int wait = 0;
    snprintf(key, sizeof key, "trial:%lld", (long long)req->user.id);
    if (rate_allow(req->service->limiters.submissions, key, SERVICE_TRIALS_PER_MINUTE, 60, &wait))
        return true;
    http_retry_after(res, wait);
    http_error(res, 429, "rate_limited",
               "more than %d trials a minute: wait %d s, or submit your kernel to have it graded",
               SERVICE_TRIALS_PER_MINUTE, wait);
    return false;
}

static void accepted(struct http_response *res, struct db *db, int64_t id)
{
    char url[64], events[80];
    snprintf(url, sizeof url, "/api/v1/trials/%lld", (long long)id);
    snprintf(events, sizeof events, "%s/events", url);
    json_t *trial = db_trial_json(db, id);
    http_header(res, "Location", url);
    http_json(res, 202,
              json_pack("{s:I, s:O, s:O, s:s, s:s}", "id", (json_int_t)id, "status",
                        json_object_get(trial, "status"), "queue_position",
                        json_object_get(trial, "queue_position"), "url", url, "events_url",
                        events));
    json_decref(trial);
}

static void answer(struct http_request *req, struct http_response *res, struct db *db,
                   enum db_enqueue e, int64_t id)
{
    if (e == DB_ENQUEUED) {
        accepted(res, db, id);
        service_wake_workers(req->service);
    } else if (e == DB_QUEUE_FULL) {
        api_queue_full(res);
    } else if (e == DB_USER_QUEUE_FULL) {
        http_retry_after(res, RETRY_TRIAL_RUNNING_S);
        http_error(res, 429, "trial_waiting",
                   "you have a trial waiting or running: one at a time; its result comes in "
                   "seconds");
    } else if (!res->body) { /* not answered already (429, not_open) */
        http_error(res, 500, "internal", "the trial could not be stored: %s", db_error(db));
    }
}

void api_trial_create(struct http_request *req, struct http_response *res)
{
    struct submission_body b = {0};
    json_t *body = submission_body(req, res, &b);
    struct db *db = body ? http_db(req, res) : NULL;
    if (!db) {
        json_decref(body);
        return;
    }
    int64_t id = 0;
    enum db_enqueue e = DB_ENQUEUE_FAILED;
    const struct service_config *c = &req->service->config;
    struct db_queue_limits limits = {.total = c->queue_max};
    if (api_exercise_open_to(req, res, db, b.exercise) && under_rate(req, res)) {
        struct db_new_submission n = {.user_id = req->user.id,
                                      .exercise = b.exercise,
                                      .language = b.language,
                                      .source = b.source,
                                      .size = b.size};
        e = db_trial_add(db, &n, &limits, &id);
    }
    answer(req, res, db, e, id);
    json_decref(body);
}

/* The trial of the route, when it is the caller's (an instructor's too:
 * a trial is its owner's alone); else 404. */
static struct db *owned(struct http_request *req, struct http_response *res)
{
    struct db *db = http_db(req, res);
    int64_t owner = 0;
    if (db && (db_trial_owner(db, req->path_id, &owner) != DB_OK || owner != req->user.id)) {
        http_error(res, 404, "not_found",
                   "no trial %lld of yours (a trial is deleted an hour after it finished)",
                   (long long)req->path_id);
        return NULL;
    }
    return db;
}

void api_trial(struct http_request *req, struct http_response *res)
{
    struct db *db = owned(req, res);
    json_t *trial = db ? db_trial_json(db, req->path_id) : NULL;
    if (trial)
        http_json(res, 200, trial);
    else if (db)
        http_error(res, 500, "internal", "the trial could not be read");
}

void api_trial_events(struct http_request *req, struct http_response *res)
{
    if (owned(req, res))
        events_stream(req->service->events, req, res, EVENTS_TRIAL, req->path_id);
}
