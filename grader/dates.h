/*
 * Internal to grader/: the opening time and the deadline a course file or
 * an exercise.json may carry ("opens", "deadline": ISO 8601 with a time
 * zone, each optional), read and checked alike for both: a bad date, a
 * time without a zone or a deadline not after the opening is refused with
 * the key and what is wrong.
 */
#ifndef KGRADE_GRADER_DATES_H
#define KGRADE_GRADER_DATES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct grader_dates {
    bool has_opens, has_deadline;
    int64_t opens_ms, deadline_ms; /* since the epoch, UTC */
};

/* The "opens" and "deadline" of a file's top object; false with the key
 * at fault in `*key` and what is wrong in `why`. */
bool grader_dates_read(const json_t *object, struct grader_dates *dates, const char **key,
                       char *why, size_t size);

/* Sets "opens" and "deadline" on `object` as the API writes them
 * (ISO 8601 UTC, "2026-12-15T22:59:00.000Z"), or null when absent. */
void grader_dates_set(json_t *object, const struct grader_dates *dates);

#endif
