/*
 * Accounts in bulk from CSV (account_import.h): the header, the checks of
 * each line, and the one transaction that creates them all.
 */
#include "account_import.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define COLUMN_ABSENT -1
#define HEADER_TEXT   "name,display_name,role"

/* Where each known column is in the file. */
struct columns {
    int name, display_name, role;
    int count;
};

/* UTF-8 (what jansson accepts) with no control characters. */
static bool printable_text(const char *text)
{
    for (const char *p = text; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return false;
    json_t *string = json_string(text);
    json_decref(string);
    return string != NULL;
}

static void problem(struct account_import *r, int line, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void problem(struct account_import *r, int line, const char *format, ...)
{
    if (r->n_problems == r->problems_cap) {
        int cap = r->problems_cap ? 2 * r->problems_cap : 16;
        void *grown = realloc(r->problems, (size_t)cap * sizeof *r->problems);
        if (!grown)
            return; /* the ones listed already refuse the file */
        r->problems = grown;
        r->problems_cap = cap;
    }
    struct account_import_problem *p = &r->problems[r->n_problems++];
    p->line = line;
    va_list ap;
    va_start(ap, format);
    vsnprintf(p->text, sizeof p->text, format, ap);
    va_end(ap);
    if (!printable_text(p->text)) /* it quotes bytes of the file that are not text */
        for (char *c = p->text; *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
                *c = '?';
}

/* A field without the spaces around it, into `out`; false when it does
 * not fit. A missing field (a short line) is empty. */
static bool trimmed(const struct csv_record *record, int column, char *out, size_t size)
{
    const char *text = column >= 0 && column < record->n_fields ? record->field[column] : "";
    size_t n = strlen(text);
    while (n && isspace((unsigned char)text[n - 1]))
        n--;
    while (n && isspace((unsigned char)*text))
        text++, n--;
    if (n >= size)
        return false;
    memcpy(out, text, n);
    out[n] = '\0';
    return true;
}

static bool set_column(struct account_import *r, int line, const char *name, int *column, int index)
{
    if (*column != COLUMN_ABSENT) {
        problem(r, line, "the column '%s' is named twice", name);
        return false;
    }
    *column = index;
    return true;
}

/* The first line: which column is which. */
static bool read_header(struct account_import *r, const struct csv_record *record,
                        struct columns *c)
{
    char word[CSV_PROBLEM_MAX];
    bool ok = true;
    *c = (struct columns){COLUMN_ABSENT, COLUMN_ABSENT, COLUMN_ABSENT, record->n_fields};
    for (int i = 0; i < record->n_fields && i < CSV_FIELDS_MAX; i++) {
        if (!trimmed(record, i, word, sizeof word))
            word[0] = '\0';
        if (strcasecmp(word, "name") == 0)
            ok &= set_column(r, record->line, "name", &c->name, i);
        else if (strcasecmp(word, "display_name") == 0)
            ok &= set_column(r, record->line, "display_name", &c->display_name, i);
        else if (strcasecmp(word, "role") == 0)
            ok &= set_column(r, record->line, "role", &c->role, i);
        else {
            problem(r, record->line,
                    "'%.60s' is no column: the first line names the columns, " HEADER_TEXT, word);
            ok = false;
        }
    }
    if (record->n_fields > CSV_FIELDS_MAX) {
        problem(r, record->line, "%d columns: the columns are " HEADER_TEXT, record->n_fields);
        ok = false;
    } else if (ok && c->name == COLUMN_ABSENT) {
        problem(r, record->line,
                "no column 'name': the first line names the columns, " HEADER_TEXT);
        ok = false;
    }
    return ok;
}

static bool all_empty(const struct csv_record *record)
{
    char word[2];
    for (int i = 0; i < record->n_fields && i < CSV_FIELDS_MAX; i++)
        if (!trimmed(record, i, word, sizeof word) || word[0])
            return false;
    return true;
}

static void check_name(struct account_import *r, struct db *db, int line, const char *name)
{
    struct db_user user;
    if (!name[0]) {
        problem(r, line, "no name");
        return;
    }
    if (!db_user_name_valid(name)) {
        problem(r, line, "'%s' is not a login name: a name is " DB_NAME_RULE, name);
        return;
    }
    for (int i = 0; i < r->n_rows; i++)
        if (strcmp(r->rows[i].name, name) == 0) {
            problem(r, line, "'%s' is also on line %d", name, r->rows[i].line);
            return;
        }
    if (db_user_by_name(db, name, &user, NULL, 0) == DB_OK)
        problem(r, line, "there is already a user '%s'", name);
}

static void check_role(struct account_import *r, int line, const char *text,
                       const struct account_importer *by, enum db_role *role)
{
    *role = DB_ROLE_STUDENT;
    if (text[0] && !db_role_parse(text, role))
        problem(r, line, "no role '%.40s': student, instructor or admin (empty: student)", text);
    else if (*role == DB_ROLE_ADMIN && by->role != DB_ROLE_ADMIN)
        problem(r, line, "only an admin may add an admin");
}

static void check_display_name(struct account_import *r, int line, bool fits, const char *text)
{
    if (!fits)
        problem(r, line, "the display name is over %d bytes", DB_DISPLAY_MAX - 1);
    else if (!printable_text(text))
        problem(r, line, "the display name is not UTF-8 text on one line");
}

static struct account_import_row *new_row(struct account_import *r)
{
    if (r->n_rows == r->rows_cap) {
        int cap = r->rows_cap ? 2 * r->rows_cap : 64;
        void *grown = realloc(r->rows, (size_t)cap * sizeof *r->rows);
        if (!grown)
            return NULL;
        r->rows = grown;
        r->rows_cap = cap;
    }
    struct account_import_row *row = &r->rows[r->n_rows];
    memset(row, 0, sizeof *row);
    return row;
}

/* One line after the header: a row to create, or its problems. */
static void read_row(struct account_import *r, struct db *db, const struct account_importer *by,
                     const struct csv_record *record, const struct columns *c)
{
    char role[32];
    int line = record->line;
    struct account_import_row *row = new_row(r);
    if (!row) {
        problem(r, line, "out of memory");
        return;
    }
    row->line = line;
    if (record->n_fields > c->count)
        problem(r, line, "%d fields where the first line names %d columns", record->n_fields,
                c->count);
    if (!trimmed(record, c->name, row->name, sizeof row->name))
        problem(r, line, "the name is too long: a name is " DB_NAME_RULE);
    else
        check_name(r, db, line, row->name);
    if (!trimmed(record, c->role, role, sizeof role))
        snprintf(role, sizeof role, "%s", "(a long text)");
    check_role(r, line, role, by, &row->role);
    bool fits = trimmed(record, c->display_name, row->display_name, sizeof row->display_name);
    check_display_name(r, line, fits, row->display_name);
    if (!row->display_name[0])
        snprintf(row->display_name, sizeof row->display_name, "%s", row->name);
    r->n_rows++; /* kept with its problems too: a later line may repeat its name */
}

/* Every line into rows, or problems. */
static void read_all(struct account_import *r, struct db *db, const char *csv, size_t size,
                     const struct account_importer *by)
{
    struct csv_reader reader;
    struct csv_record record;
    struct columns columns;
    char why[CSV_PROBLEM_MAX];
    int accounts = 0;
    csv_reader_init(&reader, csv, size);
    enum csv_read got = csv_read(&reader, &record, why);
    if (got == CSV_END)
        problem(r, 1, "the file is empty: its first line names the columns, " HEADER_TEXT);
    if (got == CSV_RECORD && read_header(r, &record, &columns)) {
        while ((got = csv_read(&reader, &record, why)) == CSV_RECORD) {
            if (all_empty(&record))
                continue;
            if (++accounts > ACCOUNT_IMPORT_ROWS_MAX) {
                problem(r, record.line, "more than %d accounts: split the file",
                        ACCOUNT_IMPORT_ROWS_MAX);
                break;
            }
            read_row(r, db, by, &record, &columns);
        }
        if (got == CSV_END && accounts == 0)
            problem(r, record.line, "no accounts: the file has only its header");
    }
    if (got == CSV_BAD)
        problem(r, record.line, "%s", why);
    csv_reader_free(&reader);
}

/* The names, comma-separated, for the audit log (malloc'ed). */
static char *names_of(const struct account_import *r)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out)
        return NULL;
    for (int i = 0; i < r->n_rows; i++)
        fprintf(out, "%s%s", i ? ", " : "", r->rows[i].name);
    fclose(out);
    return text;
}

/* Passwords made and hashed (before the transaction, which then holds
 * the write lock only for the inserts), then every account at once. */
static enum account_import_outcome create_all(struct account_import *r, struct db *db,
                                              const struct account_importer *by)
{
    struct db_new_user *users = calloc((size_t)r->n_rows, sizeof *users);
    char(*hashes)[PASSWORD_HASH_MAX] = calloc((size_t)r->n_rows, sizeof *hashes);
    char target[64], *names = names_of(r);
    size_t failed = 0;
    enum db_outcome o = users && hashes && names ? DB_OK : DB_FAILED;
    for (int i = 0; o == DB_OK && i < r->n_rows; i++) {
        struct account_import_row *row = &r->rows[i];
        password_random(row->password, GENERATED_PASSWORD_LENGTH);
        if (!password_hash(row->password, hashes[i]))
            o = DB_FAILED;
        users[i] = (struct db_new_user){row->name, row->display_name, row->role, hashes[i], true};
    }
    snprintf(target, sizeof target, "%d accounts", r->n_rows);
    struct db_audit_entry audit = {by->id, "user import", target, names};
    if (o == DB_OK)
        o = db_users_add_all(db, users, (size_t)r->n_rows, &audit, &failed);
    if (o == DB_EXISTS) /* made meanwhile, by someone else */
        problem(r, r->rows[failed].line, "there is already a user '%s'", r->rows[failed].name);
    free(users);
    free(hashes);
    free(names);
    return o == DB_OK       ? ACCOUNT_IMPORT_CREATED
           : o == DB_EXISTS ? ACCOUNT_IMPORT_REFUSED
                            : ACCOUNT_IMPORT_FAILED;
}

enum account_import_outcome account_import(struct db *db, const char *csv, size_t size,
                                           const struct account_importer *by,
                                           struct account_import *result)
{
    memset(result, 0, sizeof *result);
    read_all(result, db, csv, size, by);
    if (result->n_problems)
        return ACCOUNT_IMPORT_REFUSED;
    enum account_import_outcome outcome = create_all(result, db, by);
    if (outcome != ACCOUNT_IMPORT_CREATED)
        for (int i = 0; i < result->n_rows; i++)
            result->rows[i].password[0] = '\0'; /* no account has it */
    return outcome;
}

void account_import_free(struct account_import *result)
{
    free(result->rows);
    free(result->problems);
    memset(result, 0, sizeof *result);
}

char *account_import_passwords_csv(const struct account_import *result, size_t *size)
{
    char *text = NULL;
    FILE *out = open_memstream(&text, size);
    if (!out)
        return NULL;
    fputs("name,password\n", out);
    for (int i = 0; i < result->n_rows; i++) {
        csv_field(out, result->rows[i].name, false);
        csv_field(out, result->rows[i].password, true);
    }
    fclose(out);
    return text;
}

json_t *account_import_users_json(const struct account_import *result)
{
    json_t *users = json_array();
    for (int i = 0; i < result->n_rows; i++) {
        const struct account_import_row *row = &result->rows[i];
        json_array_append_new(users, json_pack("{s:s, s:s, s:s, s:s}", "name", row->name,
                                               "display_name", row->display_name, "role",
                                               db_role_name(row->role), "password", row->password));
    }
    return users;
}

json_t *account_import_problems_json(const struct account_import *result)
{
    json_t *lines = json_array();
    for (int i = 0; i < result->n_problems; i++)
        json_array_append_new(lines, json_pack("{s:i, s:s}", "line", result->problems[i].line,
                                               "problem", result->problems[i].text));
    return lines;
}
