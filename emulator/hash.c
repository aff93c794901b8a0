/*
 * kgemu_hash and its state in pieces (hash.h): XXH64 with seed 0.
 */
#include <string.h>

#include "emu.h"
#include "hash.h"

#define PRIME1 0x9E3779B185EBCA87ull
#define PRIME2 0xC2B2AE3D27D4EB4Full
#define PRIME3 0x165667B19E3779F9ull
#define PRIME4 0x85EBCA77C2B2AE63ull
#define PRIME5 0x27D4EB2F165667C5ull

static uint64_t rotate(uint64_t x, int bits)
{
    return x << bits | x >> (64 - bits);
}

static uint64_t word64(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

static uint32_t word32(const unsigned char *p)
{
    uint32_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

static uint64_t lane_round(uint64_t lane, uint64_t word)
{
    return rotate(lane + word * PRIME2, 31) * PRIME1;
}

static uint64_t lane_merge(uint64_t h, uint64_t lane)
{
    return (h ^ lane_round(0, lane)) * PRIME1 + PRIME4;
}

void emu_hash_start(struct emu_hash *hash)
{
    memset(hash, 0, sizeof *hash);
    hash->lane[0] = PRIME1 + PRIME2;
    hash->lane[1] = PRIME2;
    hash->lane[2] = 0;
    hash->lane[3] = -PRIME1;
}

/* Whole stripes from `p`; returns the bytes taken. */
static size_t hash_stripes(struct emu_hash *hash, const unsigned char *p, size_t size)
{
    uint64_t a = hash->lane[0], b = hash->lane[1], c = hash->lane[2], d = hash->lane[3];
    size_t done = 0;
    for (; size - done >= EMU_HASH_STRIPE; done += EMU_HASH_STRIPE) {
        a = lane_round(a, word64(p + done));
        b = lane_round(b, word64(p + done + 8));
        c = lane_round(c, word64(p + done + 16));
        d = lane_round(d, word64(p + done + 24));
    }
    hash->lane[0] = a, hash->lane[1] = b, hash->lane[2] = c, hash->lane[3] = d;
    return done;
}

void emu_hash_add(struct emu_hash *hash, const void *bytes, size_t size)
{
    const unsigned char *p = bytes;
    if (size == 0)
        return;
    hash->total += size;
    if (hash->pending_bytes > 0) {
        size_t fill = EMU_HASH_STRIPE - hash->pending_bytes;
        fill = fill < size ? fill : size;
        memcpy(hash->pending + hash->pending_bytes, p, fill);
        hash->pending_bytes += fill;
        p += fill, size -= fill;
        if (hash->pending_bytes < EMU_HASH_STRIPE)
            return;
        hash_stripes(hash, hash->pending, EMU_HASH_STRIPE);
        hash->pending_bytes = 0;
    }
    size_t done = hash_stripes(hash, p, size);
    memcpy(hash->pending, p + done, size - done);
    hash->pending_bytes = size - done;
}

/* The lanes folded into one, once a stripe was whole. */
static uint64_t hash_lanes(const struct emu_hash *hash)
{
    const uint64_t *v = hash->lane;
    uint64_t h = rotate(v[0], 1) + rotate(v[1], 7) + rotate(v[2], 12) + rotate(v[3], 18);
    for (int i = 0; i < EMU_HASH_LANES; i++)
        h = lane_merge(h, v[i]);
    return h;
}

uint64_t emu_hash_end(const struct emu_hash *hash)
{
    uint64_t h = hash->total >= EMU_HASH_STRIPE ? hash_lanes(hash) : PRIME5;
    h += hash->total;
    const unsigned char *p = hash->pending, *end = p + hash->pending_bytes;
    for (; end - p >= 8; p += 8)
        h = rotate(h ^ lane_round(0, word64(p)), 27) * PRIME1 + PRIME4;
    if (end - p >= 4) {
        h = rotate(h ^ word32(p) * PRIME1, 23) * PRIME2 + PRIME3;
        p += 4;
    }
    for (; p < end; p++)
        h = rotate(h ^ *p * PRIME5, 11) * PRIME1;
    h ^= h >> 33;
    h *= PRIME2;
    h ^= h >> 29;
    h *= PRIME3;
    return h ^ h >> 32;
}

EMU_EXPORT unsigned long long kgemu_hash(const void *bytes, size_t size)
{
    struct emu_hash hash;
    emu_hash_start(&hash);
    if (size > 0)
        emu_hash_add(&hash, bytes, size);
    return emu_hash_end(&hash);
}
