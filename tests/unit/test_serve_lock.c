/*
 * Unit tests of the one-server locks (server/serve_lock.c) in a temporary
 * folder: the database's lock is on the file itself, so a hard link of it
 * in another folder, a symlink to it, or the data folder by a symlink are
 * refused while it is held, each refusal naming the holding process (this
 * one: an flock is refused to another open of the file in the same
 * process too); released, the links are served; a new database is made
 * empty and 0600; ":memory:" and "file:" URIs are refused. (A bind mount
 * reaches the same inode as a hard link does; mounting needs root, so
 * the tests use links.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/serve_lock.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct place {
    char root[64];
    char data[PATH_MAX], db[PATH_MAX], other_data[PATH_MAX];
};

static int set_up(void **state)
{
    struct place *p = calloc(1, sizeof *p);
    snprintf(p->root, sizeof p->root, "/tmp/kgrade-lock-XXXXXX");
    if (!mkdtemp(p->root))
        return -1;
    snprintf(p->data, sizeof p->data, "%s/data", p->root);
    snprintf(p->db, sizeof p->db, "%s/data/kgrade.db", p->root);
    snprintf(p->other_data, sizeof p->other_data, "%s/other", p->root);
    if (mkdir(p->data, 0700) != 0 || mkdir(p->other_data, 0700) != 0)
        return -1;
    *state = p;
    return 0;
}

static int tear_down(void **state)
{
    struct place *p = *state;
    char command[PATH_MAX];
    snprintf(command, sizeof command, "rm -rf '%s'", p->root);
    int rc = system(command);
    free(p);
    return rc == 0 ? 0 : -1;
}

/* A path under the temporary root. */
static const char *under(const struct place *p, const char *name, char out[PATH_MAX])
{
    snprintf(out, PATH_MAX, "%s/%s", p->root, name);
    return out;
}

/* Taking the locks of `data` and `db_path` is refused, saying `what` is in
 * use by this process. */
static void assert_refused(const char *data, const char *db_path, const char *what)
{
    int fds[SERVE_LOCKS];
    char error[1024], expected[PATH_MAX + 64];
    assert_false(serve_locks_take(data, db_path, fds, error, sizeof error));
    assert_int_equal(fds[0], -1);
    assert_int_equal(fds[1], -1);
    snprintf(expected, sizeof expected, "%s is in use by kgrade serve, process %ld", what,
             (long)getpid());
    assert_non_null(strstr(error, expected));
    assert_non_null(strstr(error, "stop it first"));
}

static void test_links_of_a_served_database_are_refused(void **state)
{
    struct place *p = *state;
    char hard[PATH_MAX], soft[PATH_MAX], error[1024];
    int held[SERVE_LOCKS], again[SERVE_LOCKS];
    assert_true(serve_locks_take(p->data, p->db, held, error, sizeof error));
    assert_int_equal(link(p->db, under(p, "other/hard.db", hard)), 0);
    assert_int_equal(symlink(p->db, under(p, "soft.db", soft)), 0);
    char what[PATH_MAX + 16];
    snprintf(what, sizeof what, "the database %s", hard);
    assert_refused(p->other_data, hard, what);
    snprintf(what, sizeof what, "the database %s", soft);
    assert_refused(p->other_data, soft, what);
    serve_locks_release(held);
    assert_int_equal(held[0], -1);
    assert_true(serve_locks_take(p->other_data, hard, again, error, sizeof error));
    serve_locks_release(again);
}

static void test_the_data_folder_by_a_symlink_is_refused(void **state)
{
    struct place *p = *state;
    char folder_link[PATH_MAX], elsewhere[PATH_MAX], error[1024];
    int held[SERVE_LOCKS];
    assert_true(serve_locks_take(p->data, p->db, held, error, sizeof error));
    assert_int_equal(symlink(p->data, under(p, "data-link", folder_link)), 0);
    char what[PATH_MAX + 32];
    snprintf(what, sizeof what, "the data folder %s/", folder_link);
    assert_refused(folder_link, under(p, "elsewhere.db", elsewhere), what);
    serve_locks_release(held);
}

static void test_a_new_database_is_made_empty_and_private(void **state)
{
    struct place *p = *state;
    char error[1024];
    int held[SERVE_LOCKS];
    struct stat st;
    assert_int_equal(stat(p->db, &st), -1);
    assert_true(serve_locks_take(p->data, p->db, held, error, sizeof error));
    assert_int_equal(stat(p->db, &st), 0);
    assert_int_equal(st.st_size, 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    serve_locks_release(held);
}

static void test_a_database_that_is_no_file_is_refused(void **state)
{
    struct place *p = *state;
    char error[1024], uri[PATH_MAX + 8];
    int fds[SERVE_LOCKS];
    assert_false(serve_locks_take(p->data, ":memory:", fds, error, sizeof error));
    assert_non_null(strstr(error, "must be a file's path"));
    snprintf(uri, sizeof uri, "file:%s", p->db);
    assert_false(serve_locks_take(p->data, uri, fds, error, sizeof error));
    assert_non_null(strstr(error, "must be a file's path"));
    assert_int_equal(fds[0], -1);
    assert_int_equal(fds[1], -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_links_of_a_served_database_are_refused, set_up,
                                        tear_down),
        cmocka_unit_test_setup_teardown(test_the_data_folder_by_a_symlink_is_refused, set_up,
                                        tear_down),
        cmocka_unit_test_setup_teardown(test_a_new_database_is_made_empty_and_private, set_up,
                                        tear_down),
        cmocka_unit_test_setup_teardown(test_a_database_that_is_no_file_is_refused, set_up,
                                        tear_down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
