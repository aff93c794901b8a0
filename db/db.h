/*
 * db — kgrade's SQLite store: schema, migrations and queries.
 *
 * What the module promises:
 * - one database file in WAL mode, with foreign keys and a busy timeout;
 * - numbered migrations (db/migrations/, embedded in the binary), applied
 *   at open in one transaction each and recorded with the schema version;
 * - prepared statements only, prepared once per connection; never SQL
 *   built from input;
 * - users, sessions and API tokens (hashes only), submissions with their
 *   results (a regrade adds a result, never replaces one), the queue,
 *   scoreboards and the audit log; nothing submitted is ever lost: a
 *   submission is committed before it is acknowledged, and one left
 *   running by a crash goes back to the queue.
 * A `struct db` is one connection, for one thread at a time; open one per
 * thread. It uses SQLite and jansson only; never HTTP or the grader.
 */
#ifndef KGRADE_DB_H
#define KGRADE_DB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DB_NAME_MAX                64  /* login names */
#define DB_DISPLAY_MAX             128 /* display names */
#define DB_HASH_BYTES              32  /* BLAKE2b of a token or a session cookie */
#define DB_BUSY_MS                 5000
#define DB_TOKEN_USE_RESOLUTION_MS 60000 /* a token's last use is recorded to the minute */

struct db;

/* Opens (creating when missing) the database at `path` and brings its
 * schema up to date. NULL with a sentence in `error`. */
struct db *db_open(const char *path, char *error, size_t error_size);
void db_close(struct db *db);

/* The newest migration applied. */
int db_schema_version(struct db *db);

/* The last error of the connection, as a sentence. */
const char *db_error(struct db *db);

/* Milliseconds since the epoch (what the store records). */
int64_t db_now_ms(void);

/* ------------------------------------------------------------- users */

enum db_role { DB_ROLE_STUDENT, DB_ROLE_INSTRUCTOR, DB_ROLE_ADMIN };

struct db_user {
    int64_t id;
    char name[DB_NAME_MAX];
    char display_name[DB_DISPLAY_MAX];
    enum db_role role;
    bool must_change_password; /* its password was not chosen by its owner */
};

/* What a login name may hold, as a sentence for error messages. */
#define DB_NAME_RULE "1 to 63 characters among a-z, 0-9, '.', '_' and '-', not starting with '-'"
/* Whether `name` may be a login name (DB_NAME_RULE). */
bool db_user_name_valid(const char *name);

const char *db_role_name(enum db_role role);
/* False for a name that is no role. */
bool db_role_parse(const char *name, enum db_role *role);

enum db_outcome {
    DB_OK,
    DB_EXISTS,
    DB_NOT_FOUND,
    DB_FULL, /* a cap on what one user may hold is reached */
    DB_FAILED,
};

/* Adds an account; `password_hash` may be NULL (no password login);
 * `must_change_password` when the password was made up for its owner. */
enum db_outcome db_user_add(struct db *db, const char *name, const char *display_name,
                            enum db_role role, const char *password_hash, bool must_change_password,
                            int64_t *id);
/* The account `name`, and its password hash (empty when none) when `hash`
 * is not NULL. */
enum db_outcome db_user_by_name(struct db *db, const char *name, struct db_user *user, char *hash,
                                size_t hash_size);
enum db_outcome db_user_by_id(struct db *db, int64_t id, struct db_user *user);
/* A new password, and what it ends. */
struct db_password_change {
    const char *password_hash;
    bool must_change;                  /* its owner must choose another at the next login */
    bool end_tokens;                   /* delete the user's API tokens */
    const unsigned char *keep_session; /* the hash of the one session kept; NULL: end all */
};
/* Sets a user's password and, in the same transaction, ends their web
 * sessions (but `keep_session`) and, when asked, their API tokens. */
enum db_outcome db_user_set_password(struct db *db, int64_t id,
                                     const struct db_password_change *change);
/* Every account: [{name, display_name, role, created_at,
 * must_change_password}], by name. */
json_t *db_users_list(struct db *db);
int64_t db_user_count(struct db *db);

/* One account of db_users_add_all. */
struct db_new_user {
    const char *name, *display_name;
    enum db_role role;
    const char *password_hash;
    bool must_change_password;
};
/* An entry of the audit log; actor_id 0: no account (the command line). */
struct db_audit_entry {
    int64_t actor_id;
    const char *action, *target, *detail;
};
/* Adds every account of `users`, and `audit` when not NULL, in one
 * transaction: all or none. DB_EXISTS, with the index of the first name
 * taken in `failed`, when one is. */
enum db_outcome db_users_add_all(struct db *db, const struct db_new_user *users, size_t n,
                                 const struct db_audit_entry *audit, size_t *failed);

/* ------------------------------------------------ tokens and sessions */

/* A new token, unless the user has `live_max` live ones already (DB_FULL;
 * 0: no cap); the user's revoked tokens beyond the newest `live_max` are
 * forgotten, so revoking and creating again does not grow the store. */
enum db_outcome db_token_add(struct db *db, int64_t user_id, const char *name,
                             const unsigned char hash[DB_HASH_BYTES], int64_t live_max,
                             int64_t *id);
/* The owner of a live (not revoked) token; records its use. */
enum db_outcome db_token_user(struct db *db, const unsigned char hash[DB_HASH_BYTES],
                              struct db_user *user);
/* [{id, name, created_at, last_used_at, revoked}] of a user, newest first. */
json_t *db_tokens_list(struct db *db, int64_t user_id);
enum db_outcome db_token_revoke(struct db *db, int64_t user_id, int64_t token_id);

/* A new session; the user's expired ones, and the oldest beyond the newest
 * `per_user`, end in the same transaction. */
enum db_outcome db_session_add(struct db *db, int64_t user_id,
                               const unsigned char hash[DB_HASH_BYTES], const char *csrf,
                               int64_t expires_at, int64_t per_user);
/* The user of a session not expired at `now`, and its CSRF token (csrf
 * holds 65 bytes). */
enum db_outcome db_session_user(struct db *db, const unsigned char hash[DB_HASH_BYTES], int64_t now,
                                struct db_user *user, char *csrf);
enum db_outcome db_session_delete(struct db *db, const unsigned char hash[DB_HASH_BYTES]);

/* ------------------------------------------------------ submissions */

enum db_enqueue {
    DB_ENQUEUED,        /* a new submission, committed */
    DB_DUPLICATE,       /* the same Idempotency-Key and body again: the earlier one's id */
    DB_KEY_MISMATCH,    /* the same Idempotency-Key with another exercise, language or
                         * source: the earlier one's id; nothing queued */
    DB_QUEUE_FULL,      /* `limits->total` submissions already wait */
    DB_USER_QUEUE_FULL, /* `limits->per_user` submissions of this user already wait */
    DB_STORAGE_FULL,    /* the source would take its user past `limits->storage_per_user` */
    DB_ENQUEUE_FAILED,
};

/* How many queued submissions the queue takes, and how many bytes of
 * sources and results (db_user_storage) one user may have stored; 0: no
 * limit. */
struct db_queue_limits {
    int64_t total;
    int64_t per_user;
    int64_t storage_per_user;
};

/* The bytes a user's submissions hold: their sources and all their
 * results (migration 0010 keeps the count); 0 for a user with none. */
int64_t db_user_storage(struct db *db, int64_t user_id);

/* The longest language name stored ("cuda", "numba"). */
#define DB_LANGUAGE_MAX 16

/* A submission to queue. */
struct db_new_submission {
    int64_t user_id;
    const char *exercise;
    const char *language; /* "cuda" or "numba", checked by the caller; NULL: "cuda" */
    const char *source;   /* `size` bytes */
    size_t size;
    const char *idempotency_key; /* NULL: none */
};

/* Queues a submission in one transaction: DB_DUPLICATE or DB_KEY_MISMATCH
 * (db_submission_replay) before any limit, then the limits. */
enum db_enqueue db_submission_add(struct db *db, const struct db_new_submission *submission,
                                  const struct db_queue_limits *limits, int64_t *id);
/* The earlier submission of the user with the submission's
 * Idempotency-Key (not NULL), read only: DB_DUPLICATE with its id when it
 * had the same exercise, language and source (a retry: answer it again),
 * DB_KEY_MISMATCH with its id when not; DB_ENQUEUED when there is none
 * (the submission is new), DB_ENQUEUE_FAILED when it cannot be read. */
enum db_enqueue db_submission_replay(struct db *db, const struct db_new_submission *submission,
                                     int64_t *id);

/* A submission a worker took. */
struct db_job {
    int64_t id, user_id;
    char exercise[DB_NAME_MAX];
    char language[DB_LANGUAGE_MAX]; /* as stored: "cuda" or "numba" */
    char *source;                   /* malloc'ed, `size` bytes and a NUL */
    size_t size;
    int attempt; /* the times it was taken, this one included: 2 after an interruption */
    bool trial;  /* a trial (db_trial_*), not a submission: `id` is the trial's */
};

/* Takes a queued submission or trial (queued -> running, by `worker`),
 * fairly between users: the oldest job of the user with the fewest running
 * jobs, then served least recently, then waiting longest (round-robin);
 * job->trial says which it is. DB_NOT_FOUND when the queue is empty. */
enum db_outcome db_submission_claim(struct db *db, const char *worker, struct db_job *job);
void db_job_free(struct db_job *job);

/* A result for a graded submission (running -> done), kept beside any
 * earlier one. */
struct db_result {
    const char *verdict;
    const char *result_json;
    double student_ms, ratio; /* < 0: none */
    bool assessment;
    const char *exercise_version;
};
enum db_outcome db_submission_finish(struct db *db, int64_t id, const struct db_result *result);

/* Puts submissions left running (by a crash) back in the queue, each
 * keeping its attempts and its place among its user's; their number. */
int64_t db_submissions_requeue_running(struct db *db);
/* Puts one running submission back in the queue, like a crash does (its
 * worker died): it will be taken again, with its attempt counted. */
enum db_outcome db_submission_retry(struct db *db, int64_t id);
/* A submission left running (by a crash) that has been taken `attempts`
 * times or more, without changing it; DB_NOT_FOUND when there is none. */
enum db_outcome db_submission_interrupted(struct db *db, int attempts, struct db_job *job);
/* Puts a done submission back in the queue (a regrade). */
enum db_outcome db_submission_requeue(struct db *db, int64_t id);
/* Every submission of an exercise back in the queue; their number. */
int64_t db_submissions_requeue_exercise(struct db *db, const char *exercise);
/* How many submissions of an exercise a regrade of it would requeue (the
 * graded ones; queued and running ones are graded anyway). */
int64_t db_submissions_regradable(struct db *db, const char *exercise);

/* {id, user, exercise, language, status, queue_position, created_at,
 *  started_at, finished_at, verdict, result, results: [{verdict, created_at}...],
 *  hidden, hidden_reason, hidden_by, hidden_at, late, deadline (its
 *  student's, or null), certificate: {id, course, course_title} of the
 *  certificate this submission earned (its pass completed the course),
 *  else null}; NULL when not found. `with_source` adds "source". */
json_t *db_submission_json(struct db *db, int64_t id, bool with_source);
/* Who submitted it (for access checks). */
enum db_outcome db_submission_owner(struct db *db, int64_t id, int64_t *user_id);
/* A user's submissions, newest first, of one exercise or (NULL) all,
 * without sources or results:
 * [{id, exercise, language, status, created_at, verdict, student_ms, ratio, hidden,
 *   hidden_reason, late}]. */
json_t *db_submissions_of(struct db *db, int64_t user_id, const char *exercise, int limit);
/* 1-based place in the queue of a queued submission, 0 when not queued:
 * the claim at which it will be taken by the claim's rule: exact with one
 * worker while nothing new is queued. A user who arrives goes ahead of
 * every user's later submissions, so a place can move back by one per new
 * user; with several workers (whose jobs end in any order) it is an
 * estimate. */
int64_t db_queue_position(struct db *db, int64_t id);
/* The same for a trial (`trial`) or a submission. */
int64_t db_job_queue_position(struct db *db, bool trial, int64_t id);
/* The queued jobs, submissions and trials. */
int64_t db_queue_length(struct db *db);
/* Hides a submission from the scoreboards, by `actor_id`, with a reason
 * (NULL: none given), or shows it again (hidden false: the reason, who and
 * when are cleared). */
enum db_outcome db_submission_hide(struct db *db, int64_t id, bool hidden, int64_t actor_id,
                                   const char *reason);

/* ------------------------------------------------------------ trials */

/* A trial is a kernel graded at the exercise's correctness sizes without
 * being recorded ("Try at small n"): a table of its own (migration 0008)
 * that no list, scoreboard, gradebook, export or certificate reads. It
 * waits in the submissions' queue by the same fair rule (a db_job with
 * `trial` set) and is deleted DB_TRIAL_KEEP_MS after it finished. */
#define DB_TRIAL_KEEP_MS (60 * 60 * 1000)

/* Queues a trial (db_new_submission's idempotency_key is not used):
 * DB_QUEUE_FULL when `limits->total` jobs wait, DB_USER_QUEUE_FULL when
 * the user has a trial waiting or running already; trials finished more
 * than DB_TRIAL_KEEP_MS ago are deleted in the same transaction. */
enum db_enqueue db_trial_add(struct db *db, const struct db_new_submission *trial,
                             const struct db_queue_limits *limits, int64_t *id);
/* A graded trial (running -> done). */
enum db_outcome db_trial_finish(struct db *db, int64_t id, const char *verdict,
                                const char *result_json);
/* Back in the queue, as db_submission_retry. */
enum db_outcome db_trial_retry(struct db *db, int64_t id);
/* Trials left running by a crash back in the queue, or (taken `attempts`
 * times already) finished with `result_json` (an internal_error's); and
 * the trials whose time is over deleted. The number requeued. */
int64_t db_trials_recover(struct db *db, int attempts, const char *result_json);
/* Who asked for it; DB_NOT_FOUND also once it is deleted. */
enum db_outcome db_trial_owner(struct db *db, int64_t id, int64_t *user_id);
/* {id, exercise, language, status, queue_position, created_at, started_at,
 * finished_at, expires_at, verdict, result}; NULL when there is none (or
 * no more). */
json_t *db_trial_json(struct db *db, int64_t id);

/* ------------------------------------------------------- scoreboards */

/* Each user's best passing, not hidden, assessment-size submission of an
 * exercise, by student time (ties by submission time):
 * [{rank, user (display name), name (login, when `real_names`),
 *   submission, student_ms, ratio, submitted_at}]. */
json_t *db_scoreboard(struct db *db, const char *exercise, bool real_names, int limit);
/* Per user: the exercises among `exercises` they passed at the
 * assessment size: [{user, name?, passed: [ids], count}], most first. */
json_t *db_course_scoreboard(struct db *db, const char *const *exercises, int n_exercises,
                             bool real_names);
/* A number that changes, in the same transaction, whenever anything a
 * scoreboard shows may have changed (results, hidden flags, names): a
 * scoreboard rendered under one version is true while it stays. -1 when
 * it cannot be read. */
int64_t db_scoreboard_version(struct db *db);
/* Per user (one, or every user when `user_id` is 0) and exercise tried:
 * {name, display_name, exercise, status, best_ratio, submissions, late,
 * best_submission, best_at, first_at, newest_submission}, where status is
 * passed (a counted pass: at the assessment size, not late), failed
 * (graded, no counted pass) or pending (nothing graded yet); best_* are of
 * the best counted pass (null when none); late: only late attempts, or a
 * late pass better than the best counted one (the view exercise_standing). */
json_t *db_progress(struct db *db, int64_t user_id);

/* ------------------------------------------------------ certificates */

struct db_certificate_assessment {
    const char *exercise;
    int64_t submission;
    double ratio;
};

/* A user's best counted result of each of `exercises` (passed at the
 * assessment size, not late; lowest ratio); DB_NOT_FOUND when one is
 * missing. */
enum db_outcome db_course_best(struct db *db, int64_t user_id, const char *const *exercises, int n,
                               struct db_certificate_assessment *best);
bool db_certificate_exists(struct db *db, int64_t user_id, const char *course);

struct db_certificate {
    const char *id, *course, *payload, *signature;
    int64_t user_id, issued_at;
    const struct db_certificate_assessment *assessments;
    int n_assessments;
    int64_t earned_by; /* the submission whose pass completed the course; 0: not known */
};
/* Stores a certificate with its assessments, in one transaction;
 * DB_EXISTS (and nothing stored) when the user has one for the course. */
enum db_outcome db_certificate_add(struct db *db, const struct db_certificate *certificate);
/* {id, course, user, payload, signature, issued_at, revoked, revoked_at,
 * revoked_reason}; NULL when there is none. */
json_t *db_certificate_json(struct db *db, const char *id);
/* [{id, course, course_title (as signed), issued_at, revoked}] of a user,
 * oldest first. */
json_t *db_certificates_of(struct db *db, int64_t user_id);
/* {id, course, course_title} of the certificate `submission` earned, or
 * JSON null. */
json_t *db_certificate_earned_by(struct db *db, int64_t submission);
/* Every certificate issued, newest first, at most `limit`:
 * [{id, course, course_title (as signed), user, display_name, issued_at,
 *   revoked, revoked_at, revoked_reason}]. */
json_t *db_certificates_all(struct db *db, int limit);
/* The certificates of a course, by the login of their holder:
 * {NAME: {id, issued_at, revoked}}. */
json_t *db_course_certificates(struct db *db, const char *course);
/* Revokes (keeps) a certificate; DB_NOT_FOUND when none, or revoked already. */
enum db_outcome db_certificate_revoke(struct db *db, const char *id, int64_t actor_id,
                                      const char *reason);

/* ---------------------------------------------------------------- dates */

/* Opening times, deadlines and extensions (migration 0009). The files'
 * dates are synced in by the server; an instructor's override of a
 * course's or an exercise's dates wins over its file until cleared; an
 * exercise's missing dates are its course's. A submission is late when
 * created after its student's deadline (the exercise's, pushed later by an
 * extension on it or on its course), computed when read: the views
 * submission_lateness (late = 0: counted), counted_best and
 * exercise_standing are the one definition the queries share. */
#define DB_NO_TIME INT64_MIN /* no opening time, no deadline */

enum db_scope { DB_SCOPE_COURSE, DB_SCOPE_EXERCISE };
const char *db_scope_name(enum db_scope scope); /* "course", "exercise" */

/* A course's or an exercise's dates as its file gives them. */
struct db_file_date {
    enum db_scope scope;
    const char *name;
    const char *course; /* an exercise's course, or NULL */
    int64_t opens, deadline;
};
/* Replaces what the files say with `rows`, in one transaction. */
enum db_outcome db_file_dates_replace(struct db *db, const struct db_file_date *rows, int n);
/* An instructor's dates for a course or an exercise (DB_NO_TIME: none at
 * that level), kept until cleared, whatever its file says meanwhile. */
enum db_outcome db_dates_override(struct db *db, enum db_scope scope, const char *name,
                                  int64_t opens, int64_t deadline, int64_t actor_id);
/* Back to the file's dates; DB_NOT_FOUND when there was no override. */
enum db_outcome db_dates_clear(struct db *db, enum db_scope scope, const char *name);
/* An exercise's effective dates (DB_NO_TIME when none); DB_NOT_FOUND when
 * the files do not know it. */
enum db_outcome db_exercise_dates(struct db *db, const char *exercise, int64_t *opens,
                                  int64_t *deadline);
/* {"courses": {ID: {opens, deadline, own_opens, own_deadline, overridden,
 * file_opens, file_deadline}}, "exercises": {ID: {course, …the same}}},
 * times as ISO 8601 UTC or null; an exercise's opens/deadline are its
 * effective ones, own_* its level's (override, else file). */
json_t *db_dates(struct db *db);

/* A later deadline for one student on an exercise or a course (granted
 * again: moved); its id. */
enum db_outcome db_extension_grant(struct db *db, int64_t user_id, enum db_scope scope,
                                   const char *name, int64_t deadline, int64_t actor_id,
                                   int64_t *id);
enum db_outcome db_extension_revoke(struct db *db, int64_t id);
/* [{id, user, display_name, scope, name, deadline, granted_by, granted_at}]. */
json_t *db_extensions_list(struct db *db);

/* ------------------------------------------------------------- audit */

/* One entry; actor_id 0 records no actor (the command line). */
enum db_outcome db_audit(struct db *db, int64_t actor_id, const char *action, const char *target,
                         const char *detail);
json_t *db_audit_list(struct db *db, int limit);

#endif
