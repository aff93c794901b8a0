/*
 * Internal to server/: rate limits — at most N events per key (a user, an
 * address) in a window of seconds, in a fixed-size table (a key sharing a
 * slot with another may be limited early, never late).
 */
#ifndef KGRADE_SERVER_RATE_LIMIT_H
#define KGRADE_SERVER_RATE_LIMIT_H

#include <stdbool.h>

struct rate_limiter;

struct rate_limiter *rate_limiter_new(void);
void rate_limiter_free(struct rate_limiter *r);

/* Counts one event of `key` ("submit:42", "login:alice"); false when it is
 * over `limit` in `window` seconds, with the seconds to wait in
 * `*retry_after`. */
bool rate_allow(struct rate_limiter *r, const char *key, int limit, int window, int *retry_after);

#endif
