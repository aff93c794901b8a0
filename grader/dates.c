/*
 * The "opens" and "deadline" keys of course and exercise files (dates.h).
 */
#include "dates.h"

#include "iso8601.h"

#include <stdio.h>

/* One optional key: false with a sentence when present and not a date-time. */
static bool read_one(const json_t *object, const char *key, bool *has, int64_t *ms, char *why,
                     size_t size)
{
    const json_t *value = json_object_get(object, key);
    *has = value != NULL;
    if (!value)
        return true;
    if (!json_is_string(value)) {
        snprintf(why, size, "must be a string: an ISO 8601 date-time with its zone");
        return false;
    }
    return iso8601_parse(json_string_value(value), ms, why, size);
}

bool grader_dates_read(const json_t *object, struct grader_dates *d, const char **key, char *why,
                       size_t size)
{
    *d = (struct grader_dates){0};
    *key = "opens";
    if (!read_one(object, *key, &d->has_opens, &d->opens_ms, why, size))
        return false;
    *key = "deadline";
    if (!read_one(object, *key, &d->has_deadline, &d->deadline_ms, why, size))
        return false;
    if (d->has_opens && d->has_deadline && d->deadline_ms <= d->opens_ms) {
        snprintf(why, size, "must come after 'opens'");
        return false;
    }
    return true;
}

static json_t *time_or_null(bool has, int64_t ms)
{
    char text[ISO8601_TEXT_MAX];
    if (!has)
        return json_null();
    iso8601_format(ms, text);
    return json_string(text);
}

void grader_dates_set(json_t *object, const struct grader_dates *d)
{
    json_object_set_new(object, "opens", time_or_null(d->has_opens, d->opens_ms));
    json_object_set_new(object, "deadline", time_or_null(d->has_deadline, d->deadline_ms));
}
