/*
 * The courses' and exercises' dates, from the files into the database and
 * from the database into the API's JSON (course_dates.h).
 */
#include "course_dates.h"

#include "exercise_cache.h"
#include "grader/grader.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DATED_MAX 1100 /* exercises and courses */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *synced; /* the rows last written, as JSON text */
static time_t synced_at;

static int64_t time_of(const json_t *object, const char *key)
{
    int64_t ms;
    char why[200];
    const char *text = json_string_value(json_object_get(object, key));
    return text && iso8601_parse(text, &ms, why, sizeof why) ? ms : DB_NO_TIME;
}

/* One row for each loadable entry of `list`, from row `n` on (an
 * exercise's with its "course"); the rows' count. */
static int rows_of(const json_t *list, enum db_scope scope, struct db_file_date *rows, int n)
{
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
    {
        if (n >= DATED_MAX || json_object_get(e, "error"))
            continue;
        rows[n++] = (struct db_file_date){
            .scope = scope,
            .name = json_string_value(json_object_get(e, "id")),
            .course =
                scope == DB_SCOPE_EXERCISE ? json_string_value(json_object_get(e, "course")) : NULL,
            .opens = time_of(e, "opens"),
            .deadline = time_of(e, "deadline"),
        };
    }
    return n;
}

/* What the rows hold, as text: written only when it changed. */
static char *fingerprint(const json_t *exercises, const json_t *courses)
{
    json_t *both = json_array();
    const json_t *lists[] = {exercises, courses};
    for (int k = 0; k < 2; k++) {
        size_t i;
        json_t *e;
        json_array_foreach(lists[k], i, e) json_array_append_new(
            both,
            json_pack("[O, O, O, O]", json_object_get(e, "id"),
                      json_object_get(e, "course") ? json_object_get(e, "course") : json_null(),
                      json_object_get(e, "opens") ? json_object_get(e, "opens") : json_null(),
                      json_object_get(e, "deadline") ? json_object_get(e, "deadline")
                                                     : json_null()));
    }
    char *text = json_dumps(both, JSON_COMPACT);
    json_decref(both);
    return text;
}

static void write_rows(struct db *db, const json_t *exercises, const json_t *courses, char *text)
{
    struct db_file_date *rows = malloc(DATED_MAX * sizeof *rows);
    if (!rows)
        return;
    int n = rows_of(courses, DB_SCOPE_COURSE, rows, rows_of(exercises, DB_SCOPE_EXERCISE, rows, 0));
    if (db_file_dates_replace(db, rows, n) == DB_OK) {
        free(synced);
        synced = text;
        text = NULL;
    }
    free(text);
    free(rows);
}

void course_dates_sync(struct service *s, struct db *db)
{
    char error[256];
    pthread_mutex_lock(&lock);
    if (synced && time(NULL) - synced_at < EXERCISE_CACHE_SECONDS) {
        pthread_mutex_unlock(&lock);
        return;
    }
    json_t *exercises = exercise_cache_list(s->config.exercises, error, sizeof error);
    json_t *courses = grader_courses(s->config.exercises);
    char *text = exercises ? fingerprint(exercises, courses) : NULL;
    if (text && (!synced || strcmp(text, synced) != 0))
        write_rows(db, exercises, courses, text);
    else
        free(text);
    synced_at = time(NULL);
    pthread_mutex_unlock(&lock);
    json_decref(exercises);
    json_decref(courses);
}

void course_dates_apply(json_t *list, const json_t *dates)
{
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
    {
        const json_t *d = json_object_get(dates, json_string_value(json_object_get(e, "id")));
        if (!d)
            continue;
        json_object_set(e, "opens", json_object_get(d, "opens"));
        json_object_set(e, "deadline", json_object_get(d, "deadline"));
    }
}
