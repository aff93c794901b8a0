/*
 * Scoreboards and class progress: each user's best passing result at the
 * assessment size per exercise (hidden submissions left out), ranked by
 * the student's time, ties by submission time; the progress counts only
 * what came before its deadline (the view exercise_standing).
 */
#include "db_internal.h"

#include <string.h>

json_t *db_scoreboard(struct db *db, const char *exercise, bool real_names, int limit)
{
    sqlite3_stmt *s = db_statement(
        db, "WITH best AS (SELECT s.user_id, s.id, s.created_at, r.student_ms, r.ratio, "
            "row_number() OVER (PARTITION BY s.user_id ORDER BY r.student_ms, s.created_at, "
            "s.id) AS n FROM submissions s JOIN results r ON r.id = s.result_id WHERE "
            "s.exercise = ? AND s.hidden = 0 AND r.verdict = 'passed' AND r.assessment = 1) "
            "SELECT u.display_name, u.name, b.id, b.student_ms, b.ratio, b.created_at FROM "
            "best b JOIN users u ON u.id = b.user_id WHERE b.n = 1 ORDER BY b.student_ms, "
            "b.created_at, b.id LIMIT ?");
    json_t *list = json_array();
    if (s) {
        sqlite3_bind_text(s, 1, exercise, -1, SQLITE_STATIC);
        sqlite3_bind_int(s, 2, limit);
    }
    for (int rank = 1; s && sqlite3_step(s) == SQLITE_ROW; rank++) {
        json_t *row =
            json_pack("{s:i, s:o, s:o, s:o, s:o, s:o}", "rank", rank, "user", db_column_text(s, 0),
                      "submission", db_column_integer(s, 2), "student_ms", db_column_real(s, 3),
                      "ratio", db_column_real(s, 4), "submitted_at", db_column_time(s, 5));
        if (real_names)
            json_object_set_new(row, "name", db_column_text(s, 1));
        json_array_append_new(list, row);
    }
    if (s)
        sqlite3_reset(s);
    return list;
}

/* True when `id` is among the course's exercises. */
static bool among(const char *id, const char *const *exercises, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(id, exercises[i]) == 0)
            return true;
    return false;
}

json_t *db_course_scoreboard(struct db *db, const char *const *exercises, int n_exercises,
                             bool real_names)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT DISTINCT u.id, u.display_name, u.name, s.exercise FROM submissions s JOIN "
            "results r ON r.id = s.result_id JOIN users u ON u.id = s.user_id WHERE "
            "r.verdict = 'passed' AND r.assessment = 1 AND s.hidden = 0 ORDER BY u.id, "
            "s.exercise");
    json_t *list = json_array(), *row = NULL;
    int64_t current = -1;
    while (s && sqlite3_step(s) == SQLITE_ROW) {
        const char *exercise = (const char *)sqlite3_column_text(s, 3);
        if (!exercise || !among(exercise, exercises, n_exercises))
            continue;
        if (sqlite3_column_int64(s, 0) != current) {
            current = sqlite3_column_int64(s, 0);
            row = json_pack("{s:o, s:[], s:i}", "user", db_column_text(s, 1), "passed", "count", 0);
            if (real_names)
                json_object_set_new(row, "name", db_column_text(s, 2));
            json_array_append_new(list, row);
        }
        json_array_append_new(json_object_get(row, "passed"), json_string(exercise));
        json_object_set_new(
            row, "count",
            json_integer((json_int_t)json_array_size(json_object_get(row, "passed"))));
    }
    if (s)
        sqlite3_reset(s);
    return list;
}

json_t *db_progress(struct db *db, int64_t user_id)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT u.name, u.display_name, x.exercise, x.best_submission IS NOT NULL, "
            "x.best_ratio, x.submissions, x.graded, x.late_mark, x.best_submission, x.best_at, "
            "x.first_at, x.newest_submission FROM exercise_standing x JOIN users u ON u.id = "
            "x.user_id WHERE ?1 = 0 OR u.id = ?1 ORDER BY u.name, x.exercise");
    json_t *list = json_array();
    if (s)
        sqlite3_bind_int64(s, 1, user_id);
    while (s && sqlite3_step(s) == SQLITE_ROW) {
        const char *status = sqlite3_column_int(s, 3)   ? "passed"
                             : sqlite3_column_int(s, 6) ? "failed"
                                                        : "pending";
        json_t *row =
            json_pack("{s:o, s:o, s:o, s:s, s:o, s:o, s:b}", "name", db_column_text(s, 0),
                      "display_name", db_column_text(s, 1), "exercise", db_column_text(s, 2),
                      "status", status, "best_ratio", db_column_real(s, 4), "submissions",
                      db_column_integer(s, 5), "late", sqlite3_column_int(s, 7) != 0);
        json_object_update_new(
            row, json_pack("{s:o, s:o, s:o, s:o}", "best_submission", db_column_integer(s, 8),
                           "best_at", db_column_time(s, 9), "first_at", db_column_time(s, 10),
                           "newest_submission", db_column_integer(s, 11)));
        json_array_append_new(list, row);
    }
    if (s)
        sqlite3_reset(s);
    return list;
}

int64_t db_scoreboard_version(struct db *db)
{
    return db_scalar(db_statement(db, "SELECT n FROM scoreboard_version"), -1);
}
