/*
 * A host job's CPU time (host_form.h): the job's /proc/PID/stat, opened by
 * the worker as the sandbox started the job (before any of its code ran)
 * and passed to the grade job, read afresh at each call's start and end.
 * The kernel writes the text, but its second field is the process's name,
 * which the student's code may set (prctl PR_SET_NAME) to any 15 bytes,
 * ")", spaces and digits included: the fields are counted from the last
 * ")", after which the kernel writes only a state letter and numbers.
 */
#include "host_form.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* utime and stime are stat's fields 14 and 15; the name is field 2, the
 * state 3: after the name's ")", the state, then 10 fields to skip. */
#define STAT_FIELDS_BEFORE_UTIME 10
#define STAT_TEXT_MAX            1024

/* Moves `*at` past its next field (after spaces: any characters but
 * spaces; tpgid, say, is -1 without a terminal); false when there is none. */
static bool skip_field(const char **at)
{
    const char *p = *at;
    while (*p == ' ')
        p++;
    if (*p == '\0' || *p == '\n')
        return false;
    while (*p && *p != ' ' && *p != '\n')
        p++;
    *at = p;
    return true;
}

/* The next number of `*at` (after spaces), moved past it; false when
 * there is none. */
static bool next_number(const char **at, unsigned long long *value)
{
    const char *p = *at;
    while (*p == ' ')
        p++;
    if (*p < '0' || *p > '9')
        return false;
    char *end;
    errno = 0;
    *value = strtoull(p, &end, 10);
    if (errno != 0 || (*end != ' ' && *end != '\n' && *end != '\0'))
        return false;
    *at = end;
    return true;
}

bool host_stat_cpu_ticks(const char *text, size_t length, unsigned long long *ticks)
{
    char copy[STAT_TEXT_MAX + 1];
    if (length > STAT_TEXT_MAX)
        return false;
    memcpy(copy, text, length);
    copy[length] = '\0';
    if (strlen(copy) != length)
        return false; /* the kernel's text has no NUL */
    const char *at = strrchr(copy, ')');
    if (!at || at[1] != ' ' || !at[2] || at[3] != ' ')
        return false;
    at += 3; /* past ") S" */
    unsigned long long user, system;
    for (int i = 0; i < STAT_FIELDS_BEFORE_UTIME; i++)
        if (!skip_field(&at))
            return false;
    if (!next_number(&at, &user) || !next_number(&at, &system) || user > ULLONG_MAX - system)
        return false;
    *ticks = user + system;
    return true;
}

double host_cpu_ms(int fd)
{
    char text[STAT_TEXT_MAX];
    ssize_t n;
    do
        n = pread(fd, text, sizeof text, 0);
    while (n < 0 && errno == EINTR);
    unsigned long long ticks;
    long per_second = sysconf(_SC_CLK_TCK);
    if (n <= 0 || per_second <= 0 || !host_stat_cpu_ticks(text, (size_t)n, &ticks))
        return -1;
    return (double)ticks * 1e3 / (double)per_second;
}

bool host_cpu_too_much(const struct host_form *host, double *bar_ms)
{
    double reference = host->timed[HOST_REFERENCE].host_cpu_ms;
    double student = host->timed[HOST_STUDENT].host_cpu_ms;
    *bar_ms = HOST_CPU_FACTOR * reference + HOST_CPU_FLOOR_SECONDS * 1e3;
    return host->timed_known && reference >= 0 && student >= 0 && student > *bar_ms;
}

void host_cpu_text(const struct host_form *host, const char *function, double bar_ms, char *out,
                   size_t size)
{
    char student[GRADER_NUMBER_TEXT_MAX], reference[GRADER_NUMBER_TEXT_MAX];
    char bar[GRADER_NUMBER_TEXT_MAX], floor[GRADER_NUMBER_TEXT_MAX];
    grader_ms_text(host->timed[HOST_STUDENT].host_cpu_ms, student);
    grader_ms_text(host->timed[HOST_REFERENCE].host_cpu_ms, reference);
    grader_ms_text(bar_ms, bar);
    grader_ms_text(HOST_CPU_FLOOR_SECONDS * 1e3, floor);
    snprintf(out, size,
             "%.64s used %s of the host's CPU against the reference's %s; the bar is %s (%g× "
             "the reference's, plus %s): the work must run on the GPU, not in Python or numpy "
             "on the host",
             function, student, reference, bar, HOST_CPU_FACTOR, floor);
}
