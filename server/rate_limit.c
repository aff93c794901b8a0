/*
 * Rate limits in a fixed window per key (rate_limit.h).
 */
#include "rate_limit.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define SLOTS 4096

struct slot {
    uint64_t key;
    time_t window_start;
    int count;
};

struct rate_limiter {
    pthread_mutex_t lock;
    struct slot slots[SLOTS];
};

static uint64_t hash(const char *key)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *key; key++)
        h = (h ^ (unsigned char)*key) * 0x100000001b3ull;
    return h;
}

struct rate_limiter *rate_limiter_new(void)
{
    struct rate_limiter *r = calloc(1, sizeof *r);
    if (r)
        pthread_mutex_init(&r->lock, NULL);
    return r;
}

void rate_limiter_free(struct rate_limiter *r)
{
    free(r);
}

bool rate_allow(struct rate_limiter *r, const char *key, int limit, int window, int *retry_after)
{
    uint64_t h = hash(key);
    time_t now = time(NULL);
    pthread_mutex_lock(&r->lock);
    struct slot *s = &r->slots[h % SLOTS];
    if (s->key != h || now - s->window_start >= window)
        *s = (struct slot){h, now, 0};
    bool allowed = s->count < limit;
    if (allowed)
        s->count++;
    *retry_after = allowed ? 0 : (int)(s->window_start + window - now);
    if (*retry_after < 1 && !allowed)
        *retry_after = 1;
    pthread_mutex_unlock(&r->lock);
    return allowed;
}
