/*
 * The connection: opening, settings (WAL, foreign keys, busy timeout),
 * migrations, the prepared-statement cache, transactions, column helpers.
 */
#include "db_internal.h"
#include "db_migrations.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const settings =
    "PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;";

int64_t db_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

const char *db_error(struct db *db)
{
    return db->error;
}

static void note_error(struct db *db, const char *what)
{
    snprintf(db->error, sizeof db->error, "%s: %s", what, sqlite3_errmsg(db->sql));
}

sqlite3_stmt *db_statement(struct db *db, const char *sql)
{
    for (int i = 0; i < db->n_cached; i++)
        if (db->cache[i].text == sql) {
            sqlite3_reset(db->cache[i].stmt);
            sqlite3_clear_bindings(db->cache[i].stmt);
            return db->cache[i].stmt;
        }
    sqlite3_stmt *stmt = NULL;
    if (db->n_cached == DB_STATEMENTS_MAX ||
        sqlite3_prepare_v3(db->sql, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, NULL) != SQLITE_OK) {
        note_error(db, "a statement could not be prepared");
        return NULL;
    }
    db->cache[db->n_cached].text = sql;
    db->cache[db->n_cached].stmt = stmt;
    db->n_cached++;
    return stmt;
}

int64_t db_scalar(sqlite3_stmt *stmt, int64_t fallback)
{
    if (!stmt)
        return fallback;
    int64_t value = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : fallback;
    sqlite3_reset(stmt);
    return value;
}

bool db_run(struct db *db, sqlite3_stmt *stmt)
{
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
        ;
    if (rc != SQLITE_DONE) {
        note_error(db, "a statement failed");
        return false;
    }
    return true;
}

static bool exec(struct db *db, const char *sql)
{
    char *message = NULL;
    if (sqlite3_exec(db->sql, sql, NULL, NULL, &message) == SQLITE_OK)
        return true;
    snprintf(db->error, sizeof db->error, "%s", message ? message : "unknown error");
    sqlite3_free(message);
    return false;
}

bool db_begin(struct db *db)
{
    return exec(db, "BEGIN IMMEDIATE");
}

bool db_commit(struct db *db)
{
    return exec(db, "COMMIT");
}

void db_rollback(struct db *db)
{
    sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
}

/* --------------------------------------------------------- migrations */

int db_schema_version(struct db *db)
{
    return (int)db_scalar(
        db_statement(db, "SELECT coalesce(max(version), 0) FROM schema_migrations"), 0);
}

static bool apply(struct db *db, const struct db_migration *m)
{
    static const char *const record =
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)";
    if (!db_begin(db))
        return false;
    sqlite3_stmt *s = NULL;
    bool ok = exec(db, m->sql) && (s = db_statement(db, record)) != NULL;
    if (ok) {
        sqlite3_bind_int(s, 1, m->version);
        sqlite3_bind_text(s, 2, m->name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 3, db_now_ms());
        ok = db_run(db, s) && db_commit(db);
    }
    if (!ok) {
        char why[sizeof db->error];
        snprintf(why, sizeof why, "%s", db->error);
        db_rollback(db);
        snprintf(db->error, sizeof db->error, "migration %s failed: %.180s", m->name, why);
    }
    return ok;
}

static bool migrate(struct db *db)
{
    if (!exec(db, "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
                  "name TEXT NOT NULL, applied_at INTEGER NOT NULL)"))
        return false;
    int current = db_schema_version(db);
    for (int i = 0; i < db_n_migrations; i++)
        if (db_migrations[i].version > current && !apply(db, &db_migrations[i]))
            return false;
    return true;
}

/* --------------------------------------------------------------- open */

static int64_t monotonic_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

/* Waiting for another connection's write lock. SQLite's own busy timeout
 * sleeps in steps of 1 to 100 ms, which under many short writers (the
 * server's threads posting submissions) leaves the lock free and everyone
 * asleep. This one sleeps 20 µs, doubling to at most 1 ms, until
 * DB_BUSY_MS have passed. */
static int on_busy(void *arg, int attempt)
{
    struct db *db = arg;
    int64_t now = monotonic_us();
    if (attempt == 0)
        db->busy_since_us = now;
    if (now - db->busy_since_us >= (int64_t)DB_BUSY_MS * 1000)
        return 0;
    usleep(20u << (attempt < 5 ? attempt : 5));
    return 1;
}

/* A database file new to the disk is made private (0600) before SQLite
 * opens it, whatever the umask: accounts and sources live there. SQLite
 * gives the -wal and -shm files it makes beside it the database's mode. */
static bool create_private(const char *path, char *error, size_t error_size)
{
    if (strcmp(path, ":memory:") == 0 || strncmp(path, "file:", 5) == 0)
        return true;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0 || errno == EEXIST) {
        if (fd >= 0)
            close(fd);
        return true;
    }
    snprintf(error, error_size, "%s: cannot be opened: %s", path, strerror(errno));
    return false;
}

struct db *db_open(const char *path, char *error, size_t error_size)
{
    if (!create_private(path, error, error_size))
        return NULL;
    struct db *db = calloc(1, sizeof *db);
    if (!db) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path, &db->sql, flags, NULL) != SQLITE_OK) {
        snprintf(error, error_size, "%s: cannot be opened: %s", path,
                 db->sql ? sqlite3_errmsg(db->sql) : "out of memory");
        db_close(db);
        return NULL;
    }
    sqlite3_busy_handler(db->sql, on_busy, db);
    if (!exec(db, settings) || !migrate(db)) {
        snprintf(error, error_size, "%s: %s", path, db->error);
        db_close(db);
        return NULL;
    }
    return db;
}

void db_close(struct db *db)
{
    if (!db)
        return;
    for (int i = 0; i < db->n_cached; i++)
        sqlite3_finalize(db->cache[i].stmt);
    sqlite3_close(db->sql);
    free(db);
}

/* ------------------------------------------------------------ columns */

json_t *db_column_text(sqlite3_stmt *stmt, int column)
{
    const unsigned char *text = sqlite3_column_text(stmt, column);
    return text ? json_string((const char *)text) : json_null();
}

json_t *db_column_integer(sqlite3_stmt *stmt, int column)
{
    return sqlite3_column_type(stmt, column) == SQLITE_NULL
               ? json_null()
               : json_integer((json_int_t)sqlite3_column_int64(stmt, column));
}

json_t *db_column_real(sqlite3_stmt *stmt, int column)
{
    return sqlite3_column_type(stmt, column) == SQLITE_NULL
               ? json_null()
               : json_real(sqlite3_column_double(stmt, column));
}

json_t *db_column_json(sqlite3_stmt *stmt, int column)
{
    const char *text = (const char *)sqlite3_column_text(stmt, column);
    json_t *j = text ? json_loads(text, 0, NULL) : NULL;
    return j ? j : json_null();
}

json_t *db_column_time(sqlite3_stmt *stmt, int column)
{
    if (sqlite3_column_type(stmt, column) == SQLITE_NULL)
        return json_null();
    int64_t ms = sqlite3_column_int64(stmt, column);
    time_t seconds = (time_t)(ms / 1000);
    struct tm tm;
    char text[40];
    gmtime_r(&seconds, &tm);
    size_t n = strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(text + n, sizeof text - n, ".%03dZ", (int)(ms % 1000));
    return json_string(text);
}

void db_copy_text(sqlite3_stmt *stmt, int column, char *out, size_t size)
{
    const unsigned char *text = sqlite3_column_text(stmt, column);
    snprintf(out, size, "%s", text ? (const char *)text : "");
}
