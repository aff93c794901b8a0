/*
 * Unit tests of the Server-Sent Events reader (server/sse_parser.c): events
 * with names and data, the three line ends (a CRLF split between pieces
 * included), comments and unknown fields, multi-line data, events without
 * data, the default name, an over-long event dropped whole, a callback
 * that stops the stream, and the same events whatever the pieces.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/sse_parser.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The events seen, as "name=data|name=data|". */
struct seen {
    char text[4096];
    int count, stop_after;
};

static bool record(void *context, const char *event, const char *data, size_t size)
{
    struct seen *s = context;
    size_t used = strlen(s->text);
    snprintf(s->text + used, sizeof s->text - used, "%s=%.*s|", event, (int)size, data);
    s->count++;
    return s->stop_after == 0 || s->count < s->stop_after;
}

/* Feeds `stream` in pieces of `piece` bytes (0: whole). */
static struct seen parse(const char *stream, size_t piece)
{
    struct seen s = {.text = ""};
    struct sse_parser p;
    sse_parser_init(&p);
    size_t n = strlen(stream), step = piece ? piece : n;
    for (size_t i = 0; i < n; i += step)
        assert_true(sse_parser_feed(&p, stream + i, n - i < step ? n - i : step, record, &s));
    sse_parser_free(&p);
    return s;
}

static void check_every_split(const char *stream, const char *want)
{
    for (size_t piece = 0; piece <= 7; piece++) {
        struct seen s = parse(stream, piece);
        assert_string_equal(s.text, want);
    }
}

static void test_named_events(void **state)
{
    (void)state;
    check_every_split("event: queued\ndata: {\"position\":2}\n\nevent: done\ndata: {}\n\n",
                      "queued={\"position\":2}|done={}|");
}

static void test_line_ends(void **state)
{
    (void)state;
    check_every_split("event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\revent: c\ndata: 3\n\n",
                      "a=1|b=2|c=3|");
}

static void test_comments_and_unknown_fields(void **state)
{
    (void)state;
    check_every_split(": keep-alive\n\nid: 7\nretry: 10\nevent: x\n: inside\ndata: y\n\n", "x=y|");
}

static void test_multiline_data_and_spaces(void **state)
{
    (void)state;
    check_every_split("data:one\ndata:  two\ndata\n\n", "message=one\n two\n|");
}

static void test_event_without_data_is_not_dispatched(void **state)
{
    (void)state;
    check_every_split("event: nothing\n\ndata: z\n\n", "message=z|");
}

static void test_unfinished_event_waits(void **state)
{
    (void)state;
    check_every_split("event: a\ndata: 1\n", "");
}

static void test_oversized_event_dropped_whole(void **state)
{
    (void)state;
    size_t big = SSE_EVENT_BYTES_MAX + 10;
    char *stream = malloc(big + 64);
    assert_non_null(stream);
    strcpy(stream, "event: huge\ndata: ");
    size_t at = strlen(stream);
    memset(stream + at, 'x', big);
    strcpy(stream + at + big, "\ndata: more\n\nevent: ok\ndata: 1\n\n");
    struct seen s = {.text = ""};
    struct sse_parser p;
    sse_parser_init(&p);
    assert_true(sse_parser_feed(&p, stream, strlen(stream), record, &s));
    assert_string_equal(s.text, "ok=1|");
    assert_int_equal(p.dropped, 1);
    sse_parser_free(&p);
    free(stream);
}

static void test_many_data_lines_over_the_cap_dropped(void **state)
{
    (void)state;
    struct sse_parser p;
    sse_parser_init(&p);
    struct seen s = {.text = ""};
    char line[1024];
    memset(line, 'y', sizeof line);
    memcpy(line, "data: ", 6);
    line[sizeof line - 1] = '\n';
    for (size_t i = 0; i < SSE_EVENT_BYTES_MAX / (sizeof line - 8) + 2; i++)
        assert_true(sse_parser_feed(&p, line, sizeof line, record, &s));
    assert_true(sse_parser_feed(&p, "\ndata: after\n\n", 14, record, &s));
    assert_string_equal(s.text, "message=after|");
    assert_int_equal(p.dropped, 1);
    sse_parser_free(&p);
}

static void test_callback_stops(void **state)
{
    (void)state;
    struct seen s = {.text = "", .stop_after = 1};
    struct sse_parser p;
    sse_parser_init(&p);
    const char *stream = "data: 1\n\ndata: 2\n\n";
    assert_false(sse_parser_feed(&p, stream, strlen(stream), record, &s));
    assert_string_equal(s.text, "message=1|");
    sse_parser_free(&p);
}

static void test_long_name_cut(void **state)
{
    (void)state;
    char stream[256], want[256];
    char name[SSE_EVENT_NAME_MAX + 20];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    snprintf(stream, sizeof stream, "event: %s\ndata: d\n\n", name);
    snprintf(want, sizeof want, "%.*s=d|", SSE_EVENT_NAME_MAX, name);
    check_every_split(stream, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_named_events),
        cmocka_unit_test(test_line_ends),
        cmocka_unit_test(test_comments_and_unknown_fields),
        cmocka_unit_test(test_multiline_data_and_spaces),
        cmocka_unit_test(test_event_without_data_is_not_dispatched),
        cmocka_unit_test(test_unfinished_event_waits),
        cmocka_unit_test(test_oversized_event_dropped_whole),
        cmocka_unit_test(test_many_data_lines_over_the_cap_dropped),
        cmocka_unit_test(test_callback_stops),
        cmocka_unit_test(test_long_name_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
