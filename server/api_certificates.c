/*
 * Certificates through the API: a user's list (their own; instructors may
 * name anyone with ?user=, or list every one with ?all=true), one certificate for anyone (with the
 * server's own check of its signature), and revocation by an instructor or admin, with a reason,
 * kept and shown, and written to the audit log.
 */
#include "api.h"
#include "certificate.h"

#include <stdio.h>
#include <string.h>

#define CERTIFICATES_LISTED_MAX 10000 /* ?all=true: the newest shown */

/* GET /api/v1/certificates?all=true (instructors): every one issued. */
static void list_all(struct http_request *req, struct http_response *res, struct db *db)
{
    if (req->user.role == DB_ROLE_STUDENT)
        http_error(res, 403, "forbidden", "students see only their own certificates");
    else
        http_json(
            res, 200,
            json_pack("{s:o}", "certificates", db_certificates_all(db, CERTIFICATES_LISTED_MAX)));
}

/* GET /api/v1/certificates?user=me|NAME, or ?all=true */
void api_certificates_list(struct http_request *req, struct http_response *res)
{
    struct db *db = http_db(req, res);
    const char *name = http_query(req, "user"), *all = http_query(req, "all");
    struct db_user who = req->user;
    if (!db)
        return;
    if (all && strcmp(all, "true") == 0) {
        list_all(req, res, db);
        return;
    }
    if (name && strcmp(name, "me") != 0 && strcmp(name, req->user.name) != 0) {
        if (req->user.role == DB_ROLE_STUDENT) {
            http_error(res, 403, "forbidden", "students see only their own certificates");
            return;
        }
        if (db_user_by_name(db, name, &who, NULL, 0) != DB_OK) {
            http_error(res, 404, "not_found", "no user '%.64s'", name);
            return;
        }
    }
    http_json(res, 200, json_pack("{s:o}", "certificates", db_certificates_of(db, who.id)));
}

/* GET /api/v1/certificates/{id}: public; "valid" is the server's check. */
void api_certificate(struct http_request *req, struct http_response *res)
{
    struct db *db = http_db(req, res);
    json_t *c = db ? db_certificate_json(db, req->path_name) : NULL;
    if (!db)
        return;
    if (!c) {
        http_error(res, 404, "not_found", "no certificate '%s'", req->path_name);
        return;
    }
    char key[SIGNING_KEY_BASE64_MAX], why[256];
    signing_key_public_base64(&req->service->signing_key, key);
    bool valid = certificate_verify(json_string_value(json_object_get(c, "payload")),
                                    json_string_value(json_object_get(c, "signature")), key, why,
                                    sizeof why);
    json_object_set_new(c, "signature_valid", json_boolean(valid));
    json_object_set_new(c, "public_key", json_string(key));
    http_json(res, 200, c);
}

/* POST /api/v1/certificates/{id}/revoke {"reason"} */
void api_certificate_revoke(struct http_request *req, struct http_response *res)
{
    json_t *body = http_json_body(req, res);
    struct db *db = body ? http_db(req, res) : NULL;
    const char *reason = json_string_value(json_object_get(body, "reason"));
    if (db && (!reason || !*reason || strlen(reason) > API_REASON_MAX)) {
        http_error(res, 422, "invalid", "give the reason: {\"reason\": \"...\"} (1 to %d bytes)",
                   API_REASON_MAX);
    } else if (db) {
        enum db_outcome o = db_certificate_revoke(db, req->path_name, req->user.id, reason);
        if (o == DB_OK) {
            char target[96];
            snprintf(target, sizeof target, "certificate %s", req->path_name);
            db_audit(db, req->user.id, "certificate revoke", target, reason);
            http_json(res, 200, db_certificate_json(db, req->path_name));
        } else if (o == DB_NOT_FOUND) {
            http_error(res, 404, "not_found", "no live certificate '%s'", req->path_name);
        } else {
            http_error(res, 500, "internal", "the certificate could not be revoked");
        }
    }
    json_decref(body);
}
