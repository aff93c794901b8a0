/*
 * Unit tests of the source check (what may reach NVRTC) and of the UTF-8
 * repair used for texts that must become JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/grader.h"
#include "grader/utf8.h"

#include <stdlib.h>
#include <string.h>

static bool check(const char *text, size_t size, char why[GRADER_MESSAGE_MAX])
{
    why[0] = '\0';
    return grader_source_check(text, size, why);
}

static void ordinary_sources_pass(void **state)
{
    (void)state;
    char why[GRADER_MESSAGE_MAX];
    const char *ok = "__global__ void k(int *a) { a[0] = 1; } // caf\xc3\xa9 \xe2\x82\xac "
                     "\xf0\x9f\x9a\x80\n";
    assert_true(check(ok, strlen(ok), why));
    assert_true(check("x", 1, why));
}

static void empty_and_blank_sources_are_refused(void **state)
{
    (void)state;
    char why[GRADER_MESSAGE_MAX];
    assert_false(check("", 0, why));
    assert_non_null(strstr(why, "empty"));
    assert_false(check(" \t\r\n\f\v", 6, why));
    assert_non_null(strstr(why, "empty"));
}

static void size_limit_is_exact(void **state)
{
    (void)state;
    char why[GRADER_MESSAGE_MAX];
    char *big = malloc(GRADER_SOURCE_MAX_BYTES + 1);
    assert_non_null(big);
    memset(big, 'a', GRADER_SOURCE_MAX_BYTES + 1);
    assert_true(check(big, GRADER_SOURCE_MAX_BYTES, why));
    assert_false(check(big, GRADER_SOURCE_MAX_BYTES + 1, why));
    assert_non_null(strstr(why, "65537 bytes"));
    assert_non_null(strstr(why, "65536"));
    free(big);
}

static void nul_byte_is_refused_with_its_line(void **state)
{
    (void)state;
    char why[GRADER_MESSAGE_MAX];
    const char text[] = "line 1\nline 2\nline\0 3\n";
    assert_false(check(text, sizeof text - 1, why));
    assert_non_null(strstr(why, "NUL byte on line 3 (byte 18)"));
}

static void invalid_utf8_is_refused_with_its_line(void **state)
{
    (void)state;
    char why[GRADER_MESSAGE_MAX];
    const char *bad[] = {
        "a\n\x80",                 /* a lone continuation byte */
        "a\n\xc3",                 /* a sequence cut short at the end */
        "a\n\xc3(",                /* a sequence cut short by ASCII */
        "a\n\xc0\xaf",             /* an overlong "/" */
        "a\n\xe0\x80\xaf",         /* an overlong "/" in three bytes */
        "a\n\xed\xa0\x80",         /* a UTF-16 surrogate */
        "a\n\xf4\x90\x80\x80",     /* beyond U+10FFFF */
        "a\n\xf8\x88\x80\x80\x80", /* a five-byte form */
        "a\n\xff",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(check(bad[i], strlen(bad[i]), why));
        assert_non_null(strstr(why, "not valid UTF-8 on line 2 (byte 2)"));
    }
}

static void utf8_sequences_have_their_length(void **state)
{
    (void)state;
    assert_int_equal(utf8_sequence_length((const unsigned char *)"a", 1), 1);
    assert_int_equal(utf8_sequence_length((const unsigned char *)"\xc3\xa9", 2), 2);
    assert_int_equal(utf8_sequence_length((const unsigned char *)"\xc3\xa9", 1), 0);
    assert_int_equal(utf8_sequence_length((const unsigned char *)"\xe2\x82\xac", 3), 3);
    assert_int_equal(utf8_sequence_length((const unsigned char *)"\xf4\x8f\xbf\xbf", 4), 4);
}

static void sanitize_replaces_each_bad_byte(void **state)
{
    (void)state;
    char *s = utf8_sanitize("ok \xff\xfe caf\xc3\xa9\0x", 13);
    assert_non_null(s);
    assert_string_equal(s, "ok \xef\xbf\xbd\xef\xbf\xbd caf\xc3\xa9\xef\xbf\xbdx");
    free(s);
    s = utf8_sanitize("", 0);
    assert_string_equal(s, "");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ordinary_sources_pass),
        cmocka_unit_test(empty_and_blank_sources_are_refused),
        cmocka_unit_test(size_limit_is_exact),
        cmocka_unit_test(nul_byte_is_refused_with_its_line),
        cmocka_unit_test(invalid_utf8_is_refused_with_its_line),
        cmocka_unit_test(utf8_sequences_have_their_length),
        cmocka_unit_test(sanitize_replaces_each_bad_byte),
    };
    return cmocka_run_group_tests_name("source_check", tests, NULL, NULL);
}
