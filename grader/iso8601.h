/*
 * ISO 8601 date-times with a time zone, as the course and exercise files
 * and the API write the opening times and deadlines of assessments:
 * "2026-12-15T23:59:00+01:00", "2026-12-15T22:59Z", with optional seconds
 * and fraction of a second. A time without a zone is refused: a deadline
 * must mean the same instant wherever the server runs.
 */
#ifndef KGRADE_GRADER_ISO8601_H
#define KGRADE_GRADER_ISO8601_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "2026-12-15T22:59:00.000Z" and its NUL, with room for any int64 ms. */
#define ISO8601_TEXT_MAX 64

/* The instant `text` names, in milliseconds since the epoch (UTC); false
 * with a sentence in `why` (what is wrong and how to write it). Years 1 to
 * 9999; the fraction is cut to milliseconds. */
bool iso8601_parse(const char *text, int64_t *ms, char *why, size_t why_size);

/* `ms` as "YYYY-MM-DDTHH:MM:SS.mmmZ" (UTC), the form the API answers in. */
void iso8601_format(int64_t ms, char out[ISO8601_TEXT_MAX]);

#endif
