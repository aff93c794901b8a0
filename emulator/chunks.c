/*
 * Content-defined chunking and sets of chunk fingerprints (chunks.h).
 *
 * The gear hash takes a byte as h = (h << 1) + gear[byte], so its top
 * EMU_CHUNK_MASK_BITS bits depend on the last 64 bytes alone; the gear
 * table is fixed (splitmix64 of 0..255), so cuts are the same in every
 * process. Bytes before a chunk's minimum length are not rolled but for
 * its last 64, which give the hash at the first place a cut may be.
 */
#include "chunks.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define GEAR_WINDOW      64u /* bytes the gear hash depends on */
#define CHUNK_MASK       (~0ull << (64 - EMU_CHUNK_MASK_BITS))
#define SET_FIRST        4096u /* slots before the first growth (then doubled) */
#define SET_LOAD_DIVISOR 2     /* grown when more than 1 / divisor of the slots are taken */

static uint64_t gear[256];
static pthread_once_t gear_once = PTHREAD_ONCE_INIT;

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ x >> 30) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ x >> 27) * 0x94D049BB133111EBull;
    return x ^ x >> 31;
}

static void gear_fill(void)
{
    for (unsigned i = 0; i < 256; i++)
        gear[i] = splitmix64(i);
}

void emu_chunker_start(struct emu_chunker *chunker, emu_chunk_found *found, void *context)
{
    pthread_once(&gear_once, gear_fill);
    *chunker = (struct emu_chunker){.found = found, .context = context};
    emu_hash_start(&chunker->hash);
}

/* How many of `size` bytes at `p` belong to the chunk: all of them, or up
 * to its cut (`*cut`). */
static size_t chunk_take(struct emu_chunker *chunker, const unsigned char *p, size_t size,
                         bool *cut)
{
    size_t length = chunker->length, i = 0;
    size_t roll_from = EMU_CHUNK_MIN - GEAR_WINDOW;
    if (length < roll_from)
        i = roll_from - length < size ? roll_from - length : size;
    uint64_t h = chunker->gear;
    for (; i < size && length + i < EMU_CHUNK_MIN; i++)
        h = (h << 1) + gear[p[i]];
    size_t limit = EMU_CHUNK_MAX - length < size ? EMU_CHUNK_MAX - length : size;
    for (; i < limit; i++) {
        h = (h << 1) + gear[p[i]];
        if ((h & CHUNK_MASK) == 0) {
            *cut = true;
            return i + 1;
        }
    }
    *cut = length + i == EMU_CHUNK_MAX;
    chunker->gear = h;
    return i;
}

static void chunk_found(struct emu_chunker *chunker)
{
    chunker->found(chunker->context, emu_hash_end(&chunker->hash), chunker->length);
    chunker->gear = 0;
    chunker->length = 0;
    emu_hash_start(&chunker->hash);
}

void emu_chunker_add(struct emu_chunker *chunker, const void *bytes, size_t size)
{
    const unsigned char *p = bytes;
    while (size > 0) {
        bool cut = false;
        size_t taken = chunk_take(chunker, p, size, &cut);
        emu_hash_add(&chunker->hash, p, taken);
        chunker->length += taken;
        p += taken, size -= taken;
        if (cut)
            chunk_found(chunker);
    }
}

void emu_chunker_end(struct emu_chunker *chunker)
{
    if (chunker->length > 0)
        chunk_found(chunker);
}

/* ------------------------------------------------------------------ sets */

static uint64_t set_key(uint64_t fingerprint)
{
    return fingerprint != 0 ? fingerprint : 1;
}

static void set_place(uint64_t *slot, size_t capacity, uint64_t key)
{
    size_t i = (size_t)key & (capacity - 1);
    while (slot[i] != 0 && slot[i] != key)
        i = (i + 1) & (capacity - 1);
    slot[i] = key;
}

/* Room for one more fingerprint; false when none can be had. */
static bool set_room(struct emu_chunk_set *set)
{
    if (set->count >= EMU_CHUNK_SET_MAX)
        return false;
    if ((set->count + 1) * SET_LOAD_DIVISOR <= set->capacity)
        return true;
    size_t capacity = set->capacity == 0 ? SET_FIRST : set->capacity * 2;
    uint64_t *slot = calloc(capacity, sizeof *slot);
    if (slot == NULL)
        return false;
    for (size_t i = 0; i < set->capacity; i++)
        if (set->slot[i] != 0)
            set_place(slot, capacity, set->slot[i]);
    free(set->slot);
    set->slot = slot;
    set->capacity = capacity;
    return true;
}

void emu_chunk_set_add(struct emu_chunk_set *set, uint64_t fingerprint)
{
    if (emu_chunk_set_has(set, fingerprint))
        return;
    if (!set_room(set)) {
        set->lost = true;
        return;
    }
    set_place(set->slot, set->capacity, set_key(fingerprint));
    set->count++;
}

bool emu_chunk_set_has(const struct emu_chunk_set *set, uint64_t fingerprint)
{
    uint64_t key = set_key(fingerprint);
    if (set->capacity == 0)
        return false;
    for (size_t i = (size_t)key & (set->capacity - 1); set->slot[i] != 0;
         i = (i + 1) & (set->capacity - 1))
        if (set->slot[i] == key)
            return true;
    return false;
}

void emu_chunk_set_free(struct emu_chunk_set *set)
{
    free(set->slot);
    *set = (struct emu_chunk_set){0};
}
