/*
 * Unit tests of the ISO 8601 reader and writer (grader/iso8601.c): the
 * forms the course files and the API take, zones east and west, leap
 * days, and every refusal saying why (no zone above all).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "grader/iso8601.h"
#include "grader/utf8.h"

#include <string.h>

static int64_t parsed(const char *text)
{
    int64_t ms = 0;
    char why[200];
    if (!iso8601_parse(text, &ms, why, sizeof why))
        fail_msg("%s refused: %s", text, why);
    return ms;
}

/* The refusal's sentence, which must contain `part`. */
static void refused(const char *text, const char *part)
{
    int64_t ms = 0;
    char why[200] = "";
    assert_false(iso8601_parse(text, &ms, why, sizeof why));
    if (!strstr(why, part))
        fail_msg("%s: '%s' does not say '%s'", text, why, part);
}

static void test_utc_and_offsets(void **state)
{
    (void)state;
    assert_int_equal(parsed("1970-01-01T00:00:00Z"), 0);
    assert_int_equal(parsed("1970-01-01T00:00Z"), 0);
    assert_int_equal(parsed("2026-12-15T23:59:00+01:00"), parsed("2026-12-15T22:59:00Z"));
    assert_int_equal(parsed("2026-12-15T17:59:00-05:00"), parsed("2026-12-15T22:59:00Z"));
    assert_int_equal(parsed("2026-12-15T23:59:00+0100"), parsed("2026-12-15T22:59:00Z"));
    assert_int_equal(parsed("2026-09-01T00:00:00Z"), INT64_C(1788220800000));
    assert_int_equal(parsed("2026-09-01T00:00:00.25Z"), INT64_C(1788220800250));
    assert_int_equal(parsed("2026-09-01T00:00:00.123456Z"), INT64_C(1788220800123));
    assert_int_equal(parsed("1969-12-31T23:59:59Z"), -1000);
}

static void test_leap_days(void **state)
{
    (void)state;
    assert_int_equal(parsed("2028-03-01T00:00:00Z") - parsed("2028-02-28T00:00:00Z"), 2 * 86400000);
    parsed("2000-02-29T12:00:00Z");
    refused("2100-02-29T12:00:00Z", "no such day");
    refused("2027-02-29T12:00:00Z", "no such day");
    refused("2026-04-31T12:00:00Z", "no such day");
}

static void test_refusals(void **state)
{
    (void)state;
    refused("2026-12-15T23:59:00", "no time zone");
    refused("2026-12-15T23:59", "no time zone");
    refused("2026-12-15", "not a date-time");
    refused("", "not a date-time");
    refused("tomorrow", "not a date-time");
    refused("2026-13-01T00:00:00Z", "not a date-time");
    refused("2026-12-15 23:59:00Z", "not a date-time");
    refused("2026-12-15T24:00:00Z", "no such day or time");
    refused("2026-12-15T23:60:00Z", "no such day or time");
    refused("2026-12-15T23:59:00+25:00", "zone");
    refused("2026-12-15T23:59:00+01", "zone");
    refused("2026-12-15T23:59:00Zjunk", "zone");
    refused("2026-12-15T23:59:00.Z", "not a date-time");
    refused("0000-01-01T00:00:00Z", "not a date-time");
}

/* A refusal quotes at most 40 bytes of the text, never half a character:
 * the sentence becomes JSON text, which must be UTF-8 (a course file with
 * such a date was lost to a NULL, found by fuzz_course). */
static void test_refusal_quotes_whole_characters(void **state)
{
    (void)state;
    const char *text = "0506-09-01T00:00:00.7770000000000000000\xd0\xbf" /* п at bytes 40-41 */
                       "81015865Z";
    int64_t ms;
    char why[200];
    assert_false(iso8601_parse(text, &ms, why, sizeof why));
    assert_true(strstr(why, "'0506-09-01T00:00:00.7770000000000000000' ") == why);
    assert_int_equal(utf8_prefix("ab\xd0\xbf", 3), 2);
    assert_int_equal(utf8_prefix("ab\xd0\xbf", 4), 4);
    assert_int_equal(utf8_prefix("ab\xff", 40), 2);
    assert_int_equal(utf8_prefix("", 40), 0);
}

static void test_format_round_trips(void **state)
{
    (void)state;
    char text[ISO8601_TEXT_MAX];
    iso8601_format(parsed("2026-12-15T23:59:00+01:00"), text);
    assert_string_equal(text, "2026-12-15T22:59:00.000Z");
    iso8601_format(-1, text);
    assert_string_equal(text, "1969-12-31T23:59:59.999Z");
    iso8601_format(parsed("2000-02-29T00:00:00.5Z"), text);
    assert_string_equal(text, "2000-02-29T00:00:00.500Z");
    for (int64_t ms = -86400000LL * 800; ms < 86400000LL * 800 * 40; ms += 86400000LL * 7 + 12345) {
        iso8601_format(ms, text);
        assert_int_equal(parsed(text), ms);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_utc_and_offsets),
        cmocka_unit_test(test_leap_days),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_refusal_quotes_whole_characters),
        cmocka_unit_test(test_format_round_trips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
