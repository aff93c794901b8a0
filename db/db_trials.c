/*
 * Trials (db.h, migration 0008): kernels graded at an exercise's
 * correctness sizes without being recorded. A trial waits in the
 * submissions' queue (the claim and the positions read queue_jobs, in
 * db_submissions.c), at most one of a user's waiting or running at once,
 * and lives until DB_TRIAL_KEEP_MS after it finished.
 */
#include "db_internal.h"

#include <string.h>

/* Deletes the trials finished more than DB_TRIAL_KEEP_MS ago. */
static bool expire(struct db *db)
{
    sqlite3_stmt *s =
        db_statement(db, "DELETE FROM trials WHERE status = 'done' AND finished_at < ?");
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, db_now_ms() - DB_TRIAL_KEEP_MS);
    return db_run(db, s);
}

/* Whether the user has a trial waiting or running. */
static bool has_active(struct db *db, int64_t user_id)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT count(*) FROM trials WHERE user_id = ? AND status IN ('queued', 'running')");
    if (!s)
        return true;
    sqlite3_bind_int64(s, 1, user_id);
    return db_scalar(s, 1) > 0;
}

enum db_enqueue db_trial_add(struct db *db, const struct db_new_submission *n,
                             const struct db_queue_limits *limits, int64_t *id)
{
    if (!db_begin(db))
        return DB_ENQUEUE_FAILED;
    enum db_enqueue outcome = DB_ENQUEUED;
    if (!expire(db))
        outcome = DB_ENQUEUE_FAILED;
    else if (limits->total > 0 && db_queue_length(db) >= limits->total)
        outcome = DB_QUEUE_FULL;
    else if (has_active(db, n->user_id))
        outcome = DB_USER_QUEUE_FULL;
    else if (!db_job_insert(db, true, n, id))
        outcome = DB_ENQUEUE_FAILED;
    if (outcome == DB_ENQUEUE_FAILED || !db_commit(db)) {
        db_rollback(db);
        return DB_ENQUEUE_FAILED;
    }
    return outcome;
}

/* Running -> done with a result; the number of trials changed. */
static int64_t finish(struct db *db, int64_t id, int attempts, const char *verdict,
                      const char *result_json)
{
    sqlite3_stmt *s = db_statement(
        db, "UPDATE trials SET status = 'done', finished_at = ?1, verdict = ?2, result_json = ?3 "
            "WHERE status = 'running' AND (?4 = 0 OR id = ?4) AND attempts >= ?5");
    if (!s)
        return -1;
    sqlite3_bind_int64(s, 1, db_now_ms());
    sqlite3_bind_text(s, 2, verdict, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, result_json, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 4, id);
    sqlite3_bind_int(s, 5, attempts);
    return db_run(db, s) ? sqlite3_changes64(db->sql) : -1;
}

enum db_outcome db_trial_finish(struct db *db, int64_t id, const char *verdict,
                                const char *result_json)
{
    int64_t n = finish(db, id, 0, verdict, result_json);
    return n > 0 ? DB_OK : n == 0 ? DB_NOT_FOUND : DB_FAILED;
}

enum db_outcome db_trial_retry(struct db *db, int64_t id)
{
    int64_t n = db_job_back_to_queue(db, true, id);
    return n > 0 ? DB_OK : n == 0 ? DB_NOT_FOUND : DB_FAILED;
}

int64_t db_trials_recover(struct db *db, int attempts, const char *result_json)
{
    if (finish(db, 0, attempts, "internal_error", result_json) < 0 || !expire(db))
        return -1;
    return db_job_back_to_queue(db, true, 0);
}

enum db_outcome db_trial_owner(struct db *db, int64_t id, int64_t *user_id)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT user_id FROM trials WHERE id = ? AND (status != 'done' OR finished_at >= ?)");
    if (!s)
        return DB_FAILED;
    sqlite3_bind_int64(s, 1, id);
    sqlite3_bind_int64(s, 2, db_now_ms() - DB_TRIAL_KEEP_MS);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *user_id = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    return rc == SQLITE_ROW ? DB_OK : rc == SQLITE_DONE ? DB_NOT_FOUND : DB_FAILED;
}

json_t *db_trial_json(struct db *db, int64_t id)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT id, exercise, language, status, created_at, started_at, finished_at, "
            "finished_at + ?2, verdict, result_json FROM trials WHERE id = ?1 AND (status != "
            "'done' OR finished_at >= ?3)");
    if (!s)
        return NULL;
    sqlite3_bind_int64(s, 1, id);
    sqlite3_bind_int64(s, 2, DB_TRIAL_KEEP_MS);
    sqlite3_bind_int64(s, 3, db_now_ms() - DB_TRIAL_KEEP_MS);
    json_t *j = NULL;
    if (sqlite3_step(s) == SQLITE_ROW)
        j = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "id",
                      db_column_integer(s, 0), "exercise", db_column_text(s, 1), "language",
                      db_column_text(s, 2), "status", db_column_text(s, 3), "created_at",
                      db_column_time(s, 4), "started_at", db_column_time(s, 5), "finished_at",
                      db_column_time(s, 6), "expires_at", db_column_time(s, 7), "verdict",
                      db_column_text(s, 8), "result", db_column_json(s, 9));
    sqlite3_reset(s);
    if (j) {
        int64_t position = db_job_queue_position(db, true, id);
        json_object_set_new(j, "queue_position",
                            position > 0 ? json_integer(position) : json_null());
    }
    return j;
}
