/*
 * Fatbinaries: finding the PTX inside one, as a driver does to JIT it.
 *
 * nvcc -fatbin (and the .nv_fatbin section of a program nvcc built) holds
 * a header and entries, each a header and a payload: PTX text (kind 1) or
 * a cubin (kind 2) for one architecture. nvcc compresses the payloads by
 * default, with Zstandard (flag 0x8000; LZ4, flag 0x2000, for
 * --compress-mode=speed). A program that embeds one passes the fatbinary
 * itself or the wrapper nvcc puts around it (magic 0x466243B1, with a
 * pointer to the fatbinary).
 *
 * Layout (little-endian), as nvcc 13 writes it and cuobjdump reads it:
 *   header  u32 magic 0xBA55ED50, u16 version 1, u16 header bytes,
 *           u64 bytes of entries that follow
 *   entry   u16 kind, u16 -, u32 header bytes, u64 payload bytes (padded),
 *           u32 compressed bytes, u32 -, u32 PTX version, u32 arch (90),
 *           u32 name offset, u32 name bytes, u64 flags, u64 -,
 *           u64 uncompressed bytes; the payload follows the entry header.
 * The virtual GPU runs the PTX of the newest architecture not newer than
 * the device's; cubins are machine code it cannot run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decompress.h"
#include "emu.h"

#define FATBIN_MAGIC         0xBA55ED50u
#define FATBIN_WRAPPER_MAGIC 0x466243B1u
#define FATBIN_HEADER_BYTES  16
#define ENTRY_HEADER_MIN     64
#define ENTRY_PTX            1
#define FLAG_LZ4             0x2000u
#define FLAG_ZSTD            0x8000u
#define FATBIN_PTX_MAX       ((size_t)256 << 20) /* the most text one entry may unpack to */

struct fatbin_entry {
    const uint8_t *payload;
    uint64_t payload_bytes;
    uint32_t compressed_bytes;
    uint32_t arch;
    uint64_t flags;
    uint64_t uncompressed_bytes;
};

static uint64_t read_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The fatbinary itself: `image`, or what its wrapper points to. */
static const uint8_t *fatbin_data(const void *image)
{
    const uint8_t *p = image;
    if (read_le(p, 4) != FATBIN_WRAPPER_MAGIC)
        return p;
    const void *data;
    memcpy(&data, p + 8, sizeof data); /* after the magic and the version */
    return data;
}

bool emu_fatbin_is(const void *image)
{
    const uint8_t *bytes = image;
    for (int i = 0; i < 4; i++)
        if (bytes[i] == 0) /* no magic holds a zero: a shorter text ends here */
            return false;
    uint64_t magic = read_le(image, 4);
    return magic == FATBIN_MAGIC || magic == FATBIN_WRAPPER_MAGIC;
}

static struct fatbin_entry entry_read(const uint8_t *e)
{
    return (struct fatbin_entry){
        .payload = e + read_le(e + 4, 4),
        .payload_bytes = read_le(e + 8, 8),
        .compressed_bytes = (uint32_t)read_le(e + 16, 4),
        .arch = (uint32_t)read_le(e + 28, 4),
        .flags = read_le(e + 40, 8),
        .uncompressed_bytes = read_le(e + 56, 8),
    };
}

/* The PTX entry of the newest architecture up to `sm`; `newest_any` gets
 * the newest PTX architecture of all (0: no PTX). False when damaged. */
static bool fatbin_find_ptx(const uint8_t *fatbin, int sm, struct fatbin_entry *best,
                            uint32_t *newest_any)
{
    if (read_le(fatbin, 4) != FATBIN_MAGIC)
        return false;
    uint64_t at = read_le(fatbin + 6, 2), end = at + read_le(fatbin + 8, 8);
    *newest_any = 0;
    best->payload = NULL;
    while (at + ENTRY_HEADER_MIN <= end) {
        const uint8_t *e = fatbin + at;
        uint64_t header = read_le(e + 4, 4);
        struct fatbin_entry entry = entry_read(e);
        if (header < ENTRY_HEADER_MIN || header > end - at ||
            entry.payload_bytes > end - at - header)
            return false;
        if (read_le(e, 2) == ENTRY_PTX) {
            *newest_any = entry.arch > *newest_any ? entry.arch : *newest_any;
            if (entry.arch <= (uint32_t)sm && (best->payload == NULL || entry.arch > best->arch))
                *best = entry;
        }
        at += header + entry.payload_bytes;
    }
    return true;
}

/* The entry's text, decompressed and NUL-terminated (malloc'ed); NULL
 * when it does not unpack to the size its header gives. */
static char *entry_text(const struct fatbin_entry *e)
{
    bool compressed = e->flags & (FLAG_LZ4 | FLAG_ZSTD);
    uint64_t bytes = compressed ? e->uncompressed_bytes : e->payload_bytes;
    if (bytes > FATBIN_PTX_MAX || (compressed && e->compressed_bytes > e->payload_bytes))
        return NULL;
    char *text = malloc((size_t)bytes + 1);
    if (text == NULL)
        return NULL;
    long got = (long)bytes;
    if (e->flags & FLAG_ZSTD)
        got = emu_zstd_decompress(e->payload, e->compressed_bytes, (uint8_t *)text, bytes);
    else if (e->flags & FLAG_LZ4)
        got = emu_lz4_decompress(e->payload, e->compressed_bytes, (uint8_t *)text, bytes);
    else
        memcpy(text, e->payload, (size_t)bytes);
    if (got != (long)bytes) {
        free(text);
        return NULL;
    }
    text[bytes] = '\0'; /* the payload may end in padding NULs already */
    return text;
}

CUresult emu_fatbin_ptx(const void *image, int sm, char **ptx, char *log, size_t log_size)
{
    struct fatbin_entry entry = {0};
    uint32_t newest = 0;
    const uint8_t *fatbin = fatbin_data(image);
    if (fatbin == NULL || !fatbin_find_ptx(fatbin, sm, &entry, &newest)) {
        snprintf(log, log_size, "the fatbinary is damaged: its entries run past its end");
        return CUDA_ERROR_INVALID_IMAGE;
    }
    if (entry.payload == NULL) {
        if (newest > 0)
            snprintf(log, log_size,
                     "the fatbinary's PTX is for compute_%u, newer than the device (sm_%d)", newest,
                     sm);
        else
            snprintf(log, log_size,
                     "the fatbinary holds only cubins (machine code for a real GPU) and no "
                     "PTX; the virtual GPU runs PTX: build it with -arch=compute_%d",
                     sm);
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    if ((*ptx = entry_text(&entry)) == NULL) {
        snprintf(log, log_size, "the fatbinary's PTX for compute_%u does not unpack", entry.arch);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    return CUDA_SUCCESS;
}
