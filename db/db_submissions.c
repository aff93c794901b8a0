/*
 * Submissions and their results: the queue (committed before it is
 * acknowledged, capped in all and per user, taken fairly between users,
 * requeued after a crash with its attempts counted), the results (a
 * regrade adds one, the newest is the submission's), and the JSON the API
 * shows. The fair order is one SQL view, queue_users (migration 0004),
 * read by both the claim and the queue positions; a trial (db_trials.c)
 * waits in the same queue by the same rule (migration 0008).
 */
#include "db_internal.h"

#include <stdlib.h>
#include <string.h>

enum db_enqueue db_submission_replay(struct db *db, const struct db_new_submission *n, int64_t *id)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT id, exercise = ?3 AND language = ?4 AND CAST(source AS BLOB) = ?5 FROM "
            "submissions WHERE user_id = ?1 AND idempotency_key = ?2");
    if (!s)
        return DB_ENQUEUE_FAILED;
    sqlite3_bind_int64(s, 1, n->user_id);
    sqlite3_bind_text(s, 2, n->idempotency_key, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, n->exercise, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 4, n->language ? n->language : "cuda", -1, SQLITE_STATIC);
    sqlite3_bind_blob64(s, 5, n->source, n->size, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    enum db_enqueue outcome = rc == SQLITE_DONE ? DB_ENQUEUED : DB_ENQUEUE_FAILED;
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(s, 0);
        outcome = sqlite3_column_int(s, 1) ? DB_DUPLICATE : DB_KEY_MISMATCH;
    }
    sqlite3_reset(s);
    return outcome;
}

int64_t db_queue_length(struct db *db)
{
    return db_scalar(db_statement(db, "SELECT count(*) FROM queue_jobs WHERE status = 'queued'"),
                     0);
}

/* How many submissions of a user wait in the queue. */
static int64_t waiting_of(struct db *db, int64_t user_id)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT count(*) FROM submissions WHERE status = 'queued' AND user_id = ?");
    if (!s)
        return 0;
    sqlite3_bind_int64(s, 1, user_id);
    return db_scalar(s, 0);
}

bool db_job_insert(struct db *db, bool trial, const struct db_new_submission *n, int64_t *id)
{
    sqlite3_stmt *s =
        trial ? db_statement(db, "INSERT INTO trials (user_id, exercise, language, source, status, "
                                 "created_at, queued_at) VALUES (?1, ?2, ?3, ?4, 'queued', ?6, ?6)")
              : db_statement(db, "INSERT INTO submissions (user_id, exercise, language, source, "
                                 "status, idempotency_key, created_at, queued_at) VALUES (?1, ?2, "
                                 "?3, ?4, 'queued', ?5, ?6, ?6)");
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, n->user_id);
    sqlite3_bind_text(s, 2, n->exercise, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, n->language ? n->language : "cuda", -1, SQLITE_STATIC);
    sqlite3_bind_blob64(s, 4, n->source, n->size, SQLITE_STATIC);
    if (n->idempotency_key && !trial)
        sqlite3_bind_text(s, 5, n->idempotency_key, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 6, db_now_ms());
    if (!db_run(db, s))
        return false;
    *id = sqlite3_last_insert_rowid(db->sql);
    return true;
}

int64_t db_user_storage(struct db *db, int64_t user_id)
{
    sqlite3_stmt *s = db_statement(db, "SELECT bytes FROM user_storage WHERE user_id = ?");
    if (!s)
        return 0;
    sqlite3_bind_int64(s, 1, user_id);
    return db_scalar(s, 0);
}

/* Whether the queue has room for one more of n's user's submissions, and
 * the user's storage for its source: DB_ENQUEUED, else DB_QUEUE_FULL,
 * DB_USER_QUEUE_FULL or DB_STORAGE_FULL. */
static enum db_enqueue room_for(struct db *db, const struct db_new_submission *n,
                                const struct db_queue_limits *limits)
{
    if (limits->total > 0 && db_queue_length(db) >= limits->total)
        return DB_QUEUE_FULL;
    if (limits->per_user > 0 && waiting_of(db, n->user_id) >= limits->per_user)
        return DB_USER_QUEUE_FULL;
    if (limits->storage_per_user > 0 &&
        db_user_storage(db, n->user_id) + (int64_t)n->size > limits->storage_per_user)
        return DB_STORAGE_FULL;
    return DB_ENQUEUED;
}

enum db_enqueue db_submission_add(struct db *db, const struct db_new_submission *n,
                                  const struct db_queue_limits *limits, int64_t *id)
{
    if (!db_begin(db))
        return DB_ENQUEUE_FAILED;
    enum db_enqueue outcome = n->idempotency_key ? db_submission_replay(db, n, id) : DB_ENQUEUED;
    if (outcome == DB_ENQUEUED)
        outcome = room_for(db, n, limits);
    if (outcome == DB_ENQUEUED && !db_job_insert(db, false, n, id))
        outcome = DB_ENQUEUE_FAILED;
    if (outcome == DB_ENQUEUE_FAILED || !db_commit(db)) {
        db_rollback(db);
        return DB_ENQUEUE_FAILED;
    }
    return outcome;
}

/* The columns read_job reads, in order. */
#define JOB_COLUMNS "id, user_id, exercise, source, attempts, language"

static bool read_job(sqlite3_stmt *s, struct db_job *job)
{
    job->id = sqlite3_column_int64(s, 0);
    job->user_id = sqlite3_column_int64(s, 1);
    db_copy_text(s, 2, job->exercise, sizeof job->exercise);
    job->size = (size_t)sqlite3_column_bytes(s, 3);
    job->attempt = sqlite3_column_int(s, 4);
    db_copy_text(s, 5, job->language, sizeof job->language);
    job->source = malloc(job->size + 1);
    if (!job->source)
        return false;
    memcpy(job->source, sqlite3_column_blob(s, 3), job->size);
    job->source[job->size] = '\0';
    return true;
}

/* The job of the first row of `s` (a SELECT JOB_COLUMNS, bound; reset
 * after). */
static enum db_outcome first_job(sqlite3_stmt *s, struct db_job *job)
{
    memset(job, 0, sizeof *job);
    int rc = s ? sqlite3_step(s) : SQLITE_ERROR;
    enum db_outcome outcome = rc == SQLITE_DONE ? DB_NOT_FOUND : DB_FAILED;
    if (rc == SQLITE_ROW && read_job(s, job))
        outcome = DB_OK;
    if (s)
        sqlite3_reset(s);
    return outcome;
}

/* The job runs, by `worker`, one attempt more; its user was served by
 * this claim, the newest. */
static bool take(struct db *db, struct db_job *job, const char *worker)
{
    sqlite3_stmt *s =
        job->trial ? db_statement(db, "UPDATE trials SET status = 'running', started_at = ?, "
                                      "worker = ?, attempts = attempts + 1 WHERE id = ?")
                   : db_statement(db, "UPDATE submissions SET status = 'running', started_at = ?, "
                                      "worker = ?, attempts = attempts + 1 WHERE id = ?");
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, db_now_ms());
    sqlite3_bind_text(s, 2, worker, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, job->id);
    if (!db_run(db, s))
        return false;
    sqlite3_stmt *turn = db_statement(
        db, "INSERT INTO queue_turns (user_id, turn) VALUES (?, (SELECT coalesce(max(turn), 0) "
            "+ 1 FROM queue_turns)) ON CONFLICT (user_id) DO UPDATE SET turn = excluded.turn");
    if (!turn)
        return false;
    sqlite3_bind_int64(turn, 1, job->user_id);
    job->attempt++;
    return db_run(db, turn);
}

/* The next job by the fair rule: the oldest queued job, submission or
 * trial, of the user whose turn it is. */
static enum db_outcome next_job(struct db *db, struct db_job *job)
{
    sqlite3_stmt *next = db_statement(
        db, "SELECT kind = 'trial', id FROM queue_jobs WHERE status = 'queued' AND user_id = "
            "(SELECT user_id FROM queue_users WHERE turn = 1) ORDER BY queued_at, id LIMIT 1");
    int rc = next ? sqlite3_step(next) : SQLITE_ERROR;
    bool trial = rc == SQLITE_ROW && sqlite3_column_int(next, 0) != 0;
    int64_t id = rc == SQLITE_ROW ? sqlite3_column_int64(next, 1) : 0;
    if (next)
        sqlite3_reset(next);
    if (rc != SQLITE_ROW)
        return rc == SQLITE_DONE ? DB_NOT_FOUND : DB_FAILED;
    sqlite3_stmt *s =
        trial ? db_statement(db, "SELECT " JOB_COLUMNS " FROM trials WHERE id = ?")
              : db_statement(db, "SELECT " JOB_COLUMNS " FROM submissions WHERE id = ?");
    if (s)
        sqlite3_bind_int64(s, 1, id);
    enum db_outcome outcome = first_job(s, job);
    job->trial = trial;
    return outcome;
}

enum db_outcome db_submission_claim(struct db *db, const char *worker, struct db_job *job)
{
    memset(job, 0, sizeof *job);
    if (!db_begin(db))
        return DB_FAILED;
    enum db_outcome outcome = next_job(db, job);
    if (outcome == DB_OK && (!take(db, job, worker) || !db_commit(db)))
        outcome = DB_FAILED;
    if (outcome != DB_OK) {
        db_rollback(db);
        db_job_free(job);
    }
    return outcome;
}

void db_job_free(struct db_job *job)
{
    free(job->source);
    job->source = NULL;
}

static bool insert_result(struct db *db, int64_t id, const struct db_result *r)
{
    sqlite3_stmt *s = db_statement(
        db, "INSERT INTO results (submission_id, verdict, result_json, student_ms, ratio, "
            "assessment, exercise_version, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, id);
    sqlite3_bind_text(s, 2, r->verdict, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, r->result_json, -1, SQLITE_STATIC);
    if (r->student_ms >= 0)
        sqlite3_bind_double(s, 4, r->student_ms);
    if (r->ratio >= 0)
        sqlite3_bind_double(s, 5, r->ratio);
    sqlite3_bind_int(s, 6, r->assessment);
    sqlite3_bind_text(s, 7, r->exercise_version, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 8, db_now_ms());
    return db_run(db, s);
}

enum db_outcome db_submission_finish(struct db *db, int64_t id, const struct db_result *r)
{
    if (!db_begin(db))
        return DB_FAILED;
    bool ok = insert_result(db, id, r);
    int64_t result_id = sqlite3_last_insert_rowid(db->sql);
    sqlite3_stmt *s = ok ? db_statement(db, "UPDATE submissions SET status = 'done', "
                                            "finished_at = ?, result_id = ? WHERE id = ?")
                         : NULL;
    if (s) {
        sqlite3_bind_int64(s, 1, db_now_ms());
        sqlite3_bind_int64(s, 2, result_id);
        sqlite3_bind_int64(s, 3, id);
    }
    if (!s || !db_run(db, s) || sqlite3_changes(db->sql) == 0 || !db_commit(db)) {
        db_rollback(db);
        return DB_FAILED;
    }
    return DB_OK;
}

int64_t db_job_back_to_queue(struct db *db, bool trial, int64_t id)
{
    sqlite3_stmt *s =
        trial ? db_statement(db, "UPDATE trials SET status = 'queued', started_at = NULL, worker = "
                                 "NULL WHERE status = 'running' AND (?1 = 0 OR id = ?1)")
              : db_statement(db, "UPDATE submissions SET status = 'queued', started_at = NULL, "
                                 "worker = NULL WHERE status = 'running' AND (?1 = 0 OR id = ?1)");
    if (!s)
        return -1;
    sqlite3_bind_int64(s, 1, id);
    return db_run(db, s) ? sqlite3_changes64(db->sql) : -1;
}

static int64_t back_to_queue(struct db *db, int64_t id)
{
    return db_job_back_to_queue(db, false, id);
}

int64_t db_submissions_requeue_running(struct db *db)
{
    return back_to_queue(db, 0);
}

enum db_outcome db_submission_retry(struct db *db, int64_t id)
{
    int64_t n = back_to_queue(db, id);
    return n > 0 ? DB_OK : n == 0 ? DB_NOT_FOUND : DB_FAILED;
}

enum db_outcome db_submission_interrupted(struct db *db, int attempts, struct db_job *job)
{
    sqlite3_stmt *s = db_statement(db, "SELECT " JOB_COLUMNS " FROM submissions WHERE status = "
                                       "'running' AND attempts >= ? ORDER BY id LIMIT 1");
    if (s)
        sqlite3_bind_int(s, 1, attempts);
    return first_job(s, job);
}

enum db_outcome db_submission_requeue(struct db *db, int64_t id)
{
    sqlite3_stmt *s = db_statement(
        db, "UPDATE submissions SET status = 'queued', queued_at = ?, started_at = NULL, "
            "finished_at = NULL, worker = NULL, attempts = 0 WHERE id = ? AND status = 'done'");
    if (!s)
        return DB_FAILED;
    sqlite3_bind_int64(s, 1, db_now_ms());
    sqlite3_bind_int64(s, 2, id);
    if (!db_run(db, s))
        return DB_FAILED;
    return sqlite3_changes(db->sql) ? DB_OK : DB_NOT_FOUND;
}

int64_t db_submissions_regradable(struct db *db, const char *exercise)
{
    sqlite3_stmt *s =
        db_statement(db, "SELECT count(*) FROM submissions WHERE exercise = ? AND status = 'done'");
    if (s)
        sqlite3_bind_text(s, 1, exercise, -1, SQLITE_STATIC);
    return db_scalar(s, 0);
}

int64_t db_submissions_requeue_exercise(struct db *db, const char *exercise)
{
    sqlite3_stmt *s = db_statement(
        db, "UPDATE submissions SET status = 'queued', queued_at = ?, started_at = NULL, "
            "finished_at = NULL, worker = NULL, attempts = 0 WHERE exercise = ? AND "
            "status = 'done'");
    if (!s)
        return -1;
    sqlite3_bind_int64(s, 1, db_now_ms());
    sqlite3_bind_text(s, 2, exercise, -1, SQLITE_STATIC);
    return db_run(db, s) ? sqlite3_changes64(db->sql) : -1;
}

/* The claims go round by round, one submission of each waiting user per
 * round, the users in their turn's order. The submission that is its
 * user's k-th is taken in round k: after each user's first k-1 (or fewer:
 * all they have), and after the users whose turn comes before its user's
 * and who have a k-th. One pass over the queue (the view), as before. */
int64_t db_job_queue_position(struct db *db, bool trial, int64_t id)
{
    sqlite3_stmt *s = db_statement(
        db, "WITH me AS (SELECT u.turn, (SELECT count(*) FROM queue_jobs o WHERE o.status = "
            "'queued' AND o.user_id = s.user_id AND (o.queued_at < s.queued_at OR (o.queued_at "
            "= s.queued_at AND o.id <= s.id))) AS k FROM queue_jobs s JOIN queue_users u ON "
            "u.user_id = s.user_id WHERE s.kind = ?1 AND s.id = ?2 AND s.status = 'queued') "
            "SELECT sum(min(v.waiting, me.k - 1) + (v.turn <= me.turn AND v.waiting >= me.k)) "
            "FROM queue_users v, me");
    if (!s)
        return 0;
    sqlite3_bind_text(s, 1, trial ? "trial" : "submission", -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, id);
    return db_scalar(s, 0);
}

int64_t db_queue_position(struct db *db, int64_t id)
{
    return db_job_queue_position(db, false, id);
}

enum db_outcome db_submission_owner(struct db *db, int64_t id, int64_t *user_id)
{
    sqlite3_stmt *s = db_statement(db, "SELECT user_id FROM submissions WHERE id = ?");
    if (!s)
        return DB_FAILED;
    sqlite3_bind_int64(s, 1, id);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *user_id = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    return rc == SQLITE_ROW ? DB_OK : rc == SQLITE_DONE ? DB_NOT_FOUND : DB_FAILED;
}

enum db_outcome db_submission_hide(struct db *db, int64_t id, bool hidden, int64_t actor_id,
                                   const char *reason)
{
    sqlite3_stmt *s = db_statement(
        db, "UPDATE submissions SET hidden = ?1, hidden_reason = CASE WHEN ?1 THEN ?2 END, "
            "hidden_by = CASE WHEN ?1 THEN ?3 END, hidden_at = CASE WHEN ?1 THEN ?4 END "
            "WHERE id = ?5");
    if (!s)
        return DB_FAILED;
    sqlite3_bind_int(s, 1, hidden);
    if (reason)
        sqlite3_bind_text(s, 2, reason, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, actor_id);
    sqlite3_bind_int64(s, 4, db_now_ms());
    sqlite3_bind_int64(s, 5, id);
    if (!db_run(db, s))
        return DB_FAILED;
    return sqlite3_changes(db->sql) ? DB_OK : DB_NOT_FOUND;
}

/* --------------------------------------------------------------- JSON */

/* Every result of a submission, oldest first: [{verdict, created_at,
 * exercise_version}]. */
static json_t *history(struct db *db, int64_t id)
{
    sqlite3_stmt *s = db_statement(db, "SELECT verdict, created_at, exercise_version FROM "
                                       "results WHERE submission_id = ? ORDER BY id");
    json_t *list = json_array();
    if (s)
        sqlite3_bind_int64(s, 1, id);
    while (s && sqlite3_step(s) == SQLITE_ROW)
        json_array_append_new(list, json_pack("{s:o, s:o, s:o}", "verdict", db_column_text(s, 0),
                                              "created_at", db_column_time(s, 1),
                                              "exercise_version", db_column_text(s, 2)));
    if (s)
        sqlite3_reset(s);
    return list;
}

/* Why, by whom and when a submission is hidden (nulls when it is not, or
 * was hidden before reasons were kept), into `j`. */
static void add_hidden_details(struct db *db, int64_t id, json_t *j)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT s.hidden_reason, u.name, s.hidden_at FROM submissions s LEFT JOIN users u "
            "ON u.id = s.hidden_by WHERE s.id = ?");
    if (s)
        sqlite3_bind_int64(s, 1, id);
    bool found = s && sqlite3_step(s) == SQLITE_ROW;
    json_object_set_new(j, "hidden_reason", found ? db_column_text(s, 0) : json_null());
    json_object_set_new(j, "hidden_by", found ? db_column_text(s, 1) : json_null());
    json_object_set_new(j, "hidden_at", found ? db_column_time(s, 2) : json_null());
    if (s)
        sqlite3_reset(s);
}

/* "late" and "deadline" (its student's) of a submission, from the view
 * submission_lateness. */
static void add_lateness(struct db *db, json_t *j, int64_t id)
{
    sqlite3_stmt *s =
        db_statement(db, "SELECT late, deadline FROM submission_lateness WHERE submission_id = ?");
    bool row = false;
    if (s) {
        sqlite3_bind_int64(s, 1, id);
        row = sqlite3_step(s) == SQLITE_ROW;
    }
    json_object_set_new(j, "late", json_boolean(row && sqlite3_column_int(s, 0) != 0));
    json_object_set_new(j, "deadline", row ? db_column_time(s, 1) : json_null());
    if (s)
        sqlite3_reset(s);
}

json_t *db_submission_json(struct db *db, int64_t id, bool with_source)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT s.id, u.name, s.exercise, s.status, s.created_at, s.started_at, "
            "s.finished_at, r.verdict, r.result_json, s.hidden, s.source, s.language FROM "
            "submissions s JOIN users u ON u.id = s.user_id LEFT JOIN results r ON r.id = "
            "s.result_id WHERE s.id = ?");
    if (!s)
        return NULL;
    sqlite3_bind_int64(s, 1, id);
    json_t *j = NULL;
    if (sqlite3_step(s) == SQLITE_ROW) {
        j = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b}", "id",
                      db_column_integer(s, 0), "user", db_column_text(s, 1), "exercise",
                      db_column_text(s, 2), "language", db_column_text(s, 11), "status",
                      db_column_text(s, 3), "created_at", db_column_time(s, 4), "started_at",
                      db_column_time(s, 5), "finished_at", db_column_time(s, 6), "verdict",
                      db_column_text(s, 7), "result", db_column_json(s, 8), "hidden",
                      sqlite3_column_int(s, 9) != 0);
        if (with_source)
            json_object_set_new(j, "source",
                                json_stringn((const char *)sqlite3_column_blob(s, 10),
                                             (size_t)sqlite3_column_bytes(s, 10)));
    }
    sqlite3_reset(s);
    if (j) {
        add_lateness(db, j, id);
        int64_t position = db_queue_position(db, id);
        json_object_set_new(j, "queue_position",
                            position > 0 ? json_integer(position) : json_null());
        json_object_set_new(j, "results", history(db, id));
        add_hidden_details(db, id, j);
        json_object_set_new(j, "certificate", db_certificate_earned_by(db, id));
    }
    return j;
}

json_t *db_submissions_of(struct db *db, int64_t user_id, const char *exercise, int limit)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT s.id, s.exercise, s.status, s.created_at, r.verdict, r.student_ms, r.ratio, "
            "s.hidden, s.language, s.hidden_reason, l.late FROM submissions s LEFT JOIN results r "
            "ON r.id = s.result_id JOIN submission_lateness l ON l.submission_id = s.id "
            "WHERE s.user_id = ?1 AND (?2 IS NULL OR s.exercise = ?2) ORDER BY s.id DESC "
            "LIMIT ?3");
    json_t *list = json_array();
    if (s) {
        sqlite3_bind_int64(s, 1, user_id);
        if (exercise)
            sqlite3_bind_text(s, 2, exercise, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(s, 3, limit);
    }
    while (s && sqlite3_step(s) == SQLITE_ROW) {
        json_t *row = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b}", "id",
                                db_column_integer(s, 0), "exercise", db_column_text(s, 1),
                                "language", db_column_text(s, 8), "status", db_column_text(s, 2),
                                "created_at", db_column_time(s, 3), "verdict", db_column_text(s, 4),
                                "student_ms", db_column_real(s, 5), "ratio", db_column_real(s, 6),
                                "hidden", sqlite3_column_int(s, 7) != 0);
        json_object_set_new(row, "hidden_reason", db_column_text(s, 9));
        json_object_set_new(row, "late", json_boolean(sqlite3_column_int(s, 10) != 0));
        json_array_append_new(list, row);
    }
    if (s)
        sqlite3_reset(s);
    return list;
}
