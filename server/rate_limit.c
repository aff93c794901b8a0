/*
 * Rate limits in a fixed window per key, counted exactly (rate_limit.h): a
 * hash table of chained entries, each holding its whole key, under one
 * lock, and a list by age of the entries with events left (a spent one
 * leaves the list, and comes back, as the newest, when a refund gives it
 * an event again). Expired entries go when their bucket is walked, in a
 * sweep of the whole table every RATE_SWEEP_SECONDS, and in a sweep when
 * the table is full and some window may have ended; an entry refunded to
 * 0 goes at once; the list's oldest goes when the table is still full and
 * a new key comes (O(1) from the list's head, and its bucket's few
 * entries).
 */
#include "rate_limit.h"

#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUCKETS 16384 /* a power of two: 4 keys a bucket at RATE_KEYS_MAX */

struct entry {
    struct entry *next;          /* in its bucket */
    struct entry *older, *newer; /* in the list by age, while not spent */
    int64_t window_end;          /* the key is forgotten from then on */
    int count, limit;            /* spent: count >= limit, the last limit it was counted under */
    char key[];
};

struct rate_limiter {
    pthread_mutex_t lock;
    rate_clock *clock;
    int max_keys, n_keys;
    int64_t next_sweep;
    int64_t first_end;             /* no live window ends before this */
    struct entry *oldest, *newest; /* the entries with events left, by age */
    unsigned char hash_key[crypto_shorthash_KEYBYTES];
    struct entry *buckets[BUCKETS];
};

static int64_t monotonic_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec;
}

struct rate_limiter *rate_limiter_new(int max_keys, rate_clock *clock)
{
    struct rate_limiter *r = sodium_init() >= 0 ? calloc(1, sizeof *r) : NULL;
    if (!r)
        return NULL;
    pthread_mutex_init(&r->lock, NULL);
    r->clock = clock ? clock : monotonic_seconds;
    r->max_keys = max_keys;
    r->first_end = INT64_MAX;
    r->next_sweep = r->clock() + RATE_SWEEP_SECONDS;
    randombytes_buf(r->hash_key, sizeof r->hash_key);
    return r;
}

static bool spent(const struct entry *e)
{
    return e->count >= e->limit;
}

/* Puts `e` at the young end of the list by age. */
static void age_link(struct rate_limiter *r, struct entry *e)
{
    e->older = r->newest;
    e->newer = NULL;
    *(r->newest ? &r->newest->newer : &r->oldest) = e;
    r->newest = e;
}

static void age_unlink(struct rate_limiter *r, struct entry *e)
{
    *(e->older ? &e->older->newer : &r->oldest) = e->newer;
    *(e->newer ? &e->newer->older : &r->newest) = e->older;
    e->older = e->newer = NULL;
}

/* Unlinks and frees the entry `*link` points to. */
static void drop(struct rate_limiter *r, struct entry **link)
{
    struct entry *e = *link;
    *link = e->next;
    if (!spent(e))
        age_unlink(r, e);
    free(e);
    r->n_keys--;
}

void rate_limiter_free(struct rate_limiter *r)
{
    if (!r)
        return;
    for (int b = 0; b < BUCKETS; b++)
        while (r->buckets[b])
            drop(r, &r->buckets[b]);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

static struct entry **bucket_of(struct rate_limiter *r, const char *key)
{
    uint64_t h;
    crypto_shorthash((unsigned char *)&h, (const unsigned char *)key, strlen(key), r->hash_key);
    return &r->buckets[h & (BUCKETS - 1)];
}

/* Drops every key whose window is over and notes when the first kept one
 * ends. O(keys + BUCKETS): once a sweep interval, or when full and a
 * window may have ended, never once per request. */
static void sweep(struct rate_limiter *r, int64_t now)
{
    r->first_end = INT64_MAX;
    for (int b = 0; b < BUCKETS; b++)
        for (struct entry **link = &r->buckets[b]; *link;) {
            if ((*link)->window_end <= now) {
                drop(r, link);
                continue;
            }
            if ((*link)->window_end < r->first_end)
                r->first_end = (*link)->window_end;
            link = &(*link)->next;
        }
    r->next_sweep = now + RATE_SWEEP_SECONDS;
}

/* Drops the oldest entry with events left. */
static void push_out_oldest(struct rate_limiter *r)
{
    struct entry **link = bucket_of(r, r->oldest->key);
    while (*link != r->oldest)
        link = &(*link)->next;
    drop(r, link);
}

/* Whether a new key may be added: a sweep when full and a window may
 * have ended, then the oldest key with events left out while still full.
 * False only when every key is spent. */
static bool make_room(struct rate_limiter *r, int64_t now)
{
    if (r->n_keys >= r->max_keys && now >= r->first_end)
        sweep(r, now);
    while (r->n_keys >= r->max_keys && r->oldest)
        push_out_oldest(r);
    return r->n_keys < r->max_keys;
}

/* The link to the live entry of `key`, or NULL; drops the expired ones on
 * the way. */
static struct entry **find(struct rate_limiter *r, struct entry **bucket, const char *key,
                           int64_t now)
{
    for (struct entry **link = bucket; *link;) {
        if ((*link)->window_end <= now) {
            drop(r, link);
            continue;
        }
        if (strcmp((*link)->key, key) == 0)
            return link;
        link = &(*link)->next;
    }
    return NULL;
}

/* A new entry for `key`, the newest, with `limit` events; NULL when
 * every key is spent or memory is short (the caller fails closed). */
static struct entry *add(struct rate_limiter *r, const char *key, int limit, int window,
                         int64_t now)
{
    size_t size = strlen(key) + 1;
    struct entry *e = make_room(r, now) ? malloc(sizeof *e + size) : NULL;
    if (!e)
        return NULL;
    memcpy(e->key, key, size);
    e->window_end = now + window;
    e->count = 0;
    e->limit = limit;
    struct entry **bucket = bucket_of(r, key);
    e->next = *bucket;
    *bucket = e;
    if (!spent(e))
        age_link(r, e);
    r->n_keys++;
    if (e->window_end < r->first_end)
        r->first_end = e->window_end;
    return e;
}

/* Seconds from `now` to `end`, at least 1 and at most `most`. */
static int seconds_until(int64_t end, int64_t now, int most)
{
    int64_t wait = end - now;
    return wait < 1 ? 1 : wait > most ? most : (int)wait;
}

/* Takes the lock; the time now, after a sweep when one is due. */
static int64_t lock_now(struct rate_limiter *r)
{
    pthread_mutex_lock(&r->lock);
    int64_t now = r->clock();
    if (now >= r->next_sweep)
        sweep(r, now);
    return now;
}

/* One more event of `e`, counted under `limit`: spent, it leaves the
 * list by age (a spent count is never pushed out). */
static void count(struct rate_limiter *r, struct entry *e, int limit)
{
    bool was_spent = spent(e);
    e->count++;
    e->limit = limit;
    if (spent(e) && !was_spent)
        age_unlink(r, e);
    else if (!spent(e) && was_spent)
        age_link(r, e);
}

/* The live entry of `key`, or NULL. */
static struct entry *live(struct rate_limiter *r, const char *key, int64_t now)
{
    struct entry **link = find(r, bucket_of(r, key), key, now);
    return link ? *link : NULL;
}

int rate_allow_all(struct rate_limiter *r, const struct rate_event *events, int n, int window,
                   int *retry_after)
{
    int64_t now = lock_now(r);
    int refused = -1;
    *retry_after = 0;
    for (int i = 0; i < n && refused < 0; i++) { /* first every limit, adding nothing */
        struct entry *e = live(r, events[i].key, now);
        if ((e ? e->count : 0) >= events[i].limit) {
            refused = i;
            *retry_after = seconds_until(e ? e->window_end : now + window, now, window);
        }
    }
    for (int i = 0; i < n && refused < 0; i++) /* then every key made, */
        if (!live(r, events[i].key, now))
            add(r, events[i].key, events[i].limit, window, now);
    for (int i = 0; i < n && refused < 0; i++) /* all of them still there (closed else), */
        if (!live(r, events[i].key, now)) {
            refused = i;
            *retry_after = seconds_until(r->first_end, now, window);
        }
    for (int i = 0; i < n && refused < 0; i++) /* and only then every count */
        count(r, live(r, events[i].key, now), events[i].limit);
    pthread_mutex_unlock(&r->lock);
    return refused;
}

bool rate_allow(struct rate_limiter *r, const char *key, int limit, int window, int *retry_after)
{
    const struct rate_event event = {key, limit};
    return rate_allow_all(r, &event, 1, window, retry_after) < 0;
}

bool rate_check(struct rate_limiter *r, const char *key, int limit, int *retry_after)
{
    int64_t now = lock_now(r);
    struct entry **link = find(r, bucket_of(r, key), key, now);
    bool allowed = !link || (*link)->count < limit;
    *retry_after = allowed ? 0 : seconds_until((*link)->window_end, now, INT32_MAX);
    pthread_mutex_unlock(&r->lock);
    return allowed;
}

void rate_refund(struct rate_limiter *r, const char *key)
{
    int64_t now = lock_now(r);
    struct entry **link = find(r, bucket_of(r, key), key, now);
    struct entry *e = link ? *link : NULL;
    if (e && e->count <= 1) {
        drop(r, link);
    } else if (e) {
        if (spent(e) && e->count - 1 < e->limit)
            age_link(r, e); /* an event left again: the newest that may be pushed out */
        e->count--;
    }
    pthread_mutex_unlock(&r->lock);
}

int rate_limiter_keys(struct rate_limiter *r)
{
    pthread_mutex_lock(&r->lock);
    int n = r->n_keys;
    pthread_mutex_unlock(&r->lock);
    return n;
}
