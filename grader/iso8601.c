/*
 * The ISO 8601 reader and writer of iso8601.h: a strict subset, the
 * extended form with a date, a time and a zone, checked field by field
 * (month lengths and leap years included), so a typo in a deadline is
 * refused at load rather than read as another day.
 */
#include "iso8601.h"
#include "utf8.h"

#include <stdio.h>
#include <string.h>

#define MS_PER_DAY (INT64_C(86400) * 1000)

/* `n` decimal digits at `p`, or -1. */
static int digits(const char *p, int n)
{
    int value = 0;
    for (int i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        value = value * 10 + (p[i] - '0');
    }
    return value;
}

static bool leap(int year)
{
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

static int month_days(int year, int month)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return month == 2 && leap(year) ? 29 : days[month - 1];
}

/* Days from 1970-01-01 to a civil date (H. Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static bool refuse(char *why, size_t size, const char *text, const char *what)
{
    snprintf(why, size, "'%.*s' %s", utf8_prefix(text, 40), text, what);
    return false;
}

#define FORM                                                                                       \
    "write a date-time with its zone, like 2026-12-15T23:59:00+01:00 or 2026-12-15T22:59:00Z"

/* The zone at `p` ("Z", "+01:00", "-0500") as minutes east of UTC; the
 * length read in `*used`, or false. */
static bool zone(const char *p, int *minutes, size_t *used)
{
    if (p[0] == 'Z') {
        *minutes = 0;
        *used = 1;
        return true;
    }
    if (p[0] != '+' && p[0] != '-')
        return false;
    int hours = digits(p + 1, 2);
    if (hours < 0) /* before reading p[3]: the text may end at p[1] */
        return false;
    *used = p[3] == ':' ? 6 : 5;
    int mins = digits(p + *used - 2, 2);
    if (hours > 23 || mins < 0 || mins > 59)
        return false;
    *minutes = (p[0] == '-' ? -1 : 1) * (hours * 60 + mins);
    return true;
}

/* The seconds and milliseconds after "HH:MM" at `p`; the length read. */
static size_t seconds_part(const char *p, int *seconds, int *ms)
{
    *seconds = 0;
    *ms = 0;
    if (p[0] != ':')
        return 0;
    *seconds = digits(p + 1, 2);
    if (*seconds < 0)
        return (size_t)-1;
    size_t n = 3;
    if (p[n] == '.') {
        size_t k = 0, scale = 100;
        for (n++; p[n] >= '0' && p[n] <= '9'; n++, k++) {
            *ms += (int)((p[n] - '0') * scale);
            scale /= 10;
        }
        if (k == 0)
            return (size_t)-1;
    }
    return n;
}

bool iso8601_parse(const char *text, int64_t *ms, char *why, size_t why_size)
{
    size_t length = strlen(text);
    if (length < 16 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':')
        return refuse(why, why_size, text, "is not a date-time: " FORM);
    int year = digits(text, 4), month = digits(text + 5, 2), day = digits(text + 8, 2);
    int hour = digits(text + 11, 2), minute = digits(text + 14, 2), second, milli, offset;
    size_t used = 0, n = seconds_part(text + 16, &second, &milli);
    if (year < 1 || month < 1 || month > 12 || day < 1 || hour < 0 || minute < 0 || n == (size_t)-1)
        return refuse(why, why_size, text, "is not a date-time: " FORM);
    if (day > month_days(year, month) || hour > 23 || minute > 59 || second > 59)
        return refuse(why, why_size, text, "names no such day or time of day");
    if (text[16 + n] == '\0')
        return refuse(why, why_size, text,
                      "has no time zone: end it with Z (UTC) or an offset such as +01:00");
    if (!zone(text + 16 + n, &offset, &used) || text[16 + n + used] != '\0')
        return refuse(why, why_size, text, "has a zone that is not Z or +HH:MM: " FORM);
    int64_t seconds_of_day = (int64_t)hour * 3600 + minute * 60 + second;
    *ms = days_from_civil(year, month, day) * MS_PER_DAY + seconds_of_day * 1000 + milli -
          (int64_t)offset * 60000;
    return true;
}

void iso8601_format(int64_t ms, char out[ISO8601_TEXT_MAX])
{
    int64_t days = ms >= 0 ? ms / MS_PER_DAY : -((-ms + MS_PER_DAY - 1) / MS_PER_DAY);
    int64_t rest = ms - days * MS_PER_DAY;
    /* civil_from_days (H. Hinnant) */
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int day = (int)(doy - (153 * mp + 2) / 5 + 1);
    int month = (int)(mp < 10 ? mp + 3 : mp - 9);
    int64_t year = yoe + era * 400 + (month <= 2);
    snprintf(out, ISO8601_TEXT_MAX, "%04lld-%02d-%02dT%02d:%02d:%02d.%03dZ", (long long)year, month,
             day, (int)(rest / 3600000), (int)(rest / 60000 % 60), (int)(rest / 1000 % 60),
             (int)(rest % 1000));
}
