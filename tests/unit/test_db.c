/*
 * Unit tests of the store (db/): migrations applied once, accounts,
 * tokens and sessions by hash (capped per user), the queue (committed, idempotent, capped in
 * all and per user, fair between users, requeued after a crash with its
 * attempts counted; a key reused for another request refused), each
 * user's stored bytes and their budget, results kept across regrades, queue positions that
 * match the claim order, a submission's language (stored, kept by a
 * regrade, "cuda" for those from before Numba), scoreboards (best passing assessment result per
 * user, hidden ones left out), class progress and the audit log; dates
 * (the files', overrides, extensions) and lateness computed when read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "temp_db.h"

#include "db/db.h"
#include "db/db_migrations.h"
#include "server/service.h"

#include <sqlite3.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fixture {
    char path[64];
    struct db *db;
    int64_t alice, bob;
};

static const struct db_queue_limits no_limits = {0, 0, 0};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    char error[256];
    snprintf(f->path, sizeof f->path, "/tmp/kgrade-test-db-XXXXXX");
    int fd = mkstemp(f->path);
    if (fd < 0)
        return -1;
    close(fd);
    f->db = db_open(f->path, error, sizeof error);
    if (!f->db ||
        db_user_add(f->db, "alice", "Alice A.", DB_ROLE_STUDENT, NULL, false, &f->alice) != DB_OK ||
        db_user_add(f->db, "bob", "Bob B.", DB_ROLE_STUDENT, NULL, false, &f->bob) != DB_OK)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    db_close(f->db);
    temp_db_remove(f->path);
    free(f);
    return 0;
}

/* A new submission's fields: a source "src" in CUDA C. */
static struct db_new_submission new_submission(int64_t user, const char *exercise,
                                               const char *source, const char *key)
{
    return (struct db_new_submission){.user_id = user,
                                      .exercise = exercise,
                                      .source = source,
                                      .size = strlen(source),
                                      .idempotency_key = key};
}

/* db_submission_add of `source` (in CUDA C) with `limits`. */
static enum db_enqueue add(struct fixture *f, int64_t user, const char *exercise,
                           const char *source, const char *key,
                           const struct db_queue_limits *limits, int64_t *id)
{
    struct db_new_submission n = new_submission(user, exercise, source, key);
    return db_submission_add(f->db, &n, limits, id);
}

static int64_t submit(struct fixture *f, int64_t user, const char *exercise, const char *key)
{
    int64_t id = 0;
    assert_int_equal(add(f, user, exercise, "src", key, &no_limits, &id), DB_ENQUEUED);
    return id;
}

static void grade(struct fixture *f, const char *verdict, double ms, bool assessment)
{
    struct db_job job;
    assert_int_equal(db_submission_claim(f->db, "w1", &job), DB_OK);
    struct db_result r = {verdict, "{\"verdict\": \"x\"}", ms, ms / 2, assessment, "v1"};
    assert_int_equal(db_submission_finish(f->db, job.id, &r), DB_OK);
    db_job_free(&job);
}

static void test_migrations_apply_once(void **state)
{
    struct fixture *f = *state;
    char error[256];
    int newest = db_migrations[db_n_migrations - 1].version;
    assert_int_equal(db_schema_version(f->db), newest);
    struct db *again = db_open(f->path, error, sizeof error);
    assert_non_null(again);
    assert_int_equal(db_schema_version(again), newest);
    assert_int_equal(db_user_count(again), 2); /* the data survived */
    db_close(again);
}

static void test_a_bad_path_says_why(void **state)
{
    (void)state;
    char error[256];
    assert_null(db_open("/nonexistent/folder/k.db", error, sizeof error));
    assert_non_null(strstr(error, "/nonexistent/folder/k.db"));
}

static void test_users(void **state)
{
    struct fixture *f = *state;
    struct db_user u;
    char hash[128];
    assert_int_equal(db_user_add(f->db, "alice", "Other", DB_ROLE_ADMIN, NULL, false, NULL),
                     DB_EXISTS);
    assert_int_equal(
        db_user_add(f->db, "carol", "Carol", DB_ROLE_INSTRUCTOR, "$argon2id$x", true, NULL), DB_OK);
    assert_int_equal(db_user_by_name(f->db, "carol", &u, hash, sizeof hash), DB_OK);
    assert_string_equal(u.display_name, "Carol");
    assert_int_equal(u.role, DB_ROLE_INSTRUCTOR);
    assert_true(u.must_change_password);
    assert_string_equal(hash, "$argon2id$x");
    assert_int_equal(db_user_by_name(f->db, "nobody", &u, NULL, 0), DB_NOT_FOUND);
    struct db_password_change change = {.password_hash = "$argon2id$y"};
    assert_int_equal(db_user_set_password(f->db, u.id, &change), DB_OK);
    assert_int_equal(db_user_by_name(f->db, "carol", &u, hash, sizeof hash), DB_OK);
    assert_false(u.must_change_password);
    assert_string_equal(hash, "$argon2id$y");
    assert_int_equal(db_user_by_id(f->db, f->alice, &u), DB_OK);
    assert_string_equal(u.name, "alice");
    json_t *all = db_users_list(f->db);
    assert_int_equal(json_array_size(all), 3);
    json_decref(all);
    enum db_role role;
    assert_true(db_role_parse("admin", &role) && role == DB_ROLE_ADMIN);
    assert_false(db_role_parse("root", &role));
}

/* The one rule for login names, of the API and of kgrade user add. */
static void test_user_names(void **state)
{
    (void)state;
    assert_true(db_user_name_valid("sam"));
    assert_true(db_user_name_valid("a.b_c-9"));
    assert_true(
        db_user_name_valid("x23456789012345678901234567890123456789012345678901234567890123"));
    assert_false(db_user_name_valid(
        "x234567890123456789012345678901234567890123456789012345678901234")); /* 64 */
    assert_false(db_user_name_valid(""));
    assert_false(db_user_name_valid("Sam")); /* lower case only */
    assert_false(db_user_name_valid("sam smith"));
    assert_false(db_user_name_valid("sam/../x"));
    assert_false(db_user_name_valid("s\xc3\xa9"));
    assert_false(db_user_name_valid("-eve")); /* an option; in a CSV cell, a formula */
    assert_true(db_user_name_valid("eve-"));
}

/* A password change ends sessions (but the one kept) and, when asked, API
 * tokens, in the same transaction; the flag of a password to change
 * reaches the user wherever it is read. */
static void test_password_change_ends_credentials(void **state)
{
    struct fixture *f = *state;
    unsigned char token[DB_HASH_BYTES] = {1}, kept[DB_HASH_BYTES] = {2}, other[DB_HASH_BYTES] = {3};
    unsigned char bobs[DB_HASH_BYTES] = {4};
    int64_t later = db_now_ms() + 60000;
    struct db_user u;
    char csrf[65];
    assert_int_equal(db_token_add(f->db, f->alice, "ci", token, 0, NULL), DB_OK);
    assert_int_equal(db_session_add(f->db, f->alice, kept, "c1", later, 20), DB_OK);
    assert_int_equal(db_session_add(f->db, f->alice, other, "c2", later, 20), DB_OK);
    assert_int_equal(db_session_add(f->db, f->bob, bobs, "c3", later, 20), DB_OK);

    struct db_password_change own = {.password_hash = "$argon2id$own", .keep_session = kept};
    assert_int_equal(db_user_set_password(f->db, f->alice, &own), DB_OK);
    assert_int_equal(db_session_user(f->db, kept, db_now_ms(), &u, csrf), DB_OK);
    assert_int_equal(db_session_user(f->db, other, db_now_ms(), &u, csrf), DB_NOT_FOUND);
    assert_int_equal(db_token_user(f->db, token, &u), DB_OK); /* tokens stay */
    assert_false(u.must_change_password);

    struct db_password_change reset = {
        .password_hash = "$argon2id$made-up", .must_change = true, .end_tokens = true};
    assert_int_equal(db_user_set_password(f->db, f->alice, &reset), DB_OK);
    assert_int_equal(db_session_user(f->db, kept, db_now_ms(), &u, csrf), DB_NOT_FOUND);
    assert_int_equal(db_token_user(f->db, token, &u), DB_NOT_FOUND);
    assert_int_equal(db_session_user(f->db, bobs, db_now_ms(), &u, csrf), DB_OK); /* not bob's */
    assert_int_equal(db_user_by_id(f->db, f->alice, &u), DB_OK);
    assert_true(u.must_change_password);
    assert_int_equal(db_user_set_password(f->db, 9999, &reset), DB_NOT_FOUND);
}

/* A new database file is private: 0600, whatever the umask. */
static void test_new_database_is_private(void **state)
{
    (void)state;
    char dir[] = "/tmp/kgrade-test-db-dir-XXXXXX", path[64], error[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/new.db", dir);
    mode_t old = umask(0);
    struct db *db = db_open(path, error, sizeof error);
    umask(old);
    assert_non_null(db);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    db_close(db);
    unlink(path);
    rmdir(dir);
}

static void test_tokens_and_sessions(void **state)
{
    struct fixture *f = *state;
    unsigned char hash[DB_HASH_BYTES] = {1, 2, 3}, other[DB_HASH_BYTES] = {9};
    int64_t token;
    struct db_user u;
    char csrf[65];
    assert_int_equal(db_token_add(f->db, f->alice, "ci", hash, 0, &token), DB_OK);
    assert_int_equal(db_token_user(f->db, hash, &u), DB_OK);
    assert_int_equal(u.id, f->alice);
    assert_int_equal(db_token_user(f->db, other, &u), DB_NOT_FOUND);
    assert_int_equal(db_token_revoke(f->db, f->bob, token), DB_NOT_FOUND); /* not bob's */
    assert_int_equal(db_token_revoke(f->db, f->alice, token), DB_OK);
    assert_int_equal(db_token_user(f->db, hash, &u), DB_NOT_FOUND);
    json_t *list = db_tokens_list(f->db, f->alice);
    assert_true(json_is_true(json_object_get(json_array_get(list, 0), "revoked")));
    assert_false(json_is_null(json_object_get(json_array_get(list, 0), "last_used_at")));
    json_decref(list);

    int64_t now = db_now_ms();
    assert_int_equal(db_session_add(f->db, f->bob, other, "csrf-token", now + 1000, 20), DB_OK);
    assert_int_equal(db_session_user(f->db, other, now, &u, csrf), DB_OK);
    assert_string_equal(csrf, "csrf-token");
    assert_int_equal(u.id, f->bob);
    assert_int_equal(db_session_user(f->db, other, now + 2000, &u, csrf),
                     DB_NOT_FOUND); /* expired */
    assert_int_equal(db_session_delete(f->db, other), DB_OK);
    assert_int_equal(db_session_user(f->db, other, now, &u, csrf), DB_NOT_FOUND);
}

/* A user holds at most `per_user` sessions: a new one ends the oldest
 * beyond, and the expired ones; another user's are not touched. */
static void test_sessions_per_user_capped(void **state)
{
    struct fixture *f = *state;
    unsigned char hash[DB_HASH_BYTES] = {0}, bobs[DB_HASH_BYTES] = {0xb0};
    int64_t now = db_now_ms();
    struct db_user u;
    char csrf[65];
    assert_int_equal(db_session_add(f->db, f->bob, bobs, "b", now + 100000, 3), DB_OK);
    for (int i = 1; i <= 5; i++) {
        hash[0] = (unsigned char)i;
        assert_int_equal(db_session_add(f->db, f->alice, hash, "a", now + 100000, 3), DB_OK);
    }
    for (int i = 1; i <= 5; i++) {
        hash[0] = (unsigned char)i;
        assert_int_equal(db_session_user(f->db, hash, now, &u, csrf),
                         i <= 2 ? DB_NOT_FOUND : DB_OK); /* the two oldest ended */
    }
    assert_int_equal(db_session_user(f->db, bobs, now, &u, csrf), DB_OK);
    hash[0] = 9; /* a session that expires goes when the user logs in again */
    assert_int_equal(db_session_add(f->db, f->bob, hash, "b", db_now_ms() + 20, 3), DB_OK);
    usleep(50000);
    hash[0] = 10;
    assert_int_equal(db_session_add(f->db, f->bob, hash, "b", now + 100000, 3), DB_OK);
    hash[0] = 9;
    assert_int_equal(db_session_user(f->db, hash, now, &u, csrf), DB_NOT_FOUND); /* gone */
    assert_int_equal(db_session_user(f->db, bobs, now, &u, csrf), DB_OK);
}

/* At most `live_max` live tokens (DB_FULL beyond, until one is revoked);
 * revoked tokens beyond the newest `live_max` are forgotten; 0: no cap. */
static void test_tokens_per_user_capped(void **state)
{
    struct fixture *f = *state;
    unsigned char hash[DB_HASH_BYTES] = {0};
    int64_t ids[3], id = 0;
    for (int i = 0; i < 3; i++) {
        hash[0] = (unsigned char)(i + 1);
        assert_int_equal(db_token_add(f->db, f->alice, "ci", hash, 3, &ids[i]), DB_OK);
    }
    hash[0] = 4;
    assert_int_equal(db_token_add(f->db, f->alice, "ci", hash, 3, &id), DB_FULL);
    assert_int_equal(db_token_add(f->db, f->bob, "ci", hash, 3, &id), DB_OK); /* bob's own */
    assert_int_equal(db_token_revoke(f->db, f->alice, ids[0]), DB_OK);
    for (int i = 0; i < 10; i++) { /* revoke and create, again and again */
        hash[0] = (unsigned char)(10 + i);
        assert_int_equal(db_token_add(f->db, f->alice, "ci", hash, 3, &id), DB_OK);
        assert_int_equal(db_token_revoke(f->db, f->alice, id), DB_OK);
    }
    json_t *list = db_tokens_list(f->db, f->alice);
    assert_int_equal(json_array_size(list), 2 + 3 + 1); /* 2 live, 3 revoked kept, the last */
    json_decref(list);
    hash[0] = 30;
    assert_int_equal(db_token_add(f->db, f->alice, "cli", hash, 0, &id), DB_OK); /* no cap */
}

/* How many of three requests that reuse submission `first`'s key
 * ("key-1", alice's: vector-add, "src", CUDA C) with another source,
 * exercise or language are refused as DB_KEY_MISMATCH naming `first`,
 * queueing nothing. */
static int idempotency_misuses(struct fixture *f, int64_t first)
{
    struct db_new_submission other[3] = {new_submission(f->alice, "vector-add", "src2", "key-1"),
                                         new_submission(f->alice, "histogram", "src", "key-1"),
                                         new_submission(f->alice, "vector-add", "src", "key-1")};
    other[2].language = "numba";
    int refused = 0;
    int64_t queued = db_queue_length(f->db);
    for (int i = 0; i < 3; i++) {
        int64_t id = 0;
        refused +=
            db_submission_add(f->db, &other[i], &no_limits, &id) == DB_KEY_MISMATCH && id == first;
    }
    assert_int_equal(db_queue_length(f->db), queued);
    return refused;
}

static void test_queue(void **state)
{
    struct fixture *f = *state;
    int64_t first = submit(f, f->alice, "vector-add", "key-1"), again = 0;
    assert_int_equal(add(f, f->alice, "vector-add", "src", "key-1", &no_limits, &again),
                     DB_DUPLICATE);
    assert_int_equal(again, first);
    assert_int_equal(idempotency_misuses(f, first), 3);
    int64_t second = submit(f, f->bob, "vector-add", "key-1"); /* another user's key */
    int64_t third = 0;
    struct db_queue_limits two = {.total = 2};
    assert_int_equal(add(f, f->bob, "vector-add", "x", NULL, &two, &third), DB_QUEUE_FULL);
    assert_int_equal(db_queue_length(f->db), 2);
    assert_int_equal(db_queue_position(f->db, first), 1);
    assert_int_equal(db_queue_position(f->db, second), 2);

    struct db_job job;
    assert_int_equal(db_submission_claim(f->db, "w1", &job), DB_OK);
    assert_int_equal(job.id, first); /* oldest first */
    assert_string_equal(job.source, "src");
    db_job_free(&job);
    assert_int_equal(db_queue_position(f->db, second), 1);
    /* a crash: the running one goes back, ahead of alice's later ones (but
     * bob, not served yet, comes first) */
    int64_t later = submit(f, f->alice, "vector-add", NULL);
    assert_int_equal(db_submissions_requeue_running(f->db), 1);
    int64_t order[] = {second, first, later};
    for (int i = 0; i < 3; i++)
        assert_int_equal(db_queue_position(f->db, order[i]), i + 1);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(db_submission_claim(f->db, "w2", &job), DB_OK);
        assert_int_equal(job.id, order[i]);
        assert_int_equal(job.attempt, order[i] == first ? 2 : 1);
        db_job_free(&job);
    }
    assert_int_equal(db_submission_claim(f->db, "w2", &job), DB_NOT_FOUND);
}

/* Takes the next job and finishes it (one worker); its id. */
static int64_t next_graded(struct fixture *f)
{
    struct db_job job;
    assert_int_equal(db_submission_claim(f->db, "w1", &job), DB_OK);
    struct db_result r = {"passed", "{}", 1, 1, true, "v1"};
    assert_int_equal(db_submission_finish(f->db, job.id, &r), DB_OK);
    db_job_free(&job);
    return job.id;
}

/* Round-robin between users: one student's many submissions delay
 * another's first by one job at most, and each queue position is the
 * claim that takes it. */
static void test_the_queue_is_fair(void **state)
{
    struct fixture *f = *state;
    int64_t carol, a[4], b, c[2];
    assert_int_equal(db_user_add(f->db, "carol", "Carol", DB_ROLE_STUDENT, NULL, false, &carol),
                     DB_OK);
    for (int i = 0; i < 4; i++)
        a[i] = submit(f, f->alice, "vector-add", NULL);
    b = submit(f, f->bob, "vector-add", NULL);
    c[0] = submit(f, carol, "vector-add", NULL);
    c[1] = submit(f, carol, "vector-add", NULL);
    int64_t order[] = {a[0], b, c[0], a[1], c[1], a[2], a[3]};
    for (int i = 0; i < 7; i++)
        assert_int_equal(db_queue_position(f->db, order[i]), i + 1);
    for (int i = 0; i < 7; i++)
        assert_int_equal(next_graded(f), order[i]);

    /* two workers: a user with a job running waits for those with none,
     * even when served less recently */
    int64_t a4 = submit(f, f->alice, "vector-add", NULL);
    int64_t b1 = submit(f, f->bob, "vector-add", NULL), b2 = submit(f, f->bob, "x", NULL);
    struct db_job one, two;
    assert_int_equal(db_submission_claim(f->db, "w1", &one), DB_OK);
    assert_int_equal(one.id, b1); /* bob was served less recently than alice */
    assert_int_equal(db_submission_claim(f->db, "w2", &two), DB_OK);
    assert_int_equal(two.id, a4);
    struct db_result r = {"passed", "{}", 1, 1, true, "v1"};
    assert_int_equal(db_submission_finish(f->db, two.id, &r), DB_OK);
    db_job_free(&two);
    int64_t a5 = submit(f, f->alice, "vector-add", NULL);
    assert_int_equal(db_queue_position(f->db, a5), 1);
    assert_int_equal(db_queue_position(f->db, b2), 2);
    assert_int_equal(db_submission_claim(f->db, "w2", &two), DB_OK);
    assert_int_equal(two.id, a5);
    db_job_free(&one);
    db_job_free(&two);
}

static void test_a_user_has_few_waiting(void **state)
{
    struct fixture *f = *state;
    struct db_queue_limits limits = {.total = 100, .per_user = 2};
    int64_t id = 0, first = 0;
    assert_int_equal(add(f, f->alice, "x", "s", "k1", &limits, &first), DB_ENQUEUED);
    assert_int_equal(add(f, f->alice, "x", "s", NULL, &limits, &id), DB_ENQUEUED);
    assert_int_equal(add(f, f->alice, "x", "s", NULL, &limits, &id), DB_USER_QUEUE_FULL);
    assert_int_equal(add(f, f->alice, "x", "s", "k1", &limits, &id),
                     DB_DUPLICATE); /* a retry is answered still */
    assert_int_equal(id, first);
    assert_int_equal(add(f, f->bob, "x", "s", NULL, &limits, &id),
                     DB_ENQUEUED); /* others are not held back */
    struct db_job job;
    assert_int_equal(db_submission_claim(f->db, "w1", &job), DB_OK);
    db_job_free(&job);
    assert_int_equal(add(f, f->alice, "x", "s", NULL, &limits, &id),
                     DB_ENQUEUED); /* a running one does not wait */
    assert_int_equal(db_queue_length(f->db), 3);
}

/* A grading interrupted (its worker died, or the server) is taken again,
 * its attempts counted; a regrade starts the count again. */
static void test_attempts(void **state)
{
    struct fixture *f = *state;
    int64_t id = submit(f, f->alice, "vector-add", NULL);
    struct db_job job;
    assert_int_equal(db_submission_claim(f->db, "w1", &job), DB_OK);
    assert_int_equal(job.attempt, 1);
    db_job_free(&job);
    assert_int_equal(db_submission_interrupted(f->db, 2, &job), DB_NOT_FOUND);
    assert_int_equal(db_submission_retry(f->db, id), DB_OK);
    assert_int_equal(db_submission_retry(f->db, id), DB_NOT_FOUND); /* queued already */
    assert_int_equal(db_submission_claim(f->db, "w1", &job), DB_OK);
    assert_int_equal(job.attempt, 2);
    db_job_free(&job);
    /* the server dies: at start, the one taken twice is found, still running */
    assert_int_equal(db_submission_interrupted(f->db, 2, &job), DB_OK);
    assert_int_equal(job.id, id);
    assert_string_equal(job.source, "src");
    db_job_free(&job);
    json_t *j = db_submission_json(f->db, id, false);
    assert_string_equal(json_string_value(json_object_get(j, "status")), "running");
    json_decref(j);
    struct db_result r = {"internal_error", "{}", -1, -1, false, ""};
    assert_int_equal(db_submission_finish(f->db, id, &r), DB_OK);
    assert_int_equal(db_submission_requeue(f->db, id), DB_OK); /* a regrade */
    assert_int_equal(db_submission_claim(f->db, "w1", &job), DB_OK);
    assert_int_equal(job.attempt, 1);
    db_job_free(&job);
}

/* A submission's language is stored ("cuda" unless told), handed to the
 * worker that takes it, shown, and kept by a regrade. */
static void test_language_stored_and_kept(void **state)
{
    struct fixture *f = *state;
    int64_t cuda = submit(f, f->alice, "vector-add", NULL), numba = 0;
    struct db_new_submission n = new_submission(f->alice, "vector-add", "x = 1", NULL);
    n.language = "numba";
    assert_int_equal(db_submission_add(f->db, &n, &no_limits, &numba), DB_ENQUEUED);
    struct db_job job;
    const char *expected[] = {"cuda", "numba"};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(db_submission_claim(f->db, "w1", &job), DB_OK);
        assert_int_equal(job.id, i == 0 ? cuda : numba);
        assert_string_equal(job.language, expected[i]);
        struct db_result r = {"passed", "{}", 1, 1, true, "v1"};
        assert_int_equal(db_submission_finish(f->db, job.id, &r), DB_OK);
        db_job_free(&job);
    }
    json_t *j = db_submission_json(f->db, numba, false);
    assert_string_equal(json_string_value(json_object_get(j, "language")), "numba");
    json_decref(j);
    json_t *list = db_submissions_of(f->db, f->alice, NULL, 10);
    assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "language")),
                        "numba");
    assert_string_equal(json_string_value(json_object_get(json_array_get(list, 1), "language")),
                        "cuda");
    json_decref(list);
    assert_int_equal(db_submission_requeue(f->db, numba), DB_OK);
    assert_int_equal(db_submission_claim(f->db, "w1", &job), DB_OK);
    assert_string_equal(job.language, "numba");
    db_job_free(&job);
}

/* A database of a server from before Numba (schema 5) with a submission:
 * opened, it gains the language column, and the old submission is CUDA C. */
static void test_old_submissions_are_cuda(void **state)
{
    (void)state;
    char path[] = "/tmp/kgrade-test-db-old-XXXXXX", error[256];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    sqlite3 *old = NULL;
    assert_int_equal(sqlite3_open(path, &old), SQLITE_OK);
    assert_int_equal(sqlite3_exec(old,
                                  "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
                                  "name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    for (int i = 0; i < db_n_migrations && db_migrations[i].version <= 5; i++) {
        char record[160];
        snprintf(record, sizeof record, "INSERT INTO schema_migrations VALUES (%d, '%s', 0)",
                 db_migrations[i].version, db_migrations[i].name);
        assert_int_equal(sqlite3_exec(old, db_migrations[i].sql, NULL, NULL, NULL), SQLITE_OK);
        assert_int_equal(sqlite3_exec(old, record, NULL, NULL, NULL), SQLITE_OK);
    }
    assert_int_equal(
        sqlite3_exec(old,
                     "INSERT INTO users (id, name, display_name, role, created_at) VALUES "
                     "(1, 'old', 'Old', 'student', 0); INSERT INTO submissions (id, user_id, "
                     "exercise, source, status, created_at, queued_at) VALUES (1, 1, "
                     "'vector-add', 'src', 'queued', 0, 0); INSERT INTO results (submission_id, "
                     "verdict, result_json, assessment, exercise_version, created_at) VALUES (1, "
                     "'passed', printf('%.20000c', 'x'), 1, 'v', 0)",
                     NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(old);
    struct db *db = db_open(path, error, sizeof error);
    assert_non_null(db);
    assert_int_equal(db_schema_version(db), db_migrations[db_n_migrations - 1].version);
    json_t *j = db_submission_json(db, 1, false);
    assert_string_equal(json_string_value(json_object_get(j, "language")), "cuda");
    json_decref(j);
    /* counted by the migration: 'src', and a result stored whole before it
     * at most as the server stores one now */
    assert_int_equal(db_user_storage(db, 1), 3 + SERVICE_RESULT_STORED_MAX);
    db_close(db);
    temp_db_remove(path);
}

static void test_storage_per_user(void **state)
{
    struct fixture *f = *state;
    const int64_t result = (int64_t)strlen("{\"verdict\": \"x\"}"); /* grade()'s */
    int64_t id = submit(f, f->alice, "vector-add", "k1"), other = 0;
    assert_int_equal(db_user_storage(f->db, f->alice), 3); /* "src" */
    grade(f, "passed", 1.0, true);
    assert_int_equal(db_submission_requeue(f->db, id), DB_OK);
    grade(f, "passed", 1.0, true); /* a regrade keeps both results */
    int64_t held = 3 + 2 * result;
    assert_int_equal(db_user_storage(f->db, f->alice), held);
    struct db_queue_limits budget = {.storage_per_user = held + 5};
    assert_int_equal(add(f, f->alice, "x", "abcdef", NULL, &budget, &other), DB_STORAGE_FULL);
    assert_int_equal(add(f, f->alice, "vector-add", "src", "k1", &budget, &other), DB_DUPLICATE);
    assert_int_equal(add(f, f->bob, "x", "abcdef", NULL, &budget, &other), DB_ENQUEUED);
    assert_int_equal(db_user_storage(f->db, f->bob), 6); /* others are not held back */
    assert_int_equal(add(f, f->alice, "x", "abcde", NULL, &budget, &other), DB_ENQUEUED);
    assert_int_equal(db_user_storage(f->db, f->alice), held + 5); /* up to the budget exactly */
    assert_int_equal(db_queue_length(f->db), 2);
}

static void test_results_survive_a_regrade(void **state)
{
    struct fixture *f = *state;
    int64_t id = submit(f, f->alice, "vector-add", NULL);
    grade(f, "wrong_answer", 1.0, true);
    assert_int_equal(db_submission_requeue(f->db, id), DB_OK);
    assert_int_equal(db_submission_requeue(f->db, id), DB_NOT_FOUND); /* queued already */
    grade(f, "passed", 1.0, true);
    json_t *j = db_submission_json(f->db, id, true);
    assert_string_equal(json_string_value(json_object_get(j, "verdict")), "passed");
    assert_string_equal(json_string_value(json_object_get(j, "status")), "done");
    assert_string_equal(json_string_value(json_object_get(j, "source")), "src");
    assert_string_equal(json_string_value(json_object_get(j, "user")), "alice");
    json_t *results = json_object_get(j, "results");
    assert_int_equal(json_array_size(results), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(results, 0), "verdict")),
                        "wrong_answer");
    assert_true(json_is_null(json_object_get(j, "queue_position")));
    json_decref(j);
    assert_null(db_submission_json(f->db, 999, false));
    int64_t owner;
    assert_int_equal(db_submission_owner(f->db, id, &owner), DB_OK);
    assert_int_equal(owner, f->alice);
    assert_int_equal(db_submissions_regradable(f->db, "vector-add"), 1);
    assert_int_equal(db_submissions_requeue_exercise(f->db, "vector-add"), 1);
    assert_int_equal(db_submissions_regradable(f->db, "vector-add"), 0); /* queued again */
}

/* A JSON string field of `j`, or NULL when it is null or missing. */
static const char *text_of(json_t *j, const char *key)
{
    return json_string_value(json_object_get(j, key));
}

/* Hidden with a reason: kept with who and when, shown in the submission
 * and its owner's list; shown again, all three are cleared. */
static void test_hidden_with_a_reason(void **state)
{
    struct fixture *f = *state;
    int64_t id = submit(f, f->alice, "vector-add", NULL);
    grade(f, "passed", 1.0, true);
    assert_int_equal(db_submission_hide(f->db, id, true, f->bob, "copied from the reference"),
                     DB_OK);
    json_t *j = db_submission_json(f->db, id, false);
    assert_true(json_is_true(json_object_get(j, "hidden")));
    assert_string_equal(text_of(j, "hidden_reason"), "copied from the reference");
    assert_string_equal(text_of(j, "hidden_by"), "bob");
    assert_non_null(text_of(j, "hidden_at"));
    json_decref(j);
    json_t *list = db_submissions_of(f->db, f->alice, NULL, 10);
    assert_string_equal(text_of(json_array_get(list, 0), "hidden_reason"),
                        "copied from the reference");
    json_decref(list);
    assert_int_equal(db_submission_hide(f->db, id, false, f->bob, "a mistake"), DB_OK);
    j = db_submission_json(f->db, id, false);
    assert_true(json_is_false(json_object_get(j, "hidden")));
    assert_true(json_is_null(json_object_get(j, "hidden_reason")));
    assert_true(json_is_null(json_object_get(j, "hidden_by")));
    assert_true(json_is_null(json_object_get(j, "hidden_at")));
    json_decref(j);
    assert_int_equal(db_submission_hide(f->db, id, true, f->bob, NULL), DB_OK); /* no reason */
    j = db_submission_json(f->db, id, false);
    assert_true(json_is_true(json_object_get(j, "hidden")));
    assert_true(json_is_null(json_object_get(j, "hidden_reason")));
    json_decref(j);
    assert_int_equal(db_submission_hide(f->db, 999, true, f->bob, "x"), DB_NOT_FOUND);
}

static void test_scoreboard(void **state)
{
    struct fixture *f = *state;
    submit(f, f->alice, "transpose", NULL);
    grade(f, "passed", 2.0, true);
    int64_t best = submit(f, f->alice, "transpose", NULL);
    grade(f, "passed", 1.0, true);
    submit(f, f->bob, "transpose", NULL);
    grade(f, "passed", 1.5, true);
    int64_t quick = submit(f, f->bob, "transpose", NULL); /* not an assessment run */
    grade(f, "passed", 0.1, false);
    int64_t slow = submit(f, f->bob, "transpose", NULL);
    grade(f, "too_slow", 0.05, true);
    (void)quick;
    (void)slow;
    json_t *board = db_scoreboard(f->db, "transpose", false, 100);
    assert_int_equal(json_array_size(board), 2);
    json_t *top = json_array_get(board, 0);
    assert_string_equal(json_string_value(json_object_get(top, "user")), "Alice A.");
    assert_int_equal(json_integer_value(json_object_get(top, "submission")), best);
    assert_null(json_object_get(top, "name")); /* real names for instructors only */
    json_decref(board);
    assert_int_equal(db_submission_hide(f->db, best, true, f->bob, NULL), DB_OK);
    board = db_scoreboard(f->db, "transpose", true, 100);
    top = json_array_get(board, 0);
    assert_string_equal(json_string_value(json_object_get(top, "name")), "bob");
    json_decref(board);

    const char *course[] = {"transpose", "histogram"};
    json_t *c = db_course_scoreboard(f->db, course, 2, false);
    assert_int_equal(json_array_size(c), 2);
    json_decref(c);
    json_t *p = db_progress(f->db, 0);
    assert_int_equal(json_array_size(p), 2);
    json_decref(p);
}

/* The scoreboard version moves with what scoreboards show, and only then. */
static void test_scoreboard_version(void **state)
{
    struct fixture *f = *state;
    int64_t v0 = db_scoreboard_version(f->db);
    assert_true(v0 >= 0);
    int64_t id = submit(f, f->alice, "transpose", NULL);
    assert_int_equal(db_scoreboard_version(f->db), v0); /* queued: not on a scoreboard */
    json_t *mine = db_progress(f->db, f->alice);
    assert_int_equal(json_array_size(mine), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(mine, 0), "status")),
                        "pending"); /* nothing graded yet */
    json_decref(mine);
    json_t *theirs = db_submissions_of(f->db, f->alice, "histogram", 10);
    assert_int_equal(json_array_size(theirs), 0); /* another exercise's */
    json_decref(theirs);
    grade(f, "passed", 1.0, true);
    int64_t v1 = db_scoreboard_version(f->db);
    assert_true(v1 > v0);
    unsigned char hash[DB_HASH_BYTES] = {7};
    struct db_user u;
    assert_int_equal(db_token_add(f->db, f->bob, "ci", hash, 0, NULL), DB_OK);
    assert_int_equal(db_token_user(f->db, hash, &u), DB_OK);
    assert_int_equal(db_scoreboard_version(f->db), v1); /* a token's use is not shown */
    assert_int_equal(db_submission_hide(f->db, id, true, f->bob, "copied"), DB_OK);
    int64_t v2 = db_scoreboard_version(f->db);
    assert_true(v2 > v1);
    assert_int_equal(db_submission_requeue(f->db, id), DB_OK);
    grade(f, "wrong_answer", 1.0, true);
    assert_true(db_scoreboard_version(f->db) > v2); /* a regrade's new result */
}

/* One certificate per user and course, whoever stores it first; the
 * best results are the lowest ratios at the assessment size. */
static void test_certificates(void **state)
{
    struct fixture *f = *state;
    const char *course[] = {"transpose", "histogram"};
    struct db_certificate_assessment best[2];
    int64_t slow = submit(f, f->alice, "transpose", NULL);
    grade(f, "passed", 2.0, true);
    int64_t fast = submit(f, f->alice, "transpose", NULL);
    grade(f, "passed", 1.0, true);
    (void)slow;
    assert_int_equal(db_course_best(f->db, f->alice, course, 2, best), DB_NOT_FOUND);
    submit(f, f->alice, "histogram", NULL);
    grade(f, "passed", 1.0, false); /* not at the assessment size: does not count */
    assert_int_equal(db_course_best(f->db, f->alice, course, 2, best), DB_NOT_FOUND);
    int64_t h = submit(f, f->alice, "histogram", NULL);
    grade(f, "passed", 3.0, true);
    assert_int_equal(db_course_best(f->db, f->alice, course, 2, best), DB_OK);
    assert_int_equal(best[0].submission, fast);
    assert_int_equal(best[1].submission, h);
    struct db_certificate c = {.id = "aaaa",
                               .course = "c",
                               .payload = "{}",
                               .signature = "s",
                               .user_id = f->alice,
                               .issued_at = 1,
                               .assessments = best,
                               .n_assessments = 2};
    assert_false(db_certificate_exists(f->db, f->alice, "c"));
    assert_int_equal(db_certificate_add(f->db, &c), DB_OK);
    c.id = "bbbb"; /* another worker, at the same moment */
    assert_int_equal(db_certificate_add(f->db, &c), DB_EXISTS);
    assert_true(db_certificate_exists(f->db, f->alice, "c"));
    json_t *list = db_certificates_of(f->db, f->alice);
    assert_int_equal(json_array_size(list), 1);
    json_decref(list);
    assert_null(db_certificate_json(f->db, "bbbb"));
    assert_int_equal(db_certificate_revoke(f->db, "aaaa", f->bob, "why"), DB_OK);
    assert_int_equal(db_certificate_revoke(f->db, "aaaa", f->bob, "again"), DB_NOT_FOUND);
    json_t *j = db_certificate_json(f->db, "aaaa");
    assert_true(json_is_true(json_object_get(j, "revoked")));
    assert_string_equal(json_string_value(json_object_get(j, "revoked_reason")), "why");
    json_decref(j);
}

/* A trial of `user`'s, queued; its id. */
static int64_t try_kernel(struct fixture *f, int64_t user, enum db_enqueue wanted)
{
    struct db_new_submission n = new_submission(user, "vector-add", "src", NULL);
    int64_t id = 0;
    assert_int_equal(db_trial_add(f->db, &n, &no_limits, &id), wanted);
    return id;
}

/* Trials wait in the submissions' queue by the same fair rule, one a user
 * at a time, and never show among the submissions. */
static void test_trials_share_the_queue_fairly(void **state)
{
    struct fixture *f = *state;
    int64_t a0 = submit(f, f->alice, "vector-add", NULL);
    int64_t a1 = submit(f, f->alice, "vector-add", NULL);
    int64_t t = try_kernel(f, f->bob, DB_ENQUEUED);
    try_kernel(f, f->bob, DB_USER_QUEUE_FULL); /* one waiting already */
    assert_int_equal(db_queue_length(f->db), 3);
    assert_int_equal(db_job_queue_position(f->db, true, t), 2);
    assert_int_equal(db_queue_position(f->db, a1), 3);
    struct db_job job;
    assert_int_equal(db_submission_claim(f->db, "w1", &job), DB_OK);
    assert_true(job.id == a0 && !job.trial);
    db_job_free(&job);
    assert_int_equal(db_submission_claim(f->db, "w1", &job), DB_OK);
    assert_true(job.id == t && job.trial && job.user_id == f->bob);
    assert_string_equal(job.source, "src");
    db_job_free(&job);
    try_kernel(f, f->bob, DB_USER_QUEUE_FULL); /* one running */
    assert_int_equal(db_trial_finish(f->db, t, "passed", "{\"verdict\": \"passed\"}"), DB_OK);
    json_t *j = db_trial_json(f->db, t);
    assert_string_equal(json_string_value(json_object_get(j, "verdict")), "passed");
    assert_true(json_is_string(json_object_get(j, "expires_at")));
    json_decref(j);
    int64_t owner = 0;
    assert_int_equal(db_trial_owner(f->db, t, &owner), DB_OK);
    assert_int_equal(owner, f->bob);
    json_t *mine = db_submissions_of(f->db, f->bob, NULL, 10);
    assert_int_equal(json_array_size(mine), 0);
    json_decref(mine);
    int64_t t2 = try_kernel(f, f->bob, DB_ENQUEUED); /* the first is done: another may come */
    assert_int_equal(db_submission_claim(f->db, "w1", &job), DB_OK);
    assert_true(job.id == t2 && job.trial); /* alice has a0 running: bob's trial first */
    db_job_free(&job);
    assert_int_equal(db_submission_claim(f->db, "w1", &job), DB_OK);
    assert_true(job.id == a1 && !job.trial);
    db_job_free(&job);
}

/* A trial left running by a crash goes back to the queue, and after its
 * last attempt is finished as internal_error. */
static void test_trials_recover(void **state)
{
    struct fixture *f = *state;
    int64_t t = try_kernel(f, f->alice, DB_ENQUEUED);
    struct db_job job;
    assert_int_equal(db_submission_claim(f->db, "w1", &job), DB_OK);
    db_job_free(&job);
    assert_int_equal(db_trials_recover(f->db, 2, "{}"), 1);
    assert_int_equal(db_submission_claim(f->db, "w1", &job), DB_OK);
    assert_true(job.trial && job.id == t && job.attempt == 2);
    db_job_free(&job);
    assert_int_equal(db_trials_recover(f->db, 2, "{\"verdict\": \"internal_error\"}"), 0);
    json_t *j = db_trial_json(f->db, t);
    assert_string_equal(json_string_value(json_object_get(j, "verdict")), "internal_error");
    json_decref(j);
}

/* The submission that earned a certificate names it, with the course's
 * title as signed; the certificates list carries the title too. */
static void test_a_certificate_names_its_submission(void **state)
{
    struct fixture *f = *state;
    int64_t s = submit(f, f->alice, "transpose", NULL);
    grade(f, "passed", 1.0, true);
    struct db_certificate_assessment best[1] = {{"transpose", s, 1.0}};
    struct db_certificate c = {.id = "cccc",
                               .course = "c",
                               .payload = "{\"course\": {\"id\": \"c\", \"title\": \"A course\"}}",
                               .signature = "s",
                               .user_id = f->alice,
                               .issued_at = 1,
                               .assessments = best,
                               .n_assessments = 1,
                               .earned_by = s};
    assert_int_equal(db_certificate_add(f->db, &c), DB_OK);
    json_t *j = db_submission_json(f->db, s, false);
    json_t *earned = json_object_get(j, "certificate");
    assert_string_equal(json_string_value(json_object_get(earned, "id")), "cccc");
    assert_string_equal(json_string_value(json_object_get(earned, "course_title")), "A course");
    json_decref(j);
    int64_t other = submit(f, f->alice, "transpose", NULL);
    j = db_submission_json(f->db, other, false);
    assert_true(json_is_null(json_object_get(j, "certificate")));
    json_decref(j);
    json_t *list = db_certificates_of(f->db, f->alice);
    assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "course_title")),
                        "A course");
    json_decref(list);
}

/* Every certificate, newest first, with its student and the course title
 * it was signed with (null when the payload does not say). */
static void test_every_certificate(void **state)
{
    struct fixture *f = *state;
    struct db_certificate c = {.id = "aaaa",
                               .course = "c",
                               .payload = "{\"course\":{\"id\":\"c\",\"title\":\"Course C\"}}",
                               .signature = "s",
                               .user_id = f->alice,
                               .issued_at = 1};
    assert_int_equal(db_certificate_add(f->db, &c), DB_OK);
    c.id = "bbbb", c.payload = "not json", c.user_id = f->bob, c.issued_at = 2;
    assert_int_equal(db_certificate_add(f->db, &c), DB_OK);
    assert_int_equal(db_certificate_revoke(f->db, "aaaa", f->bob, "why"), DB_OK);
    json_t *all = db_certificates_all(f->db, 10);
    assert_int_equal(json_array_size(all), 2);
    json_t *newest = json_array_get(all, 0), *oldest = json_array_get(all, 1);
    assert_string_equal(text_of(newest, "id"), "bbbb");
    assert_string_equal(text_of(newest, "user"), "bob");
    assert_null(text_of(newest, "course_title"));
    assert_true(json_is_false(json_object_get(newest, "revoked")));
    assert_string_equal(text_of(oldest, "course_title"), "Course C");
    assert_string_equal(text_of(oldest, "display_name"), "Alice A.");
    assert_true(json_is_true(json_object_get(oldest, "revoked")));
    assert_string_equal(text_of(oldest, "revoked_reason"), "why");
    json_decref(all);
    all = db_certificates_all(f->db, 1);
    assert_int_equal(json_array_size(all), 1);
    json_decref(all);
}

static void test_audit(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(db_audit(f->db, f->alice, "hide", "submission 3", "spam"), DB_OK);
    json_t *log = db_audit_list(f->db, 10);
    assert_string_equal(json_string_value(json_object_get(json_array_get(log, 0), "actor")),
                        "alice");
    json_decref(log);
}

/* The files' dates of a course "c" and its exercise "transpose": the
 * course opens at `opens`, the exercise is due at `deadline`. */
static void file_dates(struct fixture *f, int64_t opens, int64_t deadline)
{
    struct db_file_date rows[] = {
        {DB_SCOPE_COURSE, "c", NULL, opens, DB_NO_TIME},
        {DB_SCOPE_EXERCISE, "transpose", "c", DB_NO_TIME, deadline},
        {DB_SCOPE_EXERCISE, "histogram", "c", DB_NO_TIME, DB_NO_TIME},
    };
    assert_int_equal(db_file_dates_replace(f->db, rows, 3), DB_OK);
}

static bool late(struct fixture *f, int64_t id)
{
    json_t *j = db_submission_json(f->db, id, false);
    bool is_late = json_is_true(json_object_get(j, "late"));
    json_decref(j);
    return is_late;
}

/* Dates: the files', an exercise's missing ones from its course, an
 * override that wins until cleared. */
static void test_dates_files_and_overrides(void **state)
{
    struct fixture *f = *state;
    int64_t opens, deadline;
    assert_int_equal(db_exercise_dates(f->db, "transpose", &opens, &deadline), DB_NOT_FOUND);
    file_dates(f, 1000, 5000);
    assert_int_equal(db_exercise_dates(f->db, "transpose", &opens, &deadline), DB_OK);
    assert_int_equal(opens, 1000); /* the course's */
    assert_int_equal(deadline, 5000);
    assert_int_equal(
        db_dates_override(f->db, DB_SCOPE_EXERCISE, "transpose", DB_NO_TIME, 9000, f->bob), DB_OK);
    file_dates(f, 1000, 7000); /* the file changes: the override stays */
    assert_int_equal(db_exercise_dates(f->db, "transpose", &opens, &deadline), DB_OK);
    assert_int_equal(deadline, 9000);
    json_t *d = db_dates(f->db);
    json_t *t = json_object_get(json_object_get(d, "exercises"), "transpose");
    assert_true(json_is_true(json_object_get(t, "overridden")));
    assert_string_equal(json_string_value(json_object_get(t, "file_deadline")),
                        "1970-01-01T00:00:07.000Z");
    assert_string_equal(json_string_value(json_object_get(t, "opens")), "1970-01-01T00:00:01.000Z");
    assert_string_equal(json_string_value(json_object_get(t, "course")), "c");
    assert_true(json_is_null(
        json_object_get(json_object_get(json_object_get(d, "courses"), "c"), "deadline")));
    json_decref(d);
    assert_int_equal(db_dates_clear(f->db, DB_SCOPE_EXERCISE, "transpose"), DB_OK);
    assert_int_equal(db_dates_clear(f->db, DB_SCOPE_EXERCISE, "transpose"), DB_NOT_FOUND);
    assert_int_equal(db_exercise_dates(f->db, "transpose", &opens, &deadline), DB_OK);
    assert_int_equal(deadline, 7000);
}

/* Lateness is computed when read: a moved deadline or an extension
 * changes it for past submissions, and only counted passes make the
 * progress, the best results and the certificates. */
static void test_lateness_and_extensions(void **state)
{
    struct fixture *f = *state;
    int64_t now = db_now_ms(), day = 86400000, xid;
    file_dates(f, DB_NO_TIME, now - day); /* transpose was due yesterday */
    int64_t on_time_fail = submit(f, f->alice, "histogram", NULL);
    grade(f, "wrong_answer", 1.0, true);
    int64_t id = submit(f, f->alice, "transpose", NULL);
    grade(f, "passed", 1.0, true);
    assert_true(late(f, id));
    assert_false(late(f, on_time_fail)); /* histogram has no deadline */
    json_t *mine = db_submissions_of(f->db, f->alice, "transpose", 10);
    assert_true(json_is_true(json_object_get(json_array_get(mine, 0), "late")));
    json_decref(mine);
    const char *course[] = {"transpose"};
    struct db_certificate_assessment best[1];
    assert_int_equal(db_course_best(f->db, f->alice, course, 1, best), DB_NOT_FOUND);
    json_t *p = db_progress(f->db, f->alice);
    json_t *row = json_array_get(p, 1); /* histogram, transpose */
    assert_string_equal(json_string_value(json_object_get(row, "exercise")), "transpose");
    assert_string_equal(json_string_value(json_object_get(row, "status")), "failed");
    assert_true(json_is_true(json_object_get(row, "late")));
    assert_true(json_is_null(json_object_get(row, "best_submission")));
    assert_int_equal(json_integer_value(json_object_get(row, "newest_submission")), id);
    assert_false(json_is_true(json_object_get(json_array_get(p, 0), "late")));
    json_decref(p);

    /* an extension on the course (bob's does not help alice) */
    assert_int_equal(
        db_extension_grant(f->db, f->bob, DB_SCOPE_COURSE, "c", now + day, f->bob, NULL), DB_OK);
    assert_true(late(f, id));
    assert_int_equal(
        db_extension_grant(f->db, f->alice, DB_SCOPE_COURSE, "c", now + day, f->bob, &xid), DB_OK);
    assert_false(late(f, id));
    assert_int_equal(db_course_best(f->db, f->alice, course, 1, best), DB_OK);
    assert_int_equal(best[0].submission, id);
    p = db_progress(f->db, f->alice);
    row = json_array_get(p, 1);
    assert_string_equal(json_string_value(json_object_get(row, "status")), "passed");
    assert_false(json_is_true(json_object_get(row, "late")));
    assert_int_equal(json_integer_value(json_object_get(row, "best_submission")), id);
    assert_true(json_is_string(json_object_get(row, "best_at")));
    json_decref(p);
    json_t *list = db_extensions_list(f->db);
    assert_int_equal(json_array_size(list), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "user")),
                        "alice");
    json_decref(list);
    assert_int_equal(db_extension_revoke(f->db, xid), DB_OK);
    assert_int_equal(db_extension_revoke(f->db, xid), DB_NOT_FOUND);
    assert_true(late(f, id));

    /* the deadline moved later instead: on time again */
    assert_int_equal(db_dates_override(f->db, DB_SCOPE_COURSE, "c", DB_NO_TIME, now + day, f->bob),
                     DB_OK);
    assert_true(late(f, id)); /* the exercise's own deadline wins over its course's */
    assert_int_equal(
        db_dates_override(f->db, DB_SCOPE_EXERCISE, "transpose", DB_NO_TIME, now + day, f->bob),
        DB_OK);
    assert_false(late(f, id));
}

/* A late pass better than the best counted one is marked. */
static void test_late_better_pass_is_marked(void **state)
{
    struct fixture *f = *state;
    int64_t now = db_now_ms();
    file_dates(f, DB_NO_TIME, now + 86400000);
    int64_t counted = submit(f, f->alice, "transpose", NULL);
    grade(f, "passed", 2.0, true);
    assert_int_equal(
        db_dates_override(f->db, DB_SCOPE_EXERCISE, "transpose", DB_NO_TIME, now - 1, f->bob),
        DB_OK); /* `counted` was created at `now` or later: now late too */
    assert_true(late(f, counted));
    assert_int_equal(db_dates_clear(f->db, DB_SCOPE_EXERCISE, "transpose"), DB_OK);
    assert_false(late(f, counted));
    json_t *p = db_progress(f->db, f->alice);
    assert_false(json_is_true(json_object_get(json_array_get(p, 0), "late")));
    json_decref(p);
    int64_t due = db_now_ms(); /* `counted` came at `due` or before */
    file_dates(f, DB_NO_TIME, due);
    usleep(2000);
    int64_t quicker = submit(f, f->alice, "transpose", NULL); /* after `due`: late */
    grade(f, "passed", 1.0, true);
    assert_true(late(f, quicker));
    assert_false(late(f, counted));
    p = db_progress(f->db, f->alice);
    json_t *row = json_array_get(p, 0);
    assert_true(json_is_true(json_object_get(row, "late")));
    assert_int_equal(json_integer_value(json_object_get(row, "best_submission")), counted);
    assert_string_equal(json_string_value(json_object_get(row, "status")), "passed");
    json_decref(p);
    json_t *held = db_course_certificates(f->db, "c");
    assert_int_equal(json_object_size(held), 0);
    json_decref(held);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_migrations_apply_once, setup, teardown),
        cmocka_unit_test(test_a_bad_path_says_why),
        cmocka_unit_test_setup_teardown(test_users, setup, teardown),
        cmocka_unit_test(test_user_names),
        cmocka_unit_test_setup_teardown(test_password_change_ends_credentials, setup, teardown),
        cmocka_unit_test(test_new_database_is_private),
        cmocka_unit_test_setup_teardown(test_tokens_and_sessions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sessions_per_user_capped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tokens_per_user_capped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queue, setup, teardown),
        cmocka_unit_test_setup_teardown(test_the_queue_is_fair, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_user_has_few_waiting, setup, teardown),
        cmocka_unit_test_setup_teardown(test_attempts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_language_stored_and_kept, setup, teardown),
        cmocka_unit_test(test_old_submissions_are_cuda),
        cmocka_unit_test_setup_teardown(test_storage_per_user, setup, teardown),
        cmocka_unit_test_setup_teardown(test_results_survive_a_regrade, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scoreboard, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scoreboard_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_certificates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_audit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trials_share_the_queue_fairly, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trials_recover, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_certificate_names_its_submission, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hidden_with_a_reason, setup, teardown),
        cmocka_unit_test_setup_teardown(test_every_certificate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dates_files_and_overrides, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lateness_and_extensions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_late_better_pass_is_marked, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
