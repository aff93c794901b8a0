/*
 * The references' cache (reference_cache.h): a small array searched
 * linearly (a few dozen exercises), under one lock. Entries hold deep
 * copies, so no JSON value is shared between threads.
 */
#include "reference_cache.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
    char version[17];
    enum grader_device device;
    json_t *reference;  /* NULL: a free entry */
    unsigned long used; /* the clock at the last use */
};

struct reference_cache {
    pthread_mutex_t lock;
    struct entry entries[REFERENCE_CACHE_ENTRIES];
    unsigned long clock;
};

struct reference_cache *reference_cache_new(void)
{
    struct reference_cache *c = calloc(1, sizeof *c);
    if (c)
        pthread_mutex_init(&c->lock, NULL);
    return c;
}

void reference_cache_free(struct reference_cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < REFERENCE_CACHE_ENTRIES; i++)
        json_decref(c->entries[i].reference);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static struct entry *find(struct reference_cache *c, const char *version, enum grader_device device)
{
    for (int i = 0; i < REFERENCE_CACHE_ENTRIES; i++) {
        struct entry *e = &c->entries[i];
        if (e->reference && e->device == device && strcmp(e->version, version) == 0)
            return e;
    }
    return NULL;
}

json_t *reference_cache_get(struct reference_cache *c, const char *version,
                            enum grader_device device)
{
    pthread_mutex_lock(&c->lock);
    struct entry *e = find(c, version, device);
    json_t *copy = NULL;
    if (e) {
        e->used = ++c->clock;
        copy = json_deep_copy(e->reference);
    }
    pthread_mutex_unlock(&c->lock);
    return copy;
}

/* The entry to (re)use for a new version: a free one, else the least
 * recently used. */
static struct entry *victim(struct reference_cache *c)
{
    struct entry *oldest = &c->entries[0];
    for (int i = 0; i < REFERENCE_CACHE_ENTRIES; i++) {
        if (!c->entries[i].reference)
            return &c->entries[i];
        if (c->entries[i].used < oldest->used)
            oldest = &c->entries[i];
    }
    return oldest;
}

void reference_cache_put(struct reference_cache *c, const char *version, enum grader_device device,
                         const json_t *reference)
{
    json_t *copy = json_deep_copy(reference);
    if (!copy)
        return;
    pthread_mutex_lock(&c->lock);
    struct entry *e = find(c, version, device);
    if (!e)
        e = victim(c);
    json_decref(e->reference);
    snprintf(e->version, sizeof e->version, "%s", version);
    e->device = device;
    e->reference = copy;
    e->used = ++c->clock;
    pthread_mutex_unlock(&c->lock);
}
