/*
 * Unit tests of accounts in bulk (server/account_import.h) on a real
 * database: what is created (defaults, generated passwords that work and
 * must be changed, one audit entry), the forms spreadsheets save (a
 * byte-order mark, CRLF, columns in any order, quoted display names,
 * trailing blank rows), every refusal with its line (bad, repeated and
 * taken names, unknown roles, an admin added by an instructor, extra
 * fields, display names too long or not text, no header, an empty file,
 * a header alone, too many rows, a file that is not CSV), nothing created
 * when anything is refused, and the store's all-or-nothing insert.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "temp_db.h"

#include "server/account_import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct account_importer instructor = {0, DB_ROLE_INSTRUCTOR};
static const struct account_importer admin = {0, DB_ROLE_ADMIN};

struct fixture {
    char path[64];
    struct db *db;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    char error[256];
    snprintf(f->path, sizeof f->path, "/tmp/kgrade-test-import-XXXXXX");
    int fd = mkstemp(f->path);
    if (fd < 0 || !credentials_init())
        return -1;
    close(fd);
    f->db = db_open(f->path, error, sizeof error);
    if (!f->db || db_user_add(f->db, "taken", "Taken", DB_ROLE_STUDENT, NULL, false, NULL) != DB_OK)
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

static enum account_import_outcome import(struct fixture *f, const char *csv,
                                          const struct account_importer *by,
                                          struct account_import *result)
{
    return account_import(f->db, csv, strlen(csv), by, result);
}

/* The problems as "line: text" lines. */
static const char *problems(const struct account_import *r)
{
    static char out[8192];
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < r->n_problems; i++)
        n += (size_t)snprintf(out + n, sizeof out - n, "%d: %s\n", r->problems[i].line,
                              r->problems[i].text);
    return out;
}

/* Refused, with `expected` among the problems, and nothing created. */
static void refused(struct fixture *f, const char *csv, const struct account_importer *by,
                    const char *expected)
{
    struct account_import r;
    int64_t before = db_user_count(f->db);
    assert_int_equal(import(f, csv, by, &r), ACCOUNT_IMPORT_REFUSED);
    if (!strstr(problems(&r), expected))
        fail_msg("wanted \"%s\" among:\n%s", expected, problems(&r));
    assert_int_equal(db_user_count(f->db), before);
    account_import_free(&r);
}

static void test_creates_with_defaults(void **state)
{
    struct fixture *f = *state;
    struct account_import r;
    struct db_user user;
    char hash[PASSWORD_HASH_MAX];
    assert_int_equal(
        import(f, "name,display_name,role\nann,\"Lee, Ann\",\nbob,,instructor\n", &instructor, &r),
        ACCOUNT_IMPORT_CREATED);
    assert_int_equal(r.n_rows, 2);
    assert_int_equal(r.rows[0].line, 2);
    assert_int_equal(strlen(r.rows[0].password), GENERATED_PASSWORD_LENGTH);
    assert_string_not_equal(r.rows[0].password, r.rows[1].password);
    assert_int_equal(db_user_by_name(f->db, "ann", &user, hash, sizeof hash), DB_OK);
    assert_string_equal(user.display_name, "Lee, Ann");
    assert_int_equal(user.role, DB_ROLE_STUDENT);
    assert_true(user.must_change_password);
    assert_true(password_verify(hash, r.rows[0].password));
    assert_int_equal(db_user_by_name(f->db, "bob", &user, NULL, 0), DB_OK);
    assert_string_equal(user.display_name, "bob");
    assert_int_equal(user.role, DB_ROLE_INSTRUCTOR);

    size_t size;
    char *csv = account_import_passwords_csv(&r, &size);
    char expected[128];
    snprintf(expected, sizeof expected, "name,password\nann,%s\nbob,%s\n", r.rows[0].password,
             r.rows[1].password);
    assert_string_equal(csv, expected);
    free(csv);
    json_t *users = account_import_users_json(&r);
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(users, 0), "display_name")), "Lee, Ann");
    assert_string_equal(json_string_value(json_object_get(json_array_get(users, 1), "role")),
                        "instructor");
    assert_string_equal(json_string_value(json_object_get(json_array_get(users, 1), "password")),
                        r.rows[1].password);
    json_decref(users);
    account_import_free(&r);

    json_t *audit = db_audit_list(f->db, 10), *entry = json_array_get(audit, 0);
    assert_int_equal(json_array_size(audit), 1);
    assert_string_equal(json_string_value(json_object_get(entry, "action")), "user import");
    assert_string_equal(json_string_value(json_object_get(entry, "target")), "2 accounts");
    assert_string_equal(json_string_value(json_object_get(entry, "detail")), "ann, bob");
    json_decref(audit);
}

static void test_spreadsheet_forms(void **state)
{
    struct fixture *f = *state;
    struct account_import r;
    struct db_user user;
    const char *csv = "\xEF\xBB\xBFRole, Name ,display_name\r\n"
                      "student, cy ,\"Cy \"\"C\"\" Doe\"\r\n"
                      ",dee,  Dee  \r\n"
                      ",,\r\n"
                      "\r\n\r\n";
    assert_int_equal(import(f, csv, &instructor, &r), ACCOUNT_IMPORT_CREATED);
    assert_int_equal(r.n_rows, 2);
    assert_int_equal(db_user_by_name(f->db, "cy", &user, NULL, 0), DB_OK);
    assert_string_equal(user.display_name, "Cy \"C\" Doe");
    assert_int_equal(db_user_by_name(f->db, "dee", &user, NULL, 0), DB_OK);
    assert_string_equal(user.display_name, "Dee");
    account_import_free(&r);
}

static void test_line_problems(void **state)
{
    struct fixture *f = *state;
    const char *csv = "name,display_name,role\n"
                      "ok1,,\n"              /* 2: fine, yet not created */
                      "Bad Name,,\n"         /* 3 */
                      "taken,,\n"            /* 4 */
                      "ok1,,\n"              /* 5: repeats line 2 */
                      "eve,,teacher\n"       /* 6 */
                      "fay,,admin\n"         /* 7: an instructor imports */
                      "gus,,student,x\n"     /* 8 */
                      ",Nobody,\n"           /* 9 */
                      "hal,\"tab\there\",\n" /* 10 */
                      "ivy,\"\xff\xfe\",\n"; /* 11 */
    refused(f, csv, &instructor, "3: 'Bad Name' is not a login name");
    refused(f, csv, &instructor, "4: there is already a user 'taken'");
    refused(f, csv, &instructor, "5: 'ok1' is also on line 2");
    refused(f, csv, &instructor, "6: no role 'teacher'");
    refused(f, csv, &instructor, "7: only an admin may add an admin");
    refused(f, csv, &instructor, "8: 4 fields where the first line names 3 columns");
    refused(f, csv, &instructor, "9: no name");
    refused(f, csv, &instructor, "10: the display name is not UTF-8 text on one line");
    refused(f, csv, &instructor, "11: the display name is not UTF-8 text on one line");
    struct account_import r;
    assert_int_equal(import(f, csv, &instructor, &r), ACCOUNT_IMPORT_REFUSED);
    assert_int_equal(r.n_problems, 9);
    json_t *lines = account_import_problems_json(&r);
    assert_int_equal(json_array_size(lines), 9); /* every text is JSON-safe */
    assert_int_equal(json_integer_value(json_object_get(json_array_get(lines, 0), "line")), 3);
    json_decref(lines);
    account_import_free(&r);
    assert_int_equal(db_user_by_name(f->db, "ok1", &(struct db_user){0}, NULL, 0), DB_NOT_FOUND);
}

static void test_admin_may_add_admins(void **state)
{
    struct fixture *f = *state;
    struct account_import r;
    assert_int_equal(import(f, "name,role\nroot2,admin\n", &admin, &r), ACCOUNT_IMPORT_CREATED);
    assert_int_equal(r.rows[0].role, DB_ROLE_ADMIN);
    account_import_free(&r);
}

static void test_long_fields(void **state)
{
    struct fixture *f = *state;
    char csv[1024];
    snprintf(csv, sizeof csv, "name,display_name\nlong,%0*d\n%0*d,x\n", DB_DISPLAY_MAX, 0,
             DB_NAME_MAX + 5, 0);
    refused(f, csv, &admin, "2: the display name is over 127 bytes");
    refused(f, csv, &admin, "3: the name is too long");
}

static void test_file_problems(void **state)
{
    struct fixture *f = *state;
    refused(f, "", &admin, "1: the file is empty");
    refused(f, "\n\n", &admin, "1: the file is empty");
    refused(f, "name,display_name,role\n\n", &admin,
            "1: no accounts: the file has only its header");
    refused(f, "ann,Ann,student\n", &admin, "1: 'ann' is no column");
    refused(f, "display_name,role\nAnn,student\n", &admin, "1: no column 'name'");
    refused(f, "name,name\nann,ann\n", &admin, "1: the column 'name' is named twice");
    refused(f, "name\nann\nb\"ob\n", &admin, "3: a double quote inside a field");
    refused(f, "name\n\"ann\n", &admin, "2: a field opened with a double quote is never closed");
}

static void test_too_many_rows(void **state)
{
    struct fixture *f = *state;
    size_t cap = 16 * (ACCOUNT_IMPORT_ROWS_MAX + 2);
    char *csv = malloc(cap);
    size_t n = (size_t)snprintf(csv, cap, "name\n");
    for (int i = 0; i <= ACCOUNT_IMPORT_ROWS_MAX; i++)
        n += (size_t)snprintf(csv + n, cap - n, "s%d\n", i);
    char expected[64];
    snprintf(expected, sizeof expected, "%d: more than %d accounts", ACCOUNT_IMPORT_ROWS_MAX + 2,
             ACCOUNT_IMPORT_ROWS_MAX);
    refused(f, csv, &admin, expected);
    free(csv);
}

static void test_store_adds_all_or_none(void **state)
{
    struct fixture *f = *state;
    struct db_new_user users[] = {
        {"new1", "New 1", DB_ROLE_STUDENT, NULL, true},
        {"taken", "Again", DB_ROLE_STUDENT, NULL, true},
    };
    struct db_audit_entry audit = {0, "user import", "2 accounts", NULL};
    size_t failed = 99;
    int64_t before = db_user_count(f->db);
    assert_int_equal(db_users_add_all(f->db, users, 2, &audit, &failed), DB_EXISTS);
    assert_int_equal(failed, 1);
    assert_int_equal(db_user_count(f->db), before);
    json_t *entries = db_audit_list(f->db, 10);
    assert_int_equal(json_array_size(entries), 0);
    json_decref(entries);
    assert_int_equal(db_users_add_all(f->db, users, 1, &audit, &failed), DB_OK);
    assert_int_equal(db_user_count(f->db), before + 1);
    entries = db_audit_list(f->db, 10);
    assert_true(json_is_null(json_object_get(json_array_get(entries, 0), "actor")));
    json_decref(entries);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_creates_with_defaults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_spreadsheet_forms, setup, teardown),
        cmocka_unit_test_setup_teardown(test_line_problems, setup, teardown),
        cmocka_unit_test_setup_teardown(test_admin_may_add_admins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_file_problems, setup, teardown),
        cmocka_unit_test_setup_teardown(test_too_many_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_store_adds_all_or_none, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
