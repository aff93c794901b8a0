/*
 * Regrading, an instructor's call after a reference or a test is fixed:
 * one submission, or every graded submission of an exercise. A regrade
 * puts the submission back in the queue; its old results are kept and the
 * new one is added. Before regrading a whole exercise, the pages ask how
 * many submissions it would queue (GET), to say so in the confirmation.
 */
#include "api.h"
#include "exercise_cache.h"

#include <stdio.h>

/* Every graded submission of `exercise` back in the queue: 202 {exercise,
 * requeued, queue_length}, or 409 when none is graded. */
static void regrade_exercise(struct http_request *req, struct http_response *res, struct db *db,
                             const char *exercise)
{
    char target[96], detail[64];
    int64_t n = db_submissions_requeue_exercise(db, exercise);
    if (n < 0) {
        http_error(res, 500, "internal", "the submissions could not be queued again");
        return;
    }
    if (n == 0) {
        http_error(res, 409, "nothing_to_regrade",
                   "no graded submission of %s to regrade: the queued and running ones are "
                   "graded with the exercise as it is now",
                   exercise);
        return;
    }
    snprintf(target, sizeof target, "exercise %.64s", exercise);
    snprintf(detail, sizeof detail, "%lld submissions", (long long)n);
    db_audit(db, req->user.id, "regrade", target, detail);
    service_wake_workers(req->service);
    http_json(res, 202,
              json_pack("{s:s, s:I, s:I}", "exercise", exercise, "requeued", (json_int_t)n,
                        "queue_length", (json_int_t)db_queue_length(db)));
}

/* One graded submission back in the queue: 202 {requeued: 1, queue_position}. */
static void regrade_one(struct http_request *req, struct http_response *res, struct db *db)
{
    char target[128];
    if (!api_submission_target(db, req->path_id, target, sizeof target)) {
        http_error(res, 404, "not_found", "no submission %lld", (long long)req->path_id);
    } else if (db_submission_requeue(db, req->path_id) != DB_OK) {
        http_error(res, 409, "not_done",
                   "nothing to regrade: the submission is still queued or running");
    } else {
        db_audit(db, req->user.id, "regrade", target, NULL);
        service_wake_workers(req->service);
        http_json(res, 202,
                  json_pack("{s:I, s:I}", "requeued", (json_int_t)1, "queue_position",
                            (json_int_t)db_queue_position(db, req->path_id)));
    }
}

/* The older form of the exercise route: every graded submission of the
 * exercise of submission {id}. */
static void regrade_exercise_of(struct http_request *req, struct http_response *res, struct db *db)
{
    json_t *sub = db_submission_json(db, req->path_id, false);
    if (!sub)
        http_error(res, 404, "not_found", "no submission %lld", (long long)req->path_id);
    else
        regrade_exercise(req, res, db, json_string_value(json_object_get(sub, "exercise")));
    json_decref(sub);
}

/* POST /api/v1/submissions/{id}/regrade [{"all_of_exercise": true}] */
void api_submission_regrade(struct http_request *req, struct http_response *res)
{
    json_t *body = api_optional_body(req, res);
    struct db *db = body ? http_db(req, res) : NULL;
    if (db && json_is_true(json_object_get(body, "all_of_exercise")))
        regrade_exercise_of(req, res, db);
    else if (db)
        regrade_one(req, res, db);
    json_decref(body);
}

/* The route's exercise, when the catalogue has it; false after a 404. */
static bool known_exercise(struct http_request *req, struct http_response *res)
{
    json_t *e = exercise_cache_find(req->service->config.exercises, req->path_name);
    bool found = e != NULL;
    if (!found)
        http_error(res, 404, "not_found", "no exercise '%s'", req->path_name);
    json_decref(e);
    return found;
}

/* GET /api/v1/exercises/{name}/regrade: what a regrade would do,
 * {exercise, regradable, queue_length}. */
void api_exercise_regrade_preview(struct http_request *req, struct http_response *res)
{
    struct db *db = http_db(req, res);
    if (db && known_exercise(req, res))
        http_json(res, 200,
                  json_pack("{s:s, s:I, s:I}", "exercise", req->path_name, "regradable",
                            (json_int_t)db_submissions_regradable(db, req->path_name),
                            "queue_length", (json_int_t)db_queue_length(db)));
}

/* POST /api/v1/exercises/{name}/regrade: every graded submission of it. */
void api_exercise_regrade(struct http_request *req, struct http_response *res)
{
    struct db *db = http_db(req, res);
    if (db && known_exercise(req, res))
        regrade_exercise(req, res, db, req->path_name);
}
