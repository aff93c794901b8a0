/*
 * Internal to server/: the opening times and deadlines of the courses and
 * exercises, as the API serves them. The files' dates are copied into the
 * database (db_file_dates_replace) when they change, checked at most every
 * EXERCISE_CACHE_SECONDS, so that SQL can decide lateness; the effective
 * dates (an instructor's override, else the file; an exercise's missing
 * ones its course's) are then laid over the exercise and course JSON.
 */
#ifndef KGRADE_SERVER_COURSE_DATES_H
#define KGRADE_SERVER_COURSE_DATES_H

#include "service.h"

#include <jansson.h>

/* Brings the database's copy of the files' dates up to date. */
void course_dates_sync(struct service *s, struct db *db);

/* Sets "opens" and "deadline" of each object of `list` (exercises or
 * courses, by "id") to the effective ones of `dates` (db_dates()'s
 * "exercises" or "courses"); an object it does not know keeps its own. */
void course_dates_apply(json_t *list, const json_t *dates);

#endif
