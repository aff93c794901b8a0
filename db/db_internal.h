/*
 * Internal to db/: the connection and its cache of prepared statements.
 */
#ifndef KGRADE_DB_INTERNAL_H
#define KGRADE_DB_INTERNAL_H

#include "db.h"

#include <sqlite3.h>

#define DB_STATEMENTS_MAX 96

struct db {
    sqlite3 *sql;
    struct {
        const char *text; /* the SQL, a string literal: its address is the key */
        sqlite3_stmt *stmt;
    } cache[DB_STATEMENTS_MAX];
    int n_cached;
    int64_t busy_since_us; /* when the current wait for the write lock began */
    char error[256];
};

/* The statement for `sql` (a string literal), prepared once, reset and
 * with its bindings cleared; NULL when it cannot be prepared (db_error). */
sqlite3_stmt *db_statement(struct db *db, const char *sql);

/* The first column of the first row of a prepared and bound statement (a
 * count, an id), or `fallback` when there is no row; the statement is
 * reset. */
int64_t db_scalar(sqlite3_stmt *stmt, int64_t fallback);

/* Steps a statement to its end (no rows wanted). */
bool db_run(struct db *db, sqlite3_stmt *stmt);

/* BEGIN IMMEDIATE / COMMIT / ROLLBACK. */
bool db_begin(struct db *db);
bool db_commit(struct db *db);
void db_rollback(struct db *db);

/* A queued job (db_submissions.c): a submission, or (`trial`) a trial
 * (whose idempotency_key is not used); its id. */
bool db_job_insert(struct db *db, bool trial, const struct db_new_submission *n, int64_t *id);
/* Running -> queued, keeping queued_at and attempts: the submission or
 * trial `id`, or (0) every one of its kind; their number, -1 on failure. */
int64_t db_job_back_to_queue(struct db *db, bool trial, int64_t id);

/* Column helpers: a text column as a JSON string or null; an integer
 * column as a JSON integer or null; a real column as a JSON real or null. */
json_t *db_column_text(sqlite3_stmt *stmt, int column);
json_t *db_column_integer(sqlite3_stmt *stmt, int column);
json_t *db_column_real(sqlite3_stmt *stmt, int column);
/* A text column holding JSON, parsed; null when NULL or not JSON. */
json_t *db_column_json(sqlite3_stmt *stmt, int column);
/* A millisecond time column as an ISO-8601 UTC string, or null. */
json_t *db_column_time(sqlite3_stmt *stmt, int column);

/* Copies a text column into a buffer (truncating). */
void db_copy_text(sqlite3_stmt *stmt, int column, char *out, size_t size);

#endif
