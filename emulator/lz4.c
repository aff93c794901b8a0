/*
 * LZ4 block decoding, for fatbinaries built with nvcc --compress-mode=speed.
 *
 * A block is a run of sequences: a token (literal count in the high four
 * bits, match length - 4 in the low four; 15 means more bytes follow, each
 * added, until one is not 255), the literals, then a two-byte offset back
 * into what is already decoded. The last sequence has literals only.
 */
#include <stdbool.h>

#include "decompress.h"

#define LZ4_MIN_MATCH 4

/* A length of 15 or more: the bytes that follow add to it. */
static bool lz4_length(const uint8_t **ip, const uint8_t *end, size_t *length)
{
    if (*length != 15)
        return true;
    uint8_t b;
    do {
        if (*ip >= end)
            return false;
        b = *(*ip)++;
        *length += b;
    } while (b == 255);
    return true;
}

long emu_lz4_decompress(const uint8_t *src, size_t src_size, uint8_t *dst, size_t dst_size)
{
    const uint8_t *ip = src, *end = src + src_size;
    size_t op = 0;
    while (ip < end) {
        uint8_t token = *ip++;
        size_t literals = token >> 4;
        if (!lz4_length(&ip, end, &literals) || literals > (size_t)(end - ip) ||
            literals > dst_size - op)
            return -1;
        for (size_t i = 0; i < literals; i++)
            dst[op++] = *ip++;
        if (ip == end)
            break; /* the last sequence */
        if (end - ip < 2)
            return -1;
        size_t offset = (size_t)ip[0] | (size_t)ip[1] << 8;
        ip += 2;
        size_t match = token & 15;
        if (offset == 0 || offset > op || !lz4_length(&ip, end, &match))
            return -1;
        match += LZ4_MIN_MATCH;
        if (match > dst_size - op)
            return -1;
        for (size_t i = 0; i < match; i++, op++) /* may overlap what it copies */
            dst[op] = dst[op - offset];
    }
    return (long)op;
}
