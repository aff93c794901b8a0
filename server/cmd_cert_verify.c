/*
 * `kgrade cert verify FILE.json (--public-key KEY | --server URL)`: checks
 * a certificate as GET /api/v1/certificates/{id} gives it ({id, payload,
 * signature, ...}) without trusting whoever holds it. The Ed25519
 * signature must cover the payload's exact bytes with the service's public
 * key (given in base64, or fetched from the server's
 * /api/v1/certificates/public-key), the payload must be a kgrade
 * certificate (kgrade-certificate/2, or /1 issued before) with the file's
 * id, and it must not be revoked (with --server, as the server says now;
 * offline, as the file says). A valid one is printed with its assessments
 * and their ratios, as people read them (certificate_ratio_text).
 *
 * Exit codes: 0 valid, 1 not valid (saying why), 2 a file that cannot be
 * read or is not a certificate, 4 a server that cannot be reached.
 */
#include "api_client.h"
#include "certificate.h"
#include "cli.h"

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

#define CERTIFICATE_FILE_MAX (1u << 20)

static void say(const char *what, const char *detail)
{
    fprintf(stderr, "kgrade cert verify: %s%s\n", what, detail ? detail : "");
}

/* The public key from --public-key, or from the server; NULL with `code`. */
static json_t *public_key_of(const struct cli_args *args, int *code)
{
    if (cli_given(args, OPT_PUBLIC_KEY))
        return json_string(args->value[OPT_PUBLIC_KEY]);
    char why[512];
    struct api_client *client = api_client_new(args->value[OPT_SERVER], NULL, why, sizeof why);
    if (!client) {
        say(why, NULL);
        *code = CLI_EXIT_USAGE;
        return NULL;
    }
    struct api_reply reply;
    json_t *key = NULL;
    if (api_client_request(client, "GET", "/api/v1/certificates/public-key", NULL, NULL, &reply) &&
        reply.status == 200)
        key = json_incref(json_object_get(reply.body, "public_key"));
    if (!json_is_string(key)) {
        say("the server gave no public key: ", reply.message[0] ? reply.message : "no answer");
        *code = CLI_EXIT_UNREACHABLE;
        json_decref(key);
        key = NULL;
    }
    api_reply_free(&reply);
    api_client_free(client);
    return key;
}

/* The assessments a valid payload signs, one a line with its ratio. */
static void print_assessments(const json_t *p, const char *format)
{
    size_t i;
    json_t *a;
    char ratio[256];
    json_array_foreach(json_object_get(p, "assessments"), i, a)
    {
        certificate_ratio_text(format, json_string_value(json_object_get(a, "ratio")), ratio,
                               sizeof ratio);
        printf("  %s: %s\n", json_string_value(json_object_get(a, "exercise")), ratio);
    }
}

/* Checks the signed payload's own claims against the file's. */
static bool payload_matches(const char *payload, const char *id, char *why, size_t size)
{
    json_t *p = json_loads(payload, 0, NULL);
    const char *format = json_string_value(json_object_get(p, "format"));
    const char *pid = json_string_value(json_object_get(p, "id"));
    bool ok = certificate_format_known(format) && pid && strcmp(pid, id) == 0;
    if (!ok) {
        snprintf(why, size, "the payload is not a %s (or %s) for the certificate %s",
                 CERTIFICATE_FORMAT, CERTIFICATE_FORMAT_V1, id);
    } else {
        printf("VALID: %s, %s, issued on %s (certificate %s)\n",
               json_string_value(json_object_get(json_object_get(p, "course"), "title")),
               json_string_value(json_object_get(p, "student")),
               json_string_value(json_object_get(p, "issued_on")), id);
        print_assessments(p, format);
    }
    json_decref(p);
    return ok;
}

/* With --server: the certificate as the server holds it now (whether it
 * was revoked since the file was saved); NULL when it cannot say. */
static json_t *server_copy(const struct cli_args *args, const char *id)
{
    if (!cli_given(args, OPT_SERVER) || !id || strlen(id) > 64)
        return NULL;
    char why[512], path[128];
    struct api_client *client = api_client_new(args->value[OPT_SERVER], NULL, why, sizeof why);
    struct api_reply reply = {0};
    snprintf(path, sizeof path, "/api/v1/certificates/%s", id);
    json_t *c = NULL;
    if (client && api_client_request(client, "GET", path, NULL, NULL, &reply) &&
        reply.status == 200)
        c = json_incref(reply.body);
    api_reply_free(&reply);
    api_client_free(client);
    return c;
}

static int verify(const json_t *certificate, const char *public_key)
{
    const char *payload = json_string_value(json_object_get(certificate, "payload"));
    const char *signature = json_string_value(json_object_get(certificate, "signature"));
    const char *id = json_string_value(json_object_get(certificate, "id"));
    char why[512];
    if (!payload || !signature || !id) {
        say("not a certificate: it needs \"id\", \"payload\" and \"signature\" (as GET "
            "/api/v1/certificates/ID gives)",
            NULL);
        return CLI_EXIT_USAGE;
    }
    if (!certificate_verify(payload, signature, public_key, why, sizeof why) ||
        !payload_matches(payload, id, why, sizeof why)) {
        printf("NOT VALID: %s\n", why);
        return CLI_EXIT_FAILED;
    }
    if (json_is_true(json_object_get(certificate, "revoked")))
        printf("but REVOKED: %s\n",
               json_string_value(json_object_get(certificate, "revoked_reason"))
                   ? json_string_value(json_object_get(certificate, "revoked_reason"))
                   : "no reason given");
    return json_is_true(json_object_get(certificate, "revoked")) ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}

int cmd_cert_verify(const struct cli_args *args)
{
    json_error_t jerr;
    json_t *certificate = json_load_file(args->positional[0], JSON_REJECT_DUPLICATES, &jerr);
    if (!json_is_object(certificate)) {
        fprintf(stderr, "kgrade cert verify: %s: %s\n", args->positional[0],
                certificate ? "not a JSON object" : jerr.text);
        json_decref(certificate);
        return CLI_EXIT_USAGE;
    }
    int code = CLI_EXIT_INTERNAL;
    bool network = cli_given(args, OPT_SERVER);
    if (sodium_init() < 0 || (network && curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)) {
        json_decref(certificate);
        return CLI_EXIT_INTERNAL;
    }
    json_t *key = public_key_of(args, &code);
    json_t *now =
        key ? server_copy(args, json_string_value(json_object_get(certificate, "id"))) : NULL;
    if (now) { /* the server's word on revocation, not the file's */
        json_object_set(certificate, "revoked", json_object_get(now, "revoked"));
        json_object_set(certificate, "revoked_reason", json_object_get(now, "revoked_reason"));
    }
    json_decref(now);
    if (key)
        code = verify(certificate, json_string_value(key));
    json_decref(key);
    json_decref(certificate);
    if (network)
        curl_global_cleanup();
    return code;
}
