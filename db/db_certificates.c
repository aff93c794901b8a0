/*
 * Certificates: a student's best passing assessment results for a course,
 * a certificate stored once per student and course (with the submissions
 * that earned it), read, listed (a user's, or every one for instructors)
 * and revoked (kept, with the reason).
 */
#include "db_internal.h"

#include <string.h>

/* The best counted result of one exercise for a user (passed at the
 * assessment size, not late: the view counted_best). */
static bool best_of(struct db *db, int64_t user_id, const char *exercise,
                    struct db_certificate_assessment *out)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT submission_id, ratio FROM counted_best WHERE user_id = ? AND exercise = ?");
    if (!s)
        return false;
    sqlite3_bind_int64(s, 1, user_id);
    sqlite3_bind_text(s, 2, exercise, -1, SQLITE_STATIC);
    bool found = sqlite3_step(s) == SQLITE_ROW;
    if (found) {
        out->exercise = exercise;
        out->submission = sqlite3_column_int64(s, 0);
        out->ratio = sqlite3_column_double(s, 1);
    }
    sqlite3_reset(s);
    return found;
}

enum db_outcome db_course_best(struct db *db, int64_t user_id, const char *const *exercises, int n,
                               struct db_certificate_assessment *best)
{
    for (int i = 0; i < n; i++)
        if (!best_of(db, user_id, exercises[i], &best[i]))
            return DB_NOT_FOUND;
    return DB_OK;
}

bool db_certificate_exists(struct db *db, int64_t user_id, const char *course)
{
    sqlite3_stmt *s =
        db_statement(db, "SELECT count(*) FROM certificates WHERE user_id = ? AND course = ?");
    if (s) {
        sqlite3_bind_int64(s, 1, user_id);
        sqlite3_bind_text(s, 2, course, -1, SQLITE_STATIC);
    }
    return db_scalar(s, 0) > 0;
}

static bool add_assessment(struct db *db, const char *id, const struct db_certificate_assessment *a)
{
    sqlite3_stmt *s = db_statement(
        db, "INSERT INTO certificate_assessments (certificate_id, exercise, submission_id, "
            "verdict, ratio) VALUES (?, ?, ?, 'passed', ?)");
    if (!s)
        return false;
    sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, a->exercise, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, a->submission);
    sqlite3_bind_double(s, 4, a->ratio);
    return db_run(db, s);
}

enum db_outcome db_certificate_add(struct db *db, const struct db_certificate *c)
{
    if (!db_begin(db))
        return DB_FAILED;
    sqlite3_stmt *s = db_statement(
        db, "INSERT OR IGNORE INTO certificates (id, user_id, course, payload, signature, "
            "issued_at, earned_by) VALUES (?, ?, ?, ?, ?, ?, ?)");
    bool ok = s != NULL;
    if (s) {
        sqlite3_bind_text(s, 1, c->id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 2, c->user_id);
        sqlite3_bind_text(s, 3, c->course, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 4, c->payload, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 5, c->signature, -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 6, c->issued_at);
        if (c->earned_by > 0)
            sqlite3_bind_int64(s, 7, c->earned_by);
        ok = db_run(db, s);
    }
    if (ok && sqlite3_changes(db->sql) == 0) { /* one was issued already */
        db_rollback(db);
        return DB_EXISTS;
    }
    for (int i = 0; ok && i < c->n_assessments; i++)
        ok = add_assessment(db, c->id, &c->assessments[i]);
    if (!ok || !db_commit(db)) {
        db_rollback(db);
        return DB_FAILED;
    }
    return DB_OK;
}

json_t *db_certificate_json(struct db *db, const char *id)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT c.id, c.course, u.name, c.payload, c.signature, c.issued_at, c.revoked_at, "
            "c.revoked_reason FROM certificates c JOIN users u ON u.id = c.user_id WHERE c.id = ?");
    if (!s)
        return NULL;
    sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
    json_t *j = NULL;
    if (sqlite3_step(s) == SQLITE_ROW)
        j = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o}", "id", db_column_text(s, 0),
                      "course", db_column_text(s, 1), "user", db_column_text(s, 2), "payload",
                      db_column_text(s, 3), "signature", db_column_text(s, 4), "issued_at",
                      db_column_time(s, 5), "revoked", sqlite3_column_type(s, 6) != SQLITE_NULL,
                      "revoked_at", db_column_time(s, 6), "revoked_reason", db_column_text(s, 7));
    sqlite3_reset(s);
    return j;
}

json_t *db_certificates_of(struct db *db, int64_t user_id)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT id, course, issued_at, revoked_at IS NOT NULL, json_extract(payload, "
            "'$.course.title') FROM certificates WHERE user_id = ? ORDER BY issued_at");
    json_t *list = json_array();
    if (s)
        sqlite3_bind_int64(s, 1, user_id);
    while (s && sqlite3_step(s) == SQLITE_ROW)
        json_array_append_new(
            list, json_pack("{s:o, s:o, s:o, s:o, s:b}", "id", db_column_text(s, 0), "course",
                            db_column_text(s, 1), "course_title", db_column_text(s, 4), "issued_at",
                            db_column_time(s, 2), "revoked", sqlite3_column_int(s, 3) != 0));
    if (s)
        sqlite3_reset(s);
    return list;
}

json_t *db_certificates_all(struct db *db, int limit)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT c.id, c.course, CASE WHEN json_valid(c.payload) THEN json_extract(c.payload, "
            "'$.course.title') END, u.name, u.display_name, c.issued_at, c.revoked_at, "
            "c.revoked_reason FROM certificates c "
            "JOIN users u ON u.id = c.user_id ORDER BY c.issued_at DESC, c.id LIMIT ?");
    json_t *list = json_array();
    if (s)
        sqlite3_bind_int(s, 1, limit);
    while (s && sqlite3_step(s) == SQLITE_ROW)
        json_array_append_new(
            list,
            json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o}", "id", db_column_text(s, 0),
                      "course", db_column_text(s, 1), "course_title", db_column_text(s, 2), "user",
                      db_column_text(s, 3), "display_name", db_column_text(s, 4), "issued_at",
                      db_column_time(s, 5), "revoked", sqlite3_column_type(s, 6) != SQLITE_NULL,
                      "revoked_at", db_column_time(s, 6), "revoked_reason", db_column_text(s, 7)));
    if (s)
        sqlite3_reset(s);
    return list;
}

json_t *db_course_certificates(struct db *db, const char *course)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT u.name, c.id, c.issued_at, c.revoked_at IS NOT NULL FROM certificates c JOIN "
            "users u ON u.id = c.user_id WHERE c.course = ?");
    json_t *held = json_object();
    if (s)
        sqlite3_bind_text(s, 1, course, -1, SQLITE_STATIC);
    while (s && sqlite3_step(s) == SQLITE_ROW)
        json_object_set_new(held, (const char *)sqlite3_column_text(s, 0),
                            json_pack("{s:o, s:o, s:b}", "id", db_column_text(s, 1), "issued_at",
                                      db_column_time(s, 2), "revoked",
                                      sqlite3_column_int(s, 3) != 0));
    if (s)
        sqlite3_reset(s);
    return held;
}

enum db_outcome db_certificate_revoke(struct db *db, const char *id, int64_t actor_id,
                                      const char *reason)
{
    sqlite3_stmt *s = db_statement(
        db, "UPDATE certificates SET revoked_at = ?, revoked_by = ?, revoked_reason = ? WHERE "
            "id = ? AND revoked_at IS NULL");
    if (!s)
        return DB_FAILED;
    sqlite3_bind_int64(s, 1, db_now_ms());
    sqlite3_bind_int64(s, 2, actor_id);
    sqlite3_bind_text(s, 3, reason, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 4, id, -1, SQLITE_STATIC);
    if (!db_run(db, s))
        return DB_FAILED;
    return sqlite3_changes(db->sql) > 0 ? DB_OK : DB_NOT_FOUND;
}

json_t *db_certificate_earned_by(struct db *db, int64_t submission)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT id, course, json_extract(payload, '$.course.title') FROM certificates "
            "WHERE earned_by = ?");
    json_t *c = json_null();
    if (!s)
        return c;
    sqlite3_bind_int64(s, 1, submission);
    if (sqlite3_step(s) == SQLITE_ROW)
        c = json_pack("{s:o, s:o, s:o}", "id", db_column_text(s, 0), "course", db_column_text(s, 1),
                      "course_title", db_column_text(s, 2));
    sqlite3_reset(s);
    return c;
}
