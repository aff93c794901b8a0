/*
 * Internal to server/: reading a Server-Sent Events stream, as `kgrade
 * submit` receives a grading's progress.
 *
 * The parser takes the stream's bytes in whatever pieces the network
 * delivers and hands over each complete event (its name and its data)
 * to a callback. It follows the EventSource rules that matter here:
 * lines end with LF, CRLF or CR (a CRLF split between two pieces is one
 * end), `event:` names the event (default "message"), `data:` lines are
 * joined with LF, a blank line ends the event, lines starting with ':'
 * are comments (keep-alives), other fields are ignored, and an event with
 * no data is not dispatched. An event larger than its cap is dropped
 * whole, never truncated, and counted.
 */
#ifndef KGRADE_SERVER_SSE_PARSER_H
#define KGRADE_SERVER_SSE_PARSER_H

#include <stdbool.h>
#include <stddef.h>

#define SSE_EVENT_NAME_MAX  64         /* longer names are cut to this */
#define SSE_EVENT_BYTES_MAX (1u << 20) /* one event's line and data; beyond: dropped */

/* Receives one event; returns false to stop reading the stream. */
typedef bool (*sse_event_fn)(void *context, const char *event, const char *data, size_t size);

struct sse_parser {
    char *line; /* the line being read, not yet ended */
    size_t line_size, line_cap;
    char *data; /* the data of the event being read */
    size_t data_size, data_cap;
    bool has_data;
    char event[SSE_EVENT_NAME_MAX + 1];
    bool after_cr;         /* the last byte ended a line with CR: a next LF belongs to it */
    bool oversized;        /* the event being read passed SSE_EVENT_BYTES_MAX */
    unsigned long dropped; /* events dropped for their size */
};

void sse_parser_init(struct sse_parser *p);
void sse_parser_free(struct sse_parser *p);

/* Reads `size` more bytes of the stream, calling `fn` for every event they
 * complete. Returns false when `fn` asked to stop or memory ran out (then
 * the parser holds no more than it did). */
bool sse_parser_feed(struct sse_parser *p, const char *bytes, size_t size, sse_event_fn fn,
                     void *context);

#endif
