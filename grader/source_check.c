/*
 * Source check: decides whether a submitted text may reach the compiler.
 *
 * A source is refused before NVRTC sees it when it is empty, larger than
 * GRADER_SOURCE_MAX_BYTES, holds a NUL byte (NVRTC would silently compile only
 * the part before it) or is not valid UTF-8 (the web pages, the database and
 * the JSON results all carry text). The sentence written for the student names
 * the line, so the fix is obvious.
 */
#include "grader.h"
#include "utf8.h"

#include <stdio.h>

static bool is_blank(const char *source, size_t size)
{
    for (size_t i = 0; i < size; i++) {
        char c = source[i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v')
            return false;
    }
    return true;
}

bool grader_source_check(const char *source, size_t size, char why[GRADER_MESSAGE_MAX])
{
    if (size > GRADER_SOURCE_MAX_BYTES) {
        snprintf(why, GRADER_MESSAGE_MAX,
                 "the source is %zu bytes, over the limit of %d bytes: submit only your kernel",
                 size, GRADER_SOURCE_MAX_BYTES);
        return false;
    }
    if (is_blank(source, size)) {
        snprintf(why, GRADER_MESSAGE_MAX,
                 "the source is empty: submit the .cu file with your kernel");
        return false;
    }
    const unsigned char *s = (const unsigned char *)source;
    unsigned line = 1;
    for (size_t i = 0; i < size;) {
        if (s[i] == '\0') {
            snprintf(why, GRADER_MESSAGE_MAX,
                     "the source holds a NUL byte on line %u (byte %zu): save it as plain text",
                     line, i);
            return false;
        }
        size_t len = utf8_sequence_length(s + i, size - i);
        if (len == 0) {
            snprintf(why, GRADER_MESSAGE_MAX,
                     "the source is not valid UTF-8 on line %u (byte %zu): save it as UTF-8 text",
                     line, i);
            return false;
        }
        if (s[i] == '\n')
            line++;
        i += len;
    }
    return true;
}
