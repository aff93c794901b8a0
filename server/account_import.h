/*
 * Internal to server/: accounts in bulk, from CSV. One function reads the
 * text, checks every line, and creates every account or none; POST
 * /api/v1/users/import and `kgrade user import` both call it.
 *
 * The text is CSV (csv.h) whose first line names the columns, in any
 * order: `name` (required), `display_name` (empty: the name) and `role`
 * (student, instructor or admin; empty: student). Each account gets a
 * generated password that its owner must change at the first login. A
 * line is refused when its name breaks DB_NAME_RULE, repeats an earlier
 * line's or is taken, its role is unknown or above what the importer may
 * give (only an admin adds admins), its display name is too long or not
 * UTF-8 text, or it has more fields than the header; the file is refused
 * when it is not CSV, has no header, no accounts, or more than
 * ACCOUNT_IMPORT_ROWS_MAX. Every problem is listed with its line, and
 * then nothing is created. Spaces around a field are dropped; lines with
 * every field empty (a spreadsheet's trailing rows) are skipped. One
 * audit entry records the import: "user import", "N accounts", and the
 * names.
 */
#ifndef KGRADE_SERVER_ACCOUNT_IMPORT_H
#define KGRADE_SERVER_ACCOUNT_IMPORT_H

#include "credentials.h"
#include "csv.h"
#include "db/db.h"

#include <jansson.h>

/* Accounts in one import. Each costs an Argon2id hashing (some 75 ms on a
 * laptop core): 40 take 3 s, 1,000 about 75 s. Split larger classes. */
#define ACCOUNT_IMPORT_ROWS_MAX 1000

struct account_import_row {
    int line;
    char name[DB_NAME_MAX];
    char display_name[DB_DISPLAY_MAX];
    enum db_role role;
    char password[GENERATED_PASSWORD_LENGTH + 1];
};

struct account_import_problem {
    int line;
    char text[CSV_PROBLEM_MAX + DB_NAME_MAX];
};

struct account_import {
    struct account_import_row *rows;
    int n_rows, rows_cap;
    struct account_import_problem *problems;
    int n_problems, problems_cap;
};

/* Who imports: their account (0: the command line, no account) and role. */
struct account_importer {
    int64_t id;
    enum db_role role;
};

enum account_import_outcome {
    ACCOUNT_IMPORT_CREATED, /* every row created, with its password */
    ACCOUNT_IMPORT_REFUSED, /* problems listed; nothing created */
    ACCOUNT_IMPORT_FAILED,  /* the database failed; nothing created */
};

/* Reads, checks and creates; `result` (zeroed by the call) holds the rows
 * or the problems. Free it with account_import_free. */
enum account_import_outcome account_import(struct db *db, const char *csv, size_t size,
                                           const struct account_importer *by,
                                           struct account_import *result);
void account_import_free(struct account_import *result);

/* The created accounts as CSV, "name,password" and a line each (malloc'ed). */
char *account_import_passwords_csv(const struct account_import *result, size_t *size);
/* [{name, display_name, role, password}] */
json_t *account_import_users_json(const struct account_import *result);
/* [{line, problem}] */
json_t *account_import_problems_json(const struct account_import *result);

#endif
