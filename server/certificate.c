/*
 * A certificate as a signed document (certificate.h).
 */
#include "certificate.h"
#include "grader/grader.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void certificate_new_id(char id[CERTIFICATE_ID_LENGTH + 1])
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
    unsigned char bits[16];
    randombytes_buf(bits, sizeof bits);
    for (int i = 0; i < CERTIFICATE_ID_LENGTH; i++) {
        int bit = i * 5, value = 0;
        for (int k = 0; k < 5; k++, bit++)
            value = value << 1 | (bit < 128 ? bits[bit / 8] >> (7 - bit % 8) & 1 : 0);
        id[i] = alphabet[value];
    }
    id[CERTIFICATE_ID_LENGTH] = '\0';
}

static json_t *assessment_json(const struct certificate_assessment *a)
{
    char ratio[GRADER_NUMBER_TEXT_MAX];
    return json_pack("{s:s, s:I, s:s}", "exercise", a->exercise, "submission",
                     (json_int_t)a->submission, "ratio", grader_number_text(a->ratio, ratio));
}

char *certificate_payload(const struct certificate_facts *f)
{
    char date[16];
    time_t seconds = (time_t)(f->issued_at_ms / 1000);
    struct tm utc;
    gmtime_r(&seconds, &utc);
    strftime(date, sizeof date, "%Y-%m-%d", &utc);
    json_t *assessments = json_array();
    for (int i = 0; i < f->n_assessments; i++)
        json_array_append_new(assessments, assessment_json(&f->assessments[i]));
    json_t *payload =
        json_pack("{s:s, s:s, s:{s:s, s:s}, s:s, s:s, s:o}", "format", CERTIFICATE_FORMAT, "id",
                  f->id, "course", "id", f->course_id, "title", f->course_title, "student",
                  f->student, "issued_on", date, "assessments", assessments);
    char *text = payload ? json_dumps(payload, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(payload);
    return text;
}

bool certificate_format_known(const char *format)
{
    return format &&
           (strcmp(format, CERTIFICATE_FORMAT) == 0 || strcmp(format, CERTIFICATE_FORMAT_V1) == 0);
}

void certificate_ratio_text(const char *format, const char *ratio, char *out, size_t size)
{
    char text[GRADER_NUMBER_TEXT_MAX];
    char *end = NULL;
    double value = ratio ? strtod(ratio, &end) : 0;
    bool number = ratio && end != ratio && *end == '\0';
    if (number && format && strcmp(format, CERTIFICATE_FORMAT) == 0)
        snprintf(out, size, "%s", grader_ratio_text(value, text));
    else if (number && value == 0) /* /1's two decimals: under 0.005 */
        snprintf(out, size, "under 0.005×, over 200× faster than the reference");
    else
        snprintf(out, size, "%s×", ratio ? ratio : "?");
}

void certificate_sign(const struct signing_key *key, const char *payload,
                      char signature[CERTIFICATE_SIGNATURE_BASE64_MAX])
{
    unsigned char sig[crypto_sign_BYTES];
    crypto_sign_detached(sig, NULL, (const unsigned char *)payload, strlen(payload), key->secret);
    sodium_bin2base64(signature, CERTIFICATE_SIGNATURE_BASE64_MAX, sig, sizeof sig,
                      sodium_base64_VARIANT_ORIGINAL);
}

/* Exactly `size` bytes from standard base64 text. */
static bool decode(const char *text, unsigned char *out, size_t size)
{
    size_t n = 0;
    return text &&
           sodium_base642bin(out, size, text, strlen(text), NULL, &n, NULL,
                             sodium_base64_VARIANT_ORIGINAL) == 0 &&
           n == size;
}

bool certificate_verify(const char *payload, const char *signature, const char *public_key,
                        char *why, size_t why_size)
{
    unsigned char sig[crypto_sign_BYTES], pk[crypto_sign_PUBLICKEYBYTES];
    if (!decode(public_key, pk, sizeof pk)) {
        snprintf(why, why_size, "the public key is not %d bytes of base64",
                 crypto_sign_PUBLICKEYBYTES);
        return false;
    }
    if (!decode(signature, sig, sizeof sig)) {
        snprintf(why, why_size, "the signature is not %d bytes of base64", crypto_sign_BYTES);
        return false;
    }
    if (!payload || crypto_sign_verify_detached(sig, (const unsigned char *)payload,
                                                strlen(payload), pk) != 0) {
        snprintf(why, why_size,
                 "the signature does not match the payload: it was changed, or signed with "
                 "another key");
        return false;
    }
    return true;
}
