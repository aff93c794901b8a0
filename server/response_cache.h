/*
 * Internal to server/: rendered answers kept for reuse, each under a key
 * and the version of the data it was rendered from.
 *
 * A scoreboard over thousands of results costs milliseconds to render and
 * changes only when a result does; readers ask far more often. So a
 * rendered body is kept with the database's scoreboard version (which a
 * trigger moves inside every transaction that changes what a scoreboard
 * shows) and served again while the version is the same. The cache holds
 * at most RESPONSE_CACHE_ENTRIES bodies, dropping the least recently used.
 */
#ifndef KGRADE_SERVER_RESPONSE_CACHE_H
#define KGRADE_SERVER_RESPONSE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define RESPONSE_CACHE_ENTRIES 64
#define RESPONSE_CACHE_KEY_MAX 160 /* longer keys are not cached */

struct response_cache;

struct response_cache *response_cache_new(void);
void response_cache_free(struct response_cache *cache);

/* A copy (malloc'ed) of the body kept under `key` at `version`; NULL when
 * there is none or it was rendered at another version. */
char *response_cache_get(struct response_cache *cache, const char *key, int64_t version,
                         size_t *size);

/* Keeps a copy of `body` under `key` at `version`, replacing what was kept
 * under the key at an older version. */
void response_cache_put(struct response_cache *cache, const char *key, int64_t version,
                        const char *body, size_t size);

#endif
