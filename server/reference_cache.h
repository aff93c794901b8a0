/*
 * Internal to server/: the exercises' references as their reference jobs
 * built them (grader_reference_build), kept per exercise version and
 * device, so the service compiles a reference once per version, not once
 * per submission. Safe to use from every worker thread; at most
 * REFERENCE_CACHE_ENTRIES are kept, the least recently used dropped first.
 */
#ifndef KGRADE_SERVER_REFERENCE_CACHE_H
#define KGRADE_SERVER_REFERENCE_CACHE_H

#include "grader/grader.h"

#define REFERENCE_CACHE_ENTRIES 64

struct reference_cache;

struct reference_cache *reference_cache_new(void);
void reference_cache_free(struct reference_cache *cache);

/* A copy of the reference of `version` on `device` (the caller owns it),
 * or NULL when there is none. */
json_t *reference_cache_get(struct reference_cache *cache, const char *version,
                            enum grader_device device);

/* Keeps a copy of `reference`. */
void reference_cache_put(struct reference_cache *cache, const char *version,
                         enum grader_device device, const json_t *reference);

#endif
