/*
 * Internal to server/: rate limits — at most N events per key (a user, an
 * address, a login name) in a fixed window of seconds that opens at the
 * key's first event.
 *
 * Every key is counted exactly: keys are kept whole and compared as
 * strings, so no key can reset or spend another's count. Memory is bounded
 * by expiry and by `max_keys`: a key whose window is over is forgotten (in
 * a sweep every RATE_SWEEP_SECONDS, and whenever the table is full), and
 * while `max_keys` keys are live a new key pushes out the oldest key that
 * still has events left. So a full table refuses no one; a spent key (the
 * one that limits someone) is never pushed out; and a key with events left
 * is pushed out only once `max_keys` keys were added after it, each at the
 * price its caller sets for adding one (a login attempt costs an Argon2
 * check), with no key added by an event refused (rate_allow_all). Only a
 * table whose every key is spent refuses a new key (closed, until the
 * first window ends): filling one costs `limit` events a key. Keys that
 * anyone can make up (a login name, an address) still live in a limiter of
 * their own, apart from keys only an account holder adds, which they could
 * otherwise push out. Buckets are chosen by SipHash under a random key, so
 * clients cannot pile their keys into one bucket.
 */
#ifndef KGRADE_SERVER_RATE_LIMIT_H
#define KGRADE_SERVER_RATE_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

#define RATE_KEYS_MAX      65536 /* live keys, about 100 bytes each */
#define RATE_SWEEP_SECONDS 60    /* how often expired keys are dropped */

struct rate_limiter;

/* Seconds on a clock that only moves forward. */
typedef int64_t rate_clock(void);

/* A limiter of at most `max_keys` live keys; `clock` NULL: CLOCK_MONOTONIC
 * (tests pass their own). */
struct rate_limiter *rate_limiter_new(int max_keys, rate_clock *clock);
void rate_limiter_free(struct rate_limiter *r);

/* Counts one event of `key` ("submit:42"); false when the key already had
 * `limit` events in its `window` seconds (this one is not counted), with
 * the seconds to wait in `*retry_after`. */
bool rate_allow(struct rate_limiter *r, const char *key, int limit, int window, int *retry_after);

/* One of the events rate_allow_all counts. */
struct rate_event {
    const char *key;
    int limit;
};
/* Counts one event of each of the `n` keys, in windows of `window`
 * seconds, or of none: -1 when all were counted, else the index of the
 * first key with no event left (or of the key memory was short for), with
 * the seconds to wait in `*retry_after`. A refused call adds no key. */
int rate_allow_all(struct rate_limiter *r, const struct rate_event *events, int n, int window,
                   int *retry_after);
/* Whether `key` has an event left (false with the seconds to wait in
 * `*retry_after`), counting nothing and adding no key: a check before
 * costly work whose event is counted only once it has happened. */
bool rate_check(struct rate_limiter *r, const char *key, int limit, int *retry_after);
/* Gives back one event rate_allow counted for `key`: an attempt counted
 * before its outcome was known (so that attempts at once cannot overrun
 * the limit) that turned out not to count, such as a login that worked.
 * A key whose count comes back to 0 is forgotten at once: refunded
 * attempts hold no key. */
void rate_refund(struct rate_limiter *r, const char *key);

/* The keys held now (expired ones not yet swept included). */
int rate_limiter_keys(struct rate_limiter *r);

#endif
