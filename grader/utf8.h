/*
 * Internal to grader/: UTF-8 validation and repair (see utf8.c).
 */
#ifndef KGRADE_GRADER_UTF8_H
#define KGRADE_GRADER_UTF8_H

#include <jansson.h>
#include <stddef.h>

/* Length of the UTF-8 sequence starting at s[0], with `left` bytes available,
 * or 0 when it is not a valid, shortest-form encoding of a Unicode scalar. */
size_t utf8_sequence_length(const unsigned char *s, size_t left);

/* The length of the longest prefix of NUL-terminated `text` of at most
 * `max` bytes that is whole valid UTF-8 sequences: what a message may
 * quote with "%.*s" without cutting a character in two (which would make
 * the message invalid JSON text). */
int utf8_prefix(const char *text, size_t max);

/* A NUL-terminated copy of `len` bytes of `text` where each byte that is not
 * part of valid UTF-8 (NUL included) becomes U+FFFD. NULL when out of memory. */
char *utf8_sanitize(const char *text, size_t len);

/* A JSON string of `text`, repaired to UTF-8 where it is not (jansson
 * refuses anything else: a driver's log may quote a student's bytes cut
 * mid-character); "" for NULL (a kernel a hostile result left unnamed). */
json_t *utf8_json(const char *text);

#endif
