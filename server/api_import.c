/*
 * POST /api/v1/users/import: instructors and admins create accounts in
 * bulk from a CSV body (account_import.h). The answer, 201, is the
 * accounts with their generated passwords, shown this once: CSV
 * (name,password) unless the request asks for JSON with
 * Accept: application/json. A file with problems is refused whole, 422
 * with every problem and its line in the error's "lines".
 */
#include "account_import.h"
#include "api.h"

#include <stdlib.h>

static void answer_created(struct http_request *req, struct http_response *res,
                           const struct account_import *result)
{
    if (http_accepts(req, "application/json")) {
        http_json(res, 201, json_pack("{s:o}", "users", account_import_users_json(result)));
        return;
    }
    size_t size = 0;
    char *csv = account_import_passwords_csv(result, &size);
    if (csv)
        http_text(res, 201, "text/csv; charset=utf-8", csv, size);
    else
        http_error(res, 500, "internal", "out of memory");
}

void api_users_import(struct http_request *req, struct http_response *res)
{
    if (!http_body_is(req, "text/csv")) {
        http_error(res, 415, "unsupported_media_type",
                   "send the accounts as CSV, with Content-Type: text/csv, its first line "
                   "name,display_name,role");
        return;
    }
    struct db *db = http_db(req, res);
    if (!db)
        return;
    struct account_import result;
    struct account_importer by = {req->user.id, req->user.role};
    enum account_import_outcome o = account_import(db, req->body, req->body_size, &by, &result);
    if (o == ACCOUNT_IMPORT_CREATED)
        answer_created(req, res, &result);
    else if (o == ACCOUNT_IMPORT_REFUSED)
        http_error_with(res, 422, "invalid_csv", "lines", account_import_problems_json(&result),
                        "%d problem%s in the file, so no account was created: mend the lines "
                        "listed and send the whole file again",
                        result.n_problems, result.n_problems == 1 ? "" : "s");
    else
        http_error(res, 500, "internal", "the accounts could not be created: %s", db_error(db));
    account_import_free(&result);
}
