/*
 * Rendered answers kept under a key and a data version (response_cache.h).
 *
 * A small array searched linearly under one mutex: the keys are a few
 * dozen at most (one per exercise and course, times two views), and a
 * lookup is a few string compares and one copy of the body, far cheaper
 * than the query it saves.
 */
#include "response_cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct entry {
    char key[RESPONSE_CACHE_KEY_MAX];
    int64_t version;
    char *body;
    size_t size;
    uint64_t used; /* the clock at the last use; 0: empty */
};

struct response_cache {
    pthread_mutex_t lock;
    struct entry entries[RESPONSE_CACHE_ENTRIES];
    uint64_t clock;
};

struct response_cache *response_cache_new(void)
{
    struct response_cache *c = calloc(1, sizeof *c);
    if (c)
        pthread_mutex_init(&c->lock, NULL);
    return c;
}

void response_cache_free(struct response_cache *cache)
{
    if (!cache)
        return;
    for (int i = 0; i < RESPONSE_CACHE_ENTRIES; i++)
        free(cache->entries[i].body);
    pthread_mutex_destroy(&cache->lock);
    free(cache);
}

static struct entry *find(struct response_cache *c, const char *key)
{
    for (int i = 0; i < RESPONSE_CACHE_ENTRIES; i++)
        if (c->entries[i].used && strcmp(c->entries[i].key, key) == 0)
            return &c->entries[i];
    return NULL;
}

static struct entry *least_recently_used(struct response_cache *c)
{
    struct entry *oldest = &c->entries[0];
    for (int i = 1; i < RESPONSE_CACHE_ENTRIES; i++)
        if (c->entries[i].used < oldest->used)
            oldest = &c->entries[i];
    return oldest;
}

char *response_cache_get(struct response_cache *cache, const char *key, int64_t version,
                         size_t *size)
{
    char *copy = NULL;
    pthread_mutex_lock(&cache->lock);
    struct entry *e = find(cache, key);
    if (e && e->version == version && (copy = malloc(e->size + 1))) {
        memcpy(copy, e->body, e->size + 1);
        *size = e->size;
        e->used = ++cache->clock;
    }
    pthread_mutex_unlock(&cache->lock);
    return copy;
}

void response_cache_put(struct response_cache *cache, const char *key, int64_t version,
                        const char *body, size_t size)
{
    if (strlen(key) >= RESPONSE_CACHE_KEY_MAX)
        return;
    char *copy = malloc(size + 1);
    if (!copy)
        return;
    memcpy(copy, body, size);
    copy[size] = '\0';
    pthread_mutex_lock(&cache->lock);
    struct entry *e = find(cache, key);
    if (e && e->version > version) { /* a newer one is kept already */
        pthread_mutex_unlock(&cache->lock);
        free(copy);
        return;
    }
    if (!e) {
        e = least_recently_used(cache);
        strcpy(e->key, key);
    }
    free(e->body);
    e->body = copy;
    e->size = size;
    e->version = version;
    e->used = ++cache->clock;
    pthread_mutex_unlock(&cache->lock);
}
