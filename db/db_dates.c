/*
 * Opening times, deadlines and extensions (migration 0009): what the files
 * say, synced in by the server; the instructors' overrides, which win over
 * the files until cleared; and per-student extensions. Lateness itself is
 * never stored: the views of migration 0009 compute it when read.
 */
#include "db_internal.h"

#include <string.h>

const char *db_scope_name(enum db_scope scope)
{
    return scope == DB_SCOPE_COURSE ? "course" : "exercise";
}

/* Binds a time, or NULL for DB_NO_TIME. */
static void bind_time(sqlite3_stmt *s, int column, int64_t ms)
{
    if (ms == DB_NO_TIME)
        sqlite3_bind_null(s, column);
    else
        sqlite3_bind_int64(s, column, ms);
}

static bool insert_file_date(struct db *db, const struct db_file_date *row)
{
    sqlite3_stmt *s = db_statement(db, "INSERT OR REPLACE INTO file_dates (scope, name, course, "
                                       "opens, deadline) VALUES (?, ?, ?, ?, ?)");
    if (!s)
        return false;
    sqlite3_bind_text(s, 1, db_scope_name(row->scope), -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, row->name, -1, SQLITE_STATIC);
    if (row->course)
        sqlite3_bind_text(s, 3, row->course, -1, SQLITE_STATIC);
    bind_time(s, 4, row->opens);
    bind_time(s, 5, row->deadline);
    return db_run(db, s);
}

enum db_outcome db_file_dates_replace(struct db *db, const struct db_file_date *rows, int n)
{
    if (!db_begin(db))
        return DB_FAILED;
    bool ok = db_run(db, db_statement(db, "DELETE FROM file_dates"));
    for (int i = 0; ok && i < n; i++)
        ok = insert_file_date(db, &rows[i]);
    if (!ok || !db_commit(db)) {
        db_rollback(db);
        return DB_FAILED;
    }
    return DB_OK;
}

enum db_outcome db_dates_override(struct db *db, enum db_scope scope, const char *name,
                                  int64_t opens, int64_t deadline, int64_t actor_id)
{
    sqlite3_stmt *s = db_statement(db, "INSERT OR REPLACE INTO date_overrides (scope, name, opens, "
                                       "deadline, set_by, set_at) VALUES (?, ?, ?, ?, ?, ?)");
    if (!s)
        return DB_FAILED;
    sqlite3_bind_text(s, 1, db_scope_name(scope), -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
    bind_time(s, 3, opens);
    bind_time(s, 4, deadline);
    sqlite3_bind_int64(s, 5, actor_id);
    sqlite3_bind_int64(s, 6, db_now_ms());
    return db_run(db, s) ? DB_OK : DB_FAILED;
}

enum db_outcome db_dates_clear(struct db *db, enum db_scope scope, const char *name)
{
    sqlite3_stmt *s = db_statement(db, "DELETE FROM date_overrides WHERE scope = ? AND name = ?");
    if (!s)
        return DB_FAILED;
    sqlite3_bind_text(s, 1, db_scope_name(scope), -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
    if (!db_run(db, s))
        return DB_FAILED;
    return sqlite3_changes(db->sql) ? DB_OK : DB_NOT_FOUND;
}

static int64_t time_column(sqlite3_stmt *s, int column)
{
    return sqlite3_column_type(s, column) == SQLITE_NULL ? DB_NO_TIME
                                                         : sqlite3_column_int64(s, column);
}

enum db_outcome db_exercise_dates(struct db *db, const char *exercise, int64_t *opens,
                                  int64_t *deadline)
{
    sqlite3_stmt *s =
        db_statement(db, "SELECT opens, deadline FROM exercise_dates WHERE exercise = ?");
    *opens = *deadline = DB_NO_TIME;
    if (!s)
        return DB_FAILED;
    sqlite3_bind_text(s, 1, exercise, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *opens = time_column(s, 0);
        *deadline = time_column(s, 1);
    }
    sqlite3_reset(s);
    return rc == SQLITE_ROW ? DB_OK : rc == SQLITE_DONE ? DB_NOT_FOUND : DB_FAILED;
}

json_t *db_dates(struct db *db)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT l.scope, l.name, l.course, l.opens, l.deadline, l.overridden, f.opens, "
            "f.deadline, d.opens, d.deadline FROM level_dates l JOIN file_dates f ON f.scope = "
            "l.scope AND f.name = l.name LEFT JOIN exercise_dates d ON l.scope = 'exercise' AND "
            "d.exercise = l.name ORDER BY l.scope, l.name");
    json_t *courses = json_object(), *exercises = json_object();
    while (s && sqlite3_step(s) == SQLITE_ROW) {
        bool course = strcmp((const char *)sqlite3_column_text(s, 0), "course") == 0;
        json_t *row = json_pack("{s:o, s:o, s:b, s:o, s:o}", "own_opens", db_column_time(s, 3),
                                "own_deadline", db_column_time(s, 4), "overridden",
                                sqlite3_column_int(s, 5) != 0, "file_opens", db_column_time(s, 6),
                                "file_deadline", db_column_time(s, 7));
        json_object_set_new(row, "opens", db_column_time(s, course ? 3 : 8));
        json_object_set_new(row, "deadline", db_column_time(s, course ? 4 : 9));
        if (!course)
            json_object_set_new(row, "course", db_column_text(s, 2));
        json_object_set_new(course ? courses : exercises, (const char *)sqlite3_column_text(s, 1),
                            row);
    }
    if (s)
        sqlite3_reset(s);
    return json_pack("{s:o, s:o}", "courses", courses, "exercises", exercises);
}

enum db_outcome db_extension_grant(struct db *db, int64_t user_id, enum db_scope scope,
                                   const char *name, int64_t deadline, int64_t actor_id,
                                   int64_t *id)
{
    sqlite3_stmt *s = db_statement(
        db, "INSERT INTO extensions (user_id, scope, name, deadline, granted_by, granted_at) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, scope, name) DO UPDATE SET "
            "deadline = excluded.deadline, granted_by = excluded.granted_by, granted_at = "
            "excluded.granted_at RETURNING id");
    if (!s)
        return DB_FAILED;
    sqlite3_bind_int64(s, 1, user_id);
    sqlite3_bind_text(s, 2, db_scope_name(scope), -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 4, deadline);
    sqlite3_bind_int64(s, 5, actor_id);
    sqlite3_bind_int64(s, 6, db_now_ms());
    int64_t granted = db_scalar(s, 0);
    if (id)
        *id = granted;
    return granted > 0 ? DB_OK : DB_FAILED;
}

enum db_outcome db_extension_revoke(struct db *db, int64_t id)
{
    sqlite3_stmt *s = db_statement(db, "DELETE FROM extensions WHERE id = ?");
    if (!s)
        return DB_FAILED;
    sqlite3_bind_int64(s, 1, id);
    if (!db_run(db, s))
        return DB_FAILED;
    return sqlite3_changes(db->sql) ? DB_OK : DB_NOT_FOUND;
}

json_t *db_extensions_list(struct db *db)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT x.id, u.name, u.display_name, x.scope, x.name, x.deadline, g.name, "
            "x.granted_at FROM extensions x JOIN users u ON u.id = x.user_id LEFT JOIN users g "
            "ON g.id = x.granted_by ORDER BY u.name, x.scope, x.name");
    json_t *list = json_array();
    while (s && sqlite3_step(s) == SQLITE_ROW)
        json_array_append_new(
            list, json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "id",
                            db_column_integer(s, 0), "user", db_column_text(s, 1), "display_name",
                            db_column_text(s, 2), "scope", db_column_text(s, 3), "name",
                            db_column_text(s, 4), "deadline", db_column_time(s, 5), "granted_by",
                            db_column_text(s, 6), "granted_at", db_column_time(s, 7)));
    if (s)
        sqlite3_reset(s);
    return list;
}
