/*
 * Internal to grader/: walking a text of known length line by line, without
 * copying it and without relying on a terminating NUL. The parsers of NVRTC's
 * outputs share it.
 */
#ifndef KGRADE_GRADER_TEXT_LINES_H
#define KGRADE_GRADER_TEXT_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct text_line {
    const char *start;
    size_t len; /* without the '\n' (and without a '\r' before it) */
};

struct line_cursor {
    const char *next;
    const char *end;
};

static inline struct line_cursor line_cursor_of(const char *text, size_t len)
{
    struct line_cursor c = {text, text + len};
    return c;
}

/* Moves to the next line; false at the end of the text. */
static inline bool line_next(struct line_cursor *c, struct text_line *line)
{
    if (c->next >= c->end)
        return false;
    const char *nl = memchr(c->next, '\n', (size_t)(c->end - c->next));
    const char *stop = nl ? nl : c->end;
    line->start = c->next;
    line->len = (size_t)(stop - c->next);
    if (line->len > 0 && line->start[line->len - 1] == '\r')
        line->len--;
    c->next = nl ? nl + 1 : c->end;
    return true;
}

/* True when `line` begins with the NUL-terminated `prefix`. */
static inline bool line_starts_with(struct text_line line, const char *prefix)
{
    size_t n = strlen(prefix);
    return line.len >= n && memcmp(line.start, prefix, n) == 0;
}

/* The part of `line` after `skip` bytes (empty when the line is shorter). */
static inline struct text_line line_after(struct text_line line, size_t skip)
{
    struct text_line rest = {line.start + line.len, 0};
    if (skip <= line.len) {
        rest.start = line.start + skip;
        rest.len = line.len - skip;
    }
    return rest;
}

/* `line` without its leading and trailing spaces and tabs. */
static inline struct text_line line_trim(struct text_line line)
{
    while (line.len > 0 && (line.start[0] == ' ' || line.start[0] == '\t')) {
        line.start++;
        line.len--;
    }
    while (line.len > 0 && (line.start[line.len - 1] == ' ' || line.start[line.len - 1] == '\t'))
        line.len--;
    return line;
}

#endif
