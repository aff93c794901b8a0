/*
 * Internal to server/: rate limits — at most N events per key (a user, an
 * address, a login name) in a fixed window of seconds that opens at the
 * key's first event.
 *
 * Every key is counted exactly: keys are kept whole and compared as
 * strings, so no key can reset or spend another's count. Memory is bounded
 * by expiry, never by overwriting a live count: a key whose window is over
 * is forgotten (in a sweep every RATE_SWEEP_SECONDS, and whenever the table
 * is full). At most `max_keys` keys are live at once; while that many are,
 * a NEW key fails closed: it is limited, with the seconds until the first
 * live window ends as its Retry-After, and keys already counted go on as
 * before. Keys that anyone can make up (a login name, an address) must
 * therefore live in a limiter of their own, apart from keys only an
 * account holder can add, or filling one would refuse the other. Buckets
 * are chosen by SipHash under a random key, so clients cannot pile their
 * keys into one bucket.
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
