/*
 * Unit tests of certificates as signed documents (server/certificate.c)
 * and of the signing key (server/signing_key.c): ids of 128 random bits in
 * base32, the exact canonical payload (kgrade-certificate/2: ratios with
 * three significant figures), a payload of the old format
 * (kgrade-certificate/1) that still verifies and whose ratios read as they
 * were meant, a signature that verifies and one
 * that fails when one byte of the name changes or the key is another, and
 * a key file created with mode 0600, read back the same, and refused when
 * others may read it or it is not a key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/certificate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct certificate_assessment assessments[] = {
    {"hidden-layer", 12, 1.034},
    {"histogram", 40, 0.9},
    {"transpose", 41, 0.0048399},
};

static const struct certificate_facts facts = {
    .id = "abcdefghijklmnopqrstuvwxyz",
    .course_id = "cuda-fundamentals",
    .course_title = "Fundamentals \"CUDA\"",
    .student = "Zoë <b>",
    .issued_at_ms = 1795564799000, /* 2026-11-24 23:59:59 UTC: the date is UTC's */
    .assessments = assessments,
    .n_assessments = 3,
};

static void test_ids(void **state)
{
    (void)state;
    char a[CERTIFICATE_ID_LENGTH + 1], b[CERTIFICATE_ID_LENGTH + 1];
    certificate_new_id(a);
    certificate_new_id(b);
    assert_int_equal(strlen(a), 26);
    assert_int_equal(strspn(a, "abcdefghijklmnopqrstuvwxyz234567"), 26);
    assert_string_not_equal(a, b);
}

static void test_canonical_payload(void **state)
{
    (void)state;
    char *payload = certificate_payload(&facts);
    assert_non_null(payload);
    assert_string_equal(
        payload,
        "{\"assessments\":[{\"exercise\":\"hidden-layer\",\"ratio\":\"1.03\",\"submission\":12},"
        "{\"exercise\":\"histogram\",\"ratio\":\"0.900\",\"submission\":40},"
        "{\"exercise\":\"transpose\",\"ratio\":\"0.00484\",\"submission\":41}],"
        "\"course\":{\"id\":\"cuda-fundamentals\",\"title\":\"Fundamentals \\\"CUDA\\\"\"},"
        "\"format\":\"kgrade-certificate/2\",\"id\":\"abcdefghijklmnopqrstuvwxyz\","
        "\"issued_on\":\"2026-11-24\",\"student\":\"Zoë <b>\"}");
    free(payload);
}

static void test_sign_and_verify(void **state)
{
    (void)state;
    struct signing_key key, other;
    crypto_sign_keypair(key.public_key, key.secret);
    crypto_sign_keypair(other.public_key, other.secret);
    char *payload = certificate_payload(&facts);
    char signature[CERTIFICATE_SIGNATURE_BASE64_MAX], pk[SIGNING_KEY_BASE64_MAX],
        other_pk[SIGNING_KEY_BASE64_MAX], why[256];
    certificate_sign(&key, payload, signature);
    signing_key_public_base64(&key, pk);
    signing_key_public_base64(&other, other_pk);
    assert_true(certificate_verify(payload, signature, pk, why, sizeof why));
    char *name = strstr(payload, "Zo");
    name[0] = 'Y'; /* one byte of the name */
    assert_false(certificate_verify(payload, signature, pk, why, sizeof why));
    assert_non_null(strstr(why, "does not match"));
    name[0] = 'Z';
    assert_false(certificate_verify(payload, signature, other_pk, why, sizeof why));
    assert_false(certificate_verify(payload, "bm90IGEgc2lnbmF0dXJl", pk, why, sizeof why));
    assert_non_null(strstr(why, "signature is not"));
    assert_false(certificate_verify(payload, signature, "%%%", why, sizeof why));
    assert_non_null(strstr(why, "public key"));
    free(payload);
}

/* A payload exactly as kgrade-certificate/1 wrote it (two decimals). */
static const char old_payload[] =
    "{\"assessments\":[{\"exercise\":\"hidden-layer\",\"ratio\":\"1.03\",\"submission\":12},"
    "{\"exercise\":\"histogram\",\"ratio\":\"0.00\",\"submission\":40}],"
    "\"course\":{\"id\":\"cuda-fundamentals\",\"title\":\"Fundamentals\"},"
    "\"format\":\"kgrade-certificate/1\",\"id\":\"abcdefghijklmnopqrstuvwxyz\","
    "\"issued_on\":\"2026-11-24\",\"student\":\"Sam\"}";

static void test_old_format_still_verifies(void **state)
{
    (void)state;
    struct signing_key key;
    crypto_sign_keypair(key.public_key, key.secret);
    char signature[CERTIFICATE_SIGNATURE_BASE64_MAX], pk[SIGNING_KEY_BASE64_MAX], why[256];
    certificate_sign(&key, old_payload, signature);
    signing_key_public_base64(&key, pk);
    assert_true(certificate_verify(old_payload, signature, pk, why, sizeof why));
    assert_true(certificate_format_known(CERTIFICATE_FORMAT_V1));
    assert_true(certificate_format_known("kgrade-certificate/2"));
    assert_false(certificate_format_known("kgrade-certificate/3"));
    assert_false(certificate_format_known(NULL));
}

static void test_ratio_text(void **state)
{
    (void)state;
    static const struct {
        const char *format, *ratio, *text;
    } cases[] = {
        {"kgrade-certificate/2", "0.00484", "0.00484×, 207× faster than the reference"},
        {"kgrade-certificate/2", "1.03", "1.03×"},
        {"kgrade-certificate/1", "1.03", "1.03×"},
        {"kgrade-certificate/1", "0.90", "0.90×"}, /* as signed: no digit it did not sign */
        {"kgrade-certificate/1", "0.00", "under 0.005×, over 200× faster than the reference"},
        {"kgrade-certificate/2", "fast", "fast×"},
    };
    char out[128];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        certificate_ratio_text(cases[i].format, cases[i].ratio, out, sizeof out);
        assert_string_equal(out, cases[i].text);
    }
}

static void test_key_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/kgrade-key-XXXXXX", path[128], why[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/%s", dir, SIGNING_KEY_FILE);
    struct signing_key first, again;
    assert_true(signing_key_load(dir, &first, why, sizeof why));
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_true(signing_key_load(dir, &again, why, sizeof why));
    assert_memory_equal(first.public_key, again.public_key, sizeof first.public_key);
    assert_int_equal(chmod(path, 0644), 0);
    assert_false(signing_key_load(dir, &again, why, sizeof why));
    assert_non_null(strstr(why, "chmod 600"));
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(truncate(path, 10), 0);
    assert_false(signing_key_load(dir, &again, why, sizeof why));
    assert_non_null(strstr(why, "not a signing key"));
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    if (sodium_init() < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ids),
        cmocka_unit_test(test_canonical_payload),
        cmocka_unit_test(test_sign_and_verify),
        cmocka_unit_test(test_old_format_still_verifies),
        cmocka_unit_test(test_ratio_text),
        cmocka_unit_test(test_key_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
