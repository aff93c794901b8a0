/*
 * Internal to server/: the exercise list the API serves, read from the
 * exercise folder at most every EXERCISE_CACHE_SECONDS (GET
 * /api/v1/exercises is hot; an edited exercise shows up within seconds).
 */
#ifndef KGRADE_SERVER_EXERCISE_CACHE_H
#define KGRADE_SERVER_EXERCISE_CACHE_H

#include <jansson.h>
#include <stdbool.h>

#define EXERCISE_CACHE_SECONDS 5

/* The list as grader_exercises() gives it (a new reference), or NULL with
 * a sentence. */
json_t *exercise_cache_list(const char *folder, char *error, size_t error_size);
/* The entry of one loadable exercise (a new reference), or NULL. */
json_t *exercise_cache_find(const char *folder, const char *id);

#endif
