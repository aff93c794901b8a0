/*
 * The exercise list, cached for a few seconds (exercise_cache.h).
 */
#include "exercise_cache.h"

#include "grader/grader.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static json_t *cached;
static time_t cached_at;

/* Refreshes the cache when it is old (lock held). */
static bool refresh(const char *folder, char *error, size_t error_size)
{
    time_t now = time(NULL);
    if (cached && now - cached_at < EXERCISE_CACHE_SECONDS)
        return true;
    json_t *list = grader_exercises(folder, error, error_size);
    if (!list)
        return cached != NULL;
    json_decref(cached);
    cached = list;
    cached_at = now;
    return true;
}

json_t *exercise_cache_list(const char *folder, char *error, size_t error_size)
{
    pthread_mutex_lock(&lock);
    json_t *list = refresh(folder, error, error_size) ? json_incref(cached) : NULL;
    pthread_mutex_unlock(&lock);
    return list;
}

json_t *exercise_cache_find(const char *folder, const char *id)
{
    char error[256];
    json_t *list = exercise_cache_list(folder, error, sizeof error), *found = NULL, *e;
    size_t i;
    json_array_foreach(list, i, e)
    {
        const char *eid = json_string_value(json_object_get(e, "id"));
        if (eid && strcmp(eid, id) == 0 && !json_object_get(e, "error"))
            found = json_incref(e);
    }
    json_decref(list);
    return found;
}
