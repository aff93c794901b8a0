/*
 * kgrade user add, kgrade user import and kgrade token create: accounts
 * and API tokens from the command line, straight into the database. Names
 * follow the API's rule (db_user_name_valid); a generated password must be
 * changed by its owner at the first login. An import is the API's
 * (account_import.h), run by no account: it may add admins.
 */
#include "account_import.h"
#include "cli.h"
#include "credentials.h"
#include "db/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PASSWORD_LINE_MAX 1100
#define IMPORT_FILE_MAX                                                                            \
    (1024 * 1024) /* bytes of CSV: far more than ACCOUNT_IMPORT_ROWS_MAX lines */

static struct db *open_db(const struct cli_args *args, const char *command)
{
    char path[2048], error[512];
    cli_db_path(args, path, sizeof path);
    struct db *db = credentials_init() ? db_open(path, error, sizeof error) : NULL;
    if (!db)
        fprintf(stderr, "kgrade %s: %s\n", command, credentials_init() ? error : "no libsodium");
    return db;
}

/* The password from standard input (one line), or a generated one. */
static bool read_password(const struct cli_args *args, char *password, size_t size, bool *generated)
{
    *generated = !cli_given(args, OPT_PASSWORD_STDIN);
    if (*generated) {
        password_random(password, GENERATED_PASSWORD_LENGTH);
        return true;
    }
    if (!fgets(password, (int)size, stdin))
        return false;
    password[strcspn(password, "\r\n")] = '\0';
    return strlen(password) >= PASSWORD_MIN_LENGTH && strlen(password) <= PASSWORD_MAX_LENGTH;
}

int cmd_user_add(const struct cli_args *args)
{
    const char *name = args->positional[0];
    enum db_role role;
    char password[PASSWORD_LINE_MAX], hash[PASSWORD_HASH_MAX];
    bool generated;
    if (!db_user_name_valid(name)) {
        fprintf(stderr, "kgrade user add: '%s' is not a login name: a name is %s\n", name,
                DB_NAME_RULE);
        return CLI_EXIT_USAGE;
    }
    if (!db_role_parse(args->value[OPT_ROLE], &role)) {
        fprintf(stderr, "kgrade user add: --role is student, instructor or admin\n");
        return CLI_EXIT_USAGE;
    }
    if (!read_password(args, password, sizeof password, &generated)) {
        fprintf(stderr, "kgrade user add: give a password of %d to %d characters on one line\n",
                PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH);
        return CLI_EXIT_USAGE;
    }
    struct db *db = open_db(args, "user add");
    if (!db)
        return CLI_EXIT_USAGE;
    enum db_outcome o = password_hash(password, hash)
                            ? db_user_add(db, name, name, role, hash, generated, NULL)
                            : DB_FAILED;
    db_close(db);
    if (o == DB_EXISTS) {
        fprintf(stderr, "kgrade user add: there is already a user '%s'\n", name);
        return CLI_EXIT_FAILED;
    }
    if (o != DB_OK) {
        fprintf(stderr, "kgrade user add: the account could not be created\n");
        return CLI_EXIT_INTERNAL;
    }
    if (generated) {
        printf("%s\n", password);
        fprintf(stderr, "kgrade user add: %s must change this password at the first login\n", name);
    }
    return CLI_EXIT_OK;
}

/* The whole file ("-": standard input), NUL-terminated; NULL with a
 * sentence in `why`. */
static char *read_csv(const char *path, size_t *size, char *why, size_t why_size)
{
    bool from_stdin = strcmp(path, "-") == 0;
    FILE *in = from_stdin ? stdin : fopen(path, "rb");
    char *text = in ? malloc(IMPORT_FILE_MAX + 1) : NULL;
    if (!in || !text) {
        snprintf(why, why_size, "%s cannot be read", path);
        free(text);
        if (in && !from_stdin)
            fclose(in);
        return NULL;
    }
    *size = fread(text, 1, IMPORT_FILE_MAX + 1, in);
    bool failed = ferror(in), too_big = *size > IMPORT_FILE_MAX;
    if (!from_stdin)
        fclose(in);
    if (failed || too_big) {
        snprintf(why, why_size, "%s %s", path,
                 too_big ? "is over 1 MB: split it" : "cannot be read to its end");
        free(text);
        return NULL;
    }
    text[*size] = '\0';
    return text;
}

static int report_import(const char *path, enum account_import_outcome o,
                         const struct account_import *result)
{
    if (o == ACCOUNT_IMPORT_FAILED) {
        fprintf(stderr, "kgrade user import: the accounts could not be created\n");
        return CLI_EXIT_INTERNAL;
    }
    if (o == ACCOUNT_IMPORT_REFUSED) {
        for (int i = 0; i < result->n_problems; i++)
            fprintf(stderr, "kgrade user import: %s, line %d: %s\n", path, result->problems[i].line,
                    result->problems[i].text);
        fprintf(stderr,
                "kgrade user import: nothing was created: mend the lines and run it again\n");
        return CLI_EXIT_FAILED;
    }
    size_t size = 0;
    char *csv = account_import_passwords_csv(result, &size);
    if (csv)
        fwrite(csv, 1, size, stdout);
    free(csv);
    fprintf(stderr,
            "kgrade user import: %d account%s created; each must change its password at the first "
            "login\n",
            result->n_rows, result->n_rows == 1 ? "" : "s");
    return csv ? CLI_EXIT_OK : CLI_EXIT_INTERNAL;
}

int cmd_user_import(const struct cli_args *args)
{
    const char *path = args->positional[0];
    char why[512];
    size_t size = 0;
    char *text = read_csv(path, &size, why, sizeof why);
    if (!text) {
        fprintf(stderr, "kgrade user import: %s\n", why);
        return CLI_EXIT_USAGE;
    }
    struct db *db = open_db(args, "user import");
    if (!db) {
        free(text);
        return CLI_EXIT_USAGE;
    }
    struct account_import result;
    struct account_importer by = {0, DB_ROLE_ADMIN};
    enum account_import_outcome o = account_import(db, text, size, &by, &result);
    db_close(db);
    free(text);
    int code = report_import(strcmp(path, "-") == 0 ? "standard input" : path, o, &result);
    account_import_free(&result);
    return code;
}

int cmd_token_create(const struct cli_args *args)
{
    const char *name = args->positional[0];
    const char *label = cli_given(args, OPT_NAME) ? args->value[OPT_NAME] : "cli";
    struct db *db = open_db(args, "token create");
    struct db_user user;
    char token[CREDENTIAL_TEXT_MAX];
    unsigned char hash[DB_HASH_BYTES];
    if (!db)
        return CLI_EXIT_USAGE;
    enum db_outcome o = db_user_by_name(db, name, &user, NULL, 0);
    if (o == DB_OK)
        o = credential_new("kg_", token, hash) ? db_token_add(db, user.id, label, hash, 0, NULL)
                                               : DB_FAILED;
    db_close(db);
    if (o == DB_NOT_FOUND) {
        fprintf(stderr, "kgrade token create: no user '%s'\n", name);
        return CLI_EXIT_FAILED;
    }
    if (o != DB_OK) {
        fprintf(stderr, "kgrade token create: the token could not be created\n");
        return CLI_EXIT_INTERNAL;
    }
    printf("%s\n", token);
    return CLI_EXIT_OK;
}
