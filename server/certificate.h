/*
 * Internal to server/: a certificate as a signed document.
 *
 * The signed payload is canonical JSON, so every implementation can
 * rebuild and check the same bytes: keys sorted, no whitespace, strings
 * in UTF-8 with only JSON's required escapes, no floating-point numbers
 * (ratios are decimal strings). It holds the format, the certificate id,
 * the course's id and title, the student's display name, the date of issue
 * (UTC, YYYY-MM-DD) and the assessments (exercise, submission id, ratio).
 * The signature is Ed25519 over exactly those bytes, in standard base64.
 *
 * Formats: "kgrade-certificate/2", issued now, writes each ratio with three
 * significant figures as grader_number_text() does ("0.00484", "1.03",
 * "207"); "kgrade-certificate/1", issued before, wrote two decimals ("1.03",
 * and "0.00" for anything under 0.005). Both verify.
 */
#ifndef KGRADE_SERVER_CERTIFICATE_H
#define KGRADE_SERVER_CERTIFICATE_H

#include "signing_key.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CERTIFICATE_FORMAT    "kgrade-certificate/2" /* the format issued */
#define CERTIFICATE_FORMAT_V1 "kgrade-certificate/1" /* issued before: two decimals */
#define CERTIFICATE_ID_LENGTH 26                     /* 128 random bits in base32 */
#define CERTIFICATE_SIGNATURE_BASE64_MAX                                                           \
    sodium_base64_ENCODED_LEN(crypto_sign_BYTES, sodium_base64_VARIANT_ORIGINAL)

struct certificate_assessment {
    const char *exercise;
    int64_t submission;
    double ratio;
};

struct certificate_facts {
    const char *id;
    const char *course_id, *course_title;
    const char *student; /* the display name */
    int64_t issued_at_ms;
    const struct certificate_assessment *assessments;
    int n_assessments;
};

/* A fresh id: 128 random bits in lowercase base32 (RFC 4648, no padding). */
void certificate_new_id(char id[CERTIFICATE_ID_LENGTH + 1]);

/* The canonical payload (malloc'ed), or NULL when out of memory. */
char *certificate_payload(const struct certificate_facts *facts);

/* The base64 Ed25519 signature of `payload`. */
void certificate_sign(const struct signing_key *key, const char *payload,
                      char signature[CERTIFICATE_SIGNATURE_BASE64_MAX]);

/* Whether `format` is a certificate format kgrade issues or issued. */
bool certificate_format_known(const char *format);

/* An assessment's signed ratio (a payload's string) as people read it, in
 * `out`: under /2 as grader_ratio_text() words it ("0.00484×, 207× faster
 * than the reference"); under /1 as it was signed ("1.03×"), and "0.00" as
 * what it meant ("under 0.005×, over 200× faster than the reference"). */
void certificate_ratio_text(const char *format, const char *ratio, char *out, size_t size);

/* Whether `signature` (base64) signs `payload` for `public_key` (base64);
 * false with a sentence in `why`. */
bool certificate_verify(const char *payload, const char *signature, const char *public_key,
                        char *why, size_t why_size);

#endif
