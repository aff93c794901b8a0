/*
 * Reading a Server-Sent Events stream (sse_parser.h).
 *
 * Bytes gather into a line; each ended line is one field of the event
 * being read; a blank line dispatches it. Memory stays bounded by
 * SSE_EVENT_BYTES_MAX whatever the server sends: an over-long event is
 * skipped up to its blank line.
 */
#include "sse_parser.h"

#include <stdlib.h>
#include <string.h>

void sse_parser_init(struct sse_parser *p)
{
    memset(p, 0, sizeof *p);
}

void sse_parser_free(struct sse_parser *p)
{
    free(p->line);
    free(p->data);
    memset(p, 0, sizeof *p);
}

/* Makes room for `more` bytes and a NUL at the end of a buffer. */
static bool reserve(char **buffer, size_t *cap, size_t used, size_t more)
{
    if (used + more + 1 <= *cap)
        return true;
    size_t grown = *cap ? *cap : 256;
    while (grown < used + more + 1)
        grown *= 2;
    char *b = realloc(*buffer, grown);
    if (!b)
        return false;
    *buffer = b;
    *cap = grown;
    return true;
}

static void reset_event(struct sse_parser *p)
{
    p->data_size = 0;
    p->has_data = false;
    p->event[0] = '\0';
    p->oversized = false;
}

static bool dispatch(struct sse_parser *p, sse_event_fn fn, void *context)
{
    bool go_on = true;
    if (p->oversized)
        p->dropped++;
    else if (p->has_data) {
        p->data[p->data_size] = '\0';
        go_on = fn(context, p->event[0] ? p->event : "message", p->data, p->data_size);
    }
    reset_event(p);
    return go_on;
}

static bool add_data(struct sse_parser *p, const char *value, size_t n)
{
    size_t extra = n + (p->has_data ? 1 : 0);
    if (p->data_size + extra > SSE_EVENT_BYTES_MAX) {
        p->oversized = true;
        return true;
    }
    if (!reserve(&p->data, &p->data_cap, p->data_size, extra))
        return false;
    if (p->has_data)
        p->data[p->data_size++] = '\n';
    memcpy(p->data + p->data_size, value, n);
    p->data_size += n;
    p->has_data = true;
    return true;
}

/* One ended line (without its end): a field, a comment or the blank line. */
static bool take_line(struct sse_parser *p, sse_event_fn fn, void *context, bool *go_on)
{
    const char *line = p->line ? p->line : "";
    size_t n = p->line_size;
    p->line_size = 0;
    if (n == 0) {
        *go_on = dispatch(p, fn, context);
        return true;
    }
    if (line[0] == ':' || p->oversized)
        return true;
    const char *colon = memchr(line, ':', n);
    size_t name_size = colon ? (size_t)(colon - line) : n;
    const char *value = colon ? colon + 1 : line + n;
    size_t value_size = n - (size_t)(value - line);
    if (value_size > 0 && value[0] == ' ') {
        value++;
        value_size--;
    }
    if (name_size == 4 && memcmp(line, "data", 4) == 0)
        return add_data(p, value, value_size);
    if (name_size == 5 && memcmp(line, "event", 5) == 0) {
        size_t kept = value_size < SSE_EVENT_NAME_MAX ? value_size : SSE_EVENT_NAME_MAX;
        memcpy(p->event, value, kept);
        p->event[kept] = '\0';
        if (memchr(p->event, '\0', kept)) /* a NUL inside the name: not a name we know */
            p->event[0] = '?', p->event[1] = '\0';
    }
    return true;
}

/* Adds bytes to the current line, or marks the event oversized. */
static bool extend_line(struct sse_parser *p, const char *bytes, size_t n)
{
    if (p->oversized || p->line_size + n > SSE_EVENT_BYTES_MAX) {
        p->oversized = true;
        if (n > 0)
            p->line_size = 1; /* skipped, but not blank: its end does not end the event */
        return true;
    }
    if (!reserve(&p->line, &p->line_cap, p->line_size, n))
        return false;
    memcpy(p->line + p->line_size, bytes, n);
    p->line_size += n;
    p->line[p->line_size] = '\0';
    return true;
}

bool sse_parser_feed(struct sse_parser *p, const char *bytes, size_t size, sse_event_fn fn,
                     void *context)
{
    size_t i = 0;
    while (i < size) {
        if (p->after_cr && bytes[i] == '\n') {
            p->after_cr = false;
            i++;
            continue;
        }
        p->after_cr = false;
        size_t run = i;
        while (run < size && bytes[run] != '\n' && bytes[run] != '\r')
            run++;
        if (!extend_line(p, bytes + i, run - i))
            return false;
        if (run == size)
            break;
        p->after_cr = bytes[run] == '\r';
        i = run + 1;
        bool go_on = true;
        if (!take_line(p, fn, context, &go_on))
            return false;
        if (!go_on)
            return false;
    }
    return true;
}
