/*
 * Internal to emulator/: content-defined chunking, so that bytes are known
 * again wherever they lie. A run of bytes is cut into chunks where a gear
 * rolling hash of its last 64 bytes has its top bits clear (FastCDC's
 * cut, past a minimum length, forced at a maximum), so the cuts depend on
 * the bytes alone: the same bytes at another offset, in other pieces or
 * after other bytes are cut the same way after their first cut, and their
 * chunks have the same fingerprints (kgemu_hash of a chunk's bytes).
 *
 * A served session (remote_served.c) keeps the fingerprints of every copy
 * to the device; kgemu_served_uploaded_bytes cuts a buffer the same way
 * and counts the bytes of its chunks found there.
 */
#ifndef KGRADE_EMULATOR_CHUNKS_H
#define KGRADE_EMULATOR_CHUNKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"

/* Chunk lengths: no cut before the minimum, one forced at the maximum;
 * between, a cut where the gear hash's top EMU_CHUNK_MASK_BITS bits are
 * clear (every 2 KiB on average). A set keeps up to EMU_CHUNK_SET_MAX
 * fingerprints (about 9 GB of chunks). */
#define EMU_CHUNK_MIN       256u
#define EMU_CHUNK_MAX       8192u
#define EMU_CHUNK_MASK_BITS 11
#define EMU_CHUNK_SET_MAX   (1u << 22)

/* Called at each chunk's end with its fingerprint and length. */
typedef void emu_chunk_found(void *context, uint64_t fingerprint, size_t bytes);

struct emu_chunker {
    uint64_t gear;        /* the rolling hash */
    size_t length;        /* bytes of the chunk so far */
    struct emu_hash hash; /* of the chunk so far */
    emu_chunk_found *found;
    void *context;
};

void emu_chunker_start(struct emu_chunker *chunker, emu_chunk_found *found, void *context);
/* The next bytes of the run: `found` for each chunk they end. */
void emu_chunker_add(struct emu_chunker *chunker, const void *bytes, size_t size);
/* The run's end: `found` for the chunk it ends, if any. */
void emu_chunker_end(struct emu_chunker *chunker);

/* A set of fingerprints, up to EMU_CHUNK_SET_MAX (then `lost`). */
struct emu_chunk_set {
    uint64_t *slot; /* open addressing; 0: empty */
    size_t capacity, count;
    bool lost; /* a fingerprint was not kept: the set was full or out of memory */
};

void emu_chunk_set_add(struct emu_chunk_set *set, uint64_t fingerprint);
bool emu_chunk_set_has(const struct emu_chunk_set *set, uint64_t fingerprint);
void emu_chunk_set_free(struct emu_chunk_set *set);

#endif
