/*
 * Accounts, API tokens, web sessions and the audit log. Tokens and session
 * cookies are stored as their BLAKE2b hashes only (the caller hashes).
 * What one user may hold is capped by the caller's numbers, checked in the
 * transaction that adds.
 */
#include "db_internal.h"

#include <stdio.h>
#include <string.h>

/* What read_user reads, of users aliased `u`. */
#define USER_COLUMNS   "u.id, u.name, u.display_name, u.role, u.must_change_password"
#define N_USER_COLUMNS 5

static const char *const role_names[] = {
    [DB_ROLE_STUDENT] = "student",
    [DB_ROLE_INSTRUCTOR] = "instructor",
    [DB_ROLE_ADMIN] = "admin",
};

const char *db_role_name(enum db_role role)
{
    return role <= DB_ROLE_ADMIN ? role_names[role] : "student";
}

bool db_role_parse(const char *name, enum db_role *role)
{
    for (int r = DB_ROLE_STUDENT; name && r <= DB_ROLE_ADMIN; r++)
        if (strcmp(name, role_names[r]) == 0) {
            *role = (enum db_role)r;
            return true;
        }
    return false;
}

bool db_user_name_valid(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n >= DB_NAME_MAX || name[0] == '-') /* an option's, a formula's start */
        return false;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' ||
              *p == '-'))
            return false;
    return true;
}

/* The user columns (USER_COLUMNS) from `first` on. */
static void read_user(sqlite3_stmt *s, int first, struct db_user *user)
{
    user->id = sqlite3_column_int64(s, first);
    db_copy_text(s, first + 1, user->name, sizeof user->name);
    db_copy_text(s, first + 2, user->display_name, sizeof user->display_name);
    const char *role = (const char *)sqlite3_column_text(s, first + 3);
    if (!db_role_parse(role, &user->role))
        user->role = DB_ROLE_STUDENT;
    user->must_change_password = sqlite3_column_int(s, first + 4) != 0;
}

/* One row into `user` (and the next column into `extra`), or not found. */
static enum db_outcome one_user(sqlite3_stmt *s, struct db_user *user, char *extra,
                                size_t extra_size)
{
    if (!s)
        return DB_FAILED;
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        read_user(s, 0, user);
        if (extra)
            db_copy_text(s, N_USER_COLUMNS, extra, extra_size);
    }
    sqlite3_reset(s);
    return rc == SQLITE_ROW ? DB_OK : rc == SQLITE_DONE ? DB_NOT_FOUND : DB_FAILED;
}

/* ------------------------------------------------------------- users */

enum db_outcome db_user_add(struct db *db, const char *name, const char *display_name,
                            enum db_role role, const char *password_hash, bool must_change_password,
                            int64_t *id)
{
    sqlite3_stmt *s = db_statement(db, "INSERT INTO users (name, display_name, role, "
                                       "password_hash, created_at, must_change_password) "
                                       "VALUES (?, ?, ?, ?, ?, ?)");
    if (!s)
        return DB_FAILED;
    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, display_name, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, db_role_name(role), -1, SQLITE_STATIC);
    if (password_hash)
        sqlite3_bind_text(s, 4, password_hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 5, db_now_ms());
    sqlite3_bind_int(s, 6, must_change_password);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc == SQLITE_CONSTRAINT)
        return DB_EXISTS;
    if (rc != SQLITE_DONE)
        return DB_FAILED;
    if (id)
        *id = sqlite3_last_insert_rowid(db->sql);
    return DB_OK;
}

enum db_outcome db_user_by_name(struct db *db, const char *name, struct db_user *user, char *hash,
                                size_t hash_size)
{
    sqlite3_stmt *s =
        db_statement(db, "SELECT " USER_COLUMNS ", u.password_hash FROM users u WHERE u.name = ?");
    if (s)
        sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    return one_user(s, user, hash, hash_size);
}

enum db_outcome db_user_by_id(struct db *db, int64_t id, struct db_user *user)
{
    sqlite3_stmt *s = db_statement(db, "SELECT " USER_COLUMNS " FROM users u WHERE u.id = ?");
    if (s)
        sqlite3_bind_int64(s, 1, id);
    return one_user(s, user, NULL, 0);
}

typedef enum db_outcome db_steps(struct db *db, const void *args);

/* `steps` in one transaction: committed when they give DB_OK, else rolled
 * back. */
static enum db_outcome transaction(struct db *db, db_steps *steps, const void *args)
{
    if (!db_begin(db))
        return DB_FAILED;
    enum db_outcome o = steps(db, args);
    if (o == DB_OK && !db_commit(db))
        o = DB_FAILED;
    if (o != DB_OK)
        db_rollback(db);
    return o;
}

struct password_set {
    int64_t id;
    const struct db_password_change *change;
};

/* The three steps of db_user_set_password. */
static enum db_outcome set_password(struct db *db, const void *args)
{
    const struct password_set *p = args;
    const struct db_password_change *change = p->change;
    int64_t id = p->id;
    sqlite3_stmt *s = db_statement(
        db, "UPDATE users SET password_hash = ?, must_change_password = ? WHERE id = ?");
    if (!s)
        return DB_FAILED;
    sqlite3_bind_text(s, 1, change->password_hash, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 2, change->must_change);
    sqlite3_bind_int64(s, 3, id);
    if (!db_run(db, s))
        return DB_FAILED;
    if (!sqlite3_changes(db->sql))
        return DB_NOT_FOUND;
    s = db_statement(db, "DELETE FROM sessions WHERE user_id = ? AND token_hash IS NOT ?");
    if (!s)
        return DB_FAILED;
    sqlite3_bind_int64(s, 1, id);
    if (change->keep_session)
        sqlite3_bind_blob(s, 2, change->keep_session, DB_HASH_BYTES, SQLITE_STATIC);
    if (!db_run(db, s))
        return DB_FAILED;
    s = change->end_tokens ? db_statement(db, "DELETE FROM api_tokens WHERE user_id = ?") : NULL;
    if (s)
        sqlite3_bind_int64(s, 1, id);
    return !change->end_tokens || (s && db_run(db, s)) ? DB_OK : DB_FAILED;
}

enum db_outcome db_user_set_password(struct db *db, int64_t id,
                                     const struct db_password_change *change)
{
    return transaction(db, set_password, &(struct password_set){id, change});
}

json_t *db_users_list(struct db *db)
{
    sqlite3_stmt *s = db_statement(db, "SELECT name, display_name, role, created_at, "
                                       "must_change_password FROM users ORDER BY name");
    json_t *list = json_array();
    while (s && sqlite3_step(s) == SQLITE_ROW)
        json_array_append_new(list,
                              json_pack("{s:o, s:o, s:o, s:o, s:b}", "name", db_column_text(s, 0),
                                        "display_name", db_column_text(s, 1), "role",
                                        db_column_text(s, 2), "created_at", db_column_time(s, 3),
                                        "must_change_password", sqlite3_column_int(s, 4) != 0));
    if (s)
        sqlite3_reset(s);
    return list;
}

int64_t db_user_count(struct db *db)
{
    return db_scalar(db_statement(db, "SELECT count(*) FROM users"), -1);
}

struct users_add {
    const struct db_new_user *users;
    size_t n;
    const struct db_audit_entry *audit;
    size_t *failed;
};

static enum db_outcome add_users(struct db *db, const void *args)
{
    const struct users_add *a = args;
    for (size_t i = 0; i < a->n; i++) {
        const struct db_new_user *u = &a->users[i];
        enum db_outcome o = db_user_add(db, u->name, u->display_name, u->role, u->password_hash,
                                        u->must_change_password, NULL);
        if (o != DB_OK) {
            if (a->failed)
                *a->failed = i;
            return o;
        }
    }
    const struct db_audit_entry *e = a->audit;
    return e ? db_audit(db, e->actor_id, e->action, e->target, e->detail) : DB_OK;
}

enum db_outcome db_users_add_all(struct db *db, const struct db_new_user *users, size_t n,
                                 const struct db_audit_entry *audit, size_t *failed)
{
    return transaction(db, add_users, &(struct users_add){users, n, audit, failed});
}

/* ------------------------------------------------------------ tokens */

struct token_add {
    int64_t user_id;
    const char *name;
    const unsigned char *hash;
    int64_t live_max;
    int64_t *id;
};

/* Whether the user has room for one more live token; their revoked tokens
 * beyond the newest `live_max` are forgotten. */
static enum db_outcome token_room(struct db *db, int64_t user_id, int64_t live_max)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT count(*) FROM api_tokens WHERE user_id = ? AND revoked_at IS NULL");
    if (s)
        sqlite3_bind_int64(s, 1, user_id);
    int64_t live = db_scalar(s, -1);
    if (live < 0)
        return DB_FAILED;
    if (live >= live_max)
        return DB_FULL;
    s = db_statement(db, "DELETE FROM api_tokens WHERE user_id = ?1 AND revoked_at IS NOT NULL "
                         "AND id NOT IN (SELECT id FROM api_tokens WHERE user_id = ?1 AND "
                         "revoked_at IS NOT NULL ORDER BY id DESC LIMIT ?2)");
    if (!s)
        return DB_FAILED;
    sqlite3_bind_int64(s, 1, user_id);
    sqlite3_bind_int64(s, 2, live_max);
    return db_run(db, s) ? DB_OK : DB_FAILED;
}

static enum db_outcome add_token(struct db *db, const void *args)
{
    const struct token_add *t = args;
    enum db_outcome room = t->live_max ? token_room(db, t->user_id, t->live_max) : DB_OK;
    if (room != DB_OK)
        return room;
    sqlite3_stmt *s = db_statement(
        db, "INSERT INTO api_tokens (user_id, name, token_hash, created_at) VALUES (?, ?, ?, ?)");
    if (!s)
        return DB_FAILED;
    sqlite3_bind_int64(s, 1, t->user_id);
    sqlite3_bind_text(s, 2, t->name, -1, SQLITE_STATIC);
    sqlite3_bind_blob(s, 3, t->hash, DB_HASH_BYTES, SQLITE_STATIC);
    sqlite3_bind_int64(s, 4, db_now_ms());
    if (!db_run(db, s))
        return DB_FAILED;
    if (t->id)
        *t->id = sqlite3_last_insert_rowid(db->sql);
    return DB_OK;
}

enum db_outcome db_token_add(struct db *db, int64_t user_id, const char *name,
                             const unsigned char hash[DB_HASH_BYTES], int64_t live_max, int64_t *id)
{
    return transaction(db, add_token, &(struct token_add){user_id, name, hash, live_max, id});
}

enum db_outcome db_token_user(struct db *db, const unsigned char hash[DB_HASH_BYTES],
                              struct db_user *user)
{
    sqlite3_stmt *s =
        db_statement(db, "SELECT " USER_COLUMNS " FROM api_tokens t JOIN users u ON u.id = "
                         "t.user_id WHERE t.token_hash = ? AND t.revoked_at IS NULL");
    if (s)
        sqlite3_bind_blob(s, 1, hash, DB_HASH_BYTES, SQLITE_STATIC);
    enum db_outcome found = one_user(s, user, NULL, 0);
    sqlite3_stmt *used =
        found == DB_OK
            ? db_statement(db, "UPDATE api_tokens SET last_used_at = ?1 WHERE token_hash = ?2 AND "
                               "(last_used_at IS NULL OR last_used_at < ?1 - ?3)")
            : NULL;
    if (used) { /* a write at most once a minute per token: checks stay reads */
        sqlite3_bind_int64(used, 1, db_now_ms());
        sqlite3_bind_blob(used, 2, hash, DB_HASH_BYTES, SQLITE_STATIC);
        sqlite3_bind_int64(used, 3, DB_TOKEN_USE_RESOLUTION_MS);
        db_run(db, used);
    }
    return found;
}

json_t *db_tokens_list(struct db *db, int64_t user_id)
{
    sqlite3_stmt *s =
        db_statement(db, "SELECT id, name, created_at, last_used_at, revoked_at FROM api_tokens "
                         "WHERE user_id = ? ORDER BY id DESC");
    json_t *list = json_array();
    if (s)
        sqlite3_bind_int64(s, 1, user_id);
    while (s && sqlite3_step(s) == SQLITE_ROW)
        json_array_append_new(list,
                              json_pack("{s:o, s:o, s:o, s:o, s:b}", "id", db_column_integer(s, 0),
                                        "name", db_column_text(s, 1), "created_at",
                                        db_column_time(s, 2), "last_used_at", db_column_time(s, 3),
                                        "revoked", sqlite3_column_type(s, 4) != SQLITE_NULL));
    if (s)
        sqlite3_reset(s);
    return list;
}

enum db_outcome db_token_revoke(struct db *db, int64_t user_id, int64_t token_id)
{
    sqlite3_stmt *s = db_statement(db, "UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND "
                                       "user_id = ? AND revoked_at IS NULL");
    if (!s)
        return DB_FAILED;
    sqlite3_bind_int64(s, 1, db_now_ms());
    sqlite3_bind_int64(s, 2, token_id);
    sqlite3_bind_int64(s, 3, user_id);
    if (!db_run(db, s))
        return DB_FAILED;
    return sqlite3_changes(db->sql) ? DB_OK : DB_NOT_FOUND;
}

/* ---------------------------------------------------------- sessions */

struct session_add {
    int64_t user_id;
    const unsigned char *hash;
    const char *csrf;
    int64_t expires_at, per_user;
};

static enum db_outcome add_session(struct db *db, const void *args)
{
    const struct session_add *a = args;
    int64_t now = db_now_ms();
    sqlite3_stmt *s = db_statement(db, "INSERT INTO sessions (token_hash, csrf, user_id, "
                                       "created_at, expires_at) VALUES (?, ?, ?, ?, ?)");
    if (!s)
        return DB_FAILED;
    sqlite3_bind_blob(s, 1, a->hash, DB_HASH_BYTES, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, a->csrf, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, a->user_id);
    sqlite3_bind_int64(s, 4, now);
    sqlite3_bind_int64(s, 5, a->expires_at);
    if (!db_run(db, s))
        return DB_FAILED;
    s = db_statement(db, "DELETE FROM sessions WHERE user_id = ?1 AND (expires_at <= ?2 OR id NOT "
                         "IN (SELECT id FROM sessions WHERE user_id = ?1 ORDER BY id DESC "
                         "LIMIT ?3))");
    if (!s)
        return DB_FAILED;
    sqlite3_bind_int64(s, 1, a->user_id);
    sqlite3_bind_int64(s, 2, now);
    sqlite3_bind_int64(s, 3, a->per_user);
    return db_run(db, s) ? DB_OK : DB_FAILED;
}

enum db_outcome db_session_add(struct db *db, int64_t user_id,
                               const unsigned char hash[DB_HASH_BYTES], const char *csrf,
                               int64_t expires_at, int64_t per_user)
{
    return transaction(db, add_session,
                       &(struct session_add){user_id, hash, csrf, expires_at, per_user});
}

enum db_outcome db_session_user(struct db *db, const unsigned char hash[DB_HASH_BYTES], int64_t now,
                                struct db_user *user, char *csrf)
{
    sqlite3_stmt *s = db_statement(db, "SELECT " USER_COLUMNS
                                       ", s.csrf FROM sessions s JOIN users u ON u.id = s.user_id "
                                       "WHERE s.token_hash = ? AND s.expires_at > ?");
    if (s) {
        sqlite3_bind_blob(s, 1, hash, DB_HASH_BYTES, SQLITE_STATIC);
        sqlite3_bind_int64(s, 2, now);
    }
    return one_user(s, user, csrf, 65);
}

enum db_outcome db_session_delete(struct db *db, const unsigned char hash[DB_HASH_BYTES])
{
    sqlite3_stmt *s = db_statement(db, "DELETE FROM sessions WHERE token_hash = ?");
    if (!s)
        return DB_FAILED;
    sqlite3_bind_blob(s, 1, hash, DB_HASH_BYTES, SQLITE_STATIC);
    return db_run(db, s) ? DB_OK : DB_FAILED;
}

/* ------------------------------------------------------------- audit */

enum db_outcome db_audit(struct db *db, int64_t actor_id, const char *action, const char *target,
                         const char *detail)
{
    sqlite3_stmt *s = db_statement(
        db, "INSERT INTO audit_log (actor_id, action, target, detail, at) VALUES (?, ?, ?, ?, ?)");
    if (!s)
        return DB_FAILED;
    if (actor_id)
        sqlite3_bind_int64(s, 1, actor_id);
    sqlite3_bind_text(s, 2, action, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, target, -1, SQLITE_STATIC);
    if (detail)
        sqlite3_bind_text(s, 4, detail, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 5, db_now_ms());
    return db_run(db, s) ? DB_OK : DB_FAILED;
}

json_t *db_audit_list(struct db *db, int limit)
{
    sqlite3_stmt *s = db_statement(
        db, "SELECT a.at, u.name, a.action, a.target, a.detail FROM audit_log a LEFT JOIN users u "
            "ON u.id = a.actor_id ORDER BY a.id DESC LIMIT ?");
    json_t *list = json_array();
    if (s)
        sqlite3_bind_int(s, 1, limit);
    while (s && sqlite3_step(s) == SQLITE_ROW)
        json_array_append_new(
            list, json_pack("{s:o, s:o, s:o, s:o, s:o}", "at", db_column_time(s, 0), "actor",
                            db_column_text(s, 1), "action", db_column_text(s, 2), "target",
                            db_column_text(s, 3), "detail", db_column_text(s, 4)));
    if (s)
        sqlite3_reset(s);
    return list;
}
