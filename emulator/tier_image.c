/*
 * A copy of a context's device memory, for KGEMU_TIER=compare
 * (tier_compare.c): every allocation's bytes and the device-side heap's
 * table of blocks, taken before a launch and after its first run, written
 * back, and compared with the memory after the second run.
 *
 * The copy is sparse: allocations are cut into chunks of IMAGE_CHUNK bytes
 * and a chunk that is all zero is not copied. A program's buffers are
 * mostly written, but a large allocation of which a kernel touches a few
 * pages (a 2.2 GB buffer indexed past 2^31) costs a read of its zero pages,
 * not gigabytes of host memory.
 */
#include "tier.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IMAGE_CHUNK ((uint64_t)64 << 10)

struct tier_image_allocation {
    struct emu_range range;
    uint8_t **chunks; /* per chunk: a copy of its bytes, or NULL when they are all zero */
};

static bool all_zero(const uint8_t *p, size_t n)
{
    return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

static size_t chunk_count(const struct emu_range *r)
{
    return (size_t)((r->size + IMAGE_CHUNK - 1) / IMAGE_CHUNK);
}

/* The live bytes of chunk c of the allocation, and how many there are. */
static uint8_t *chunk_live(const struct emu_range *r, size_t c, size_t *bytes)
{
    uint64_t offset = (uint64_t)c * IMAGE_CHUNK;
    *bytes = (size_t)(r->size - offset < IMAGE_CHUNK ? r->size - offset : IMAGE_CHUNK);
    return (uint8_t *)(uintptr_t)(r->base + offset);
}

static void allocation_free(struct tier_image_allocation *a)
{
    for (size_t c = 0; a->chunks && c < chunk_count(&a->range); c++)
        free(a->chunks[c]);
    free(a->chunks);
}

static bool allocation_take(struct tier_image_allocation *a, const struct emu_range *r)
{
    a->range = *r;
    a->chunks = calloc(chunk_count(r) ? chunk_count(r) : 1, sizeof *a->chunks);
    if (!a->chunks)
        return false;
    for (size_t c = 0; c < chunk_count(r); c++) {
        size_t n;
        const uint8_t *live = chunk_live(r, c, &n);
        if (all_zero(live, n))
            continue;
        if (!(a->chunks[c] = malloc(n)))
            return false;
        memcpy(a->chunks[c], live, n);
    }
    return true;
}

void tier_image_free(struct tier_image *image)
{
    for (size_t i = 0; image->allocations && i < image->count; i++)
        allocation_free(&image->allocations[i]);
    free(image->allocations);
    emu_heap_snapshot_free(image->heap);
    memset(image, 0, sizeof *image);
}

bool tier_image_take(struct tier_image *image, struct emu_memory *memory, struct emu_heap *heap)
{
    memset(image, 0, sizeof *image);
    struct emu_range *ranges;
    size_t count;
    if (!emu_memory_list(memory, &ranges, &count))
        return false;
    image->allocations = calloc(count ? count : 1, sizeof *image->allocations);
    bool ok = image->allocations != NULL;
    if (ok)
        image->count = count;
    for (size_t i = 0; ok && i < count; i++)
        ok = allocation_take(&image->allocations[i], &ranges[i]);
    free(ranges);
    if (ok && heap)
        ok = (image->heap = emu_heap_snapshot(heap)) != NULL;
    if (!ok)
        tier_image_free(image);
    return ok;
}

/* The allocation is still the one the image copied. */
static bool still_there(struct emu_memory *memory, const struct emu_range *r)
{
    struct emu_range now;
    return emu_memory_find(memory, r->base, r->size, &now) && now.base == r->base &&
           now.serial == r->serial;
}

bool tier_image_put(const struct tier_image *image, struct emu_memory *memory,
                    struct emu_heap *heap)
{
    for (size_t i = 0; i < image->count; i++) {
        const struct tier_image_allocation *a = &image->allocations[i];
        if (!still_there(memory, &a->range))
            return false;
        for (size_t c = 0; c < chunk_count(&a->range); c++) {
            size_t n;
            uint8_t *live = chunk_live(&a->range, c, &n);
            if (a->chunks[c])
                memcpy(live, a->chunks[c], n);
            else if (!all_zero(live, n))
                memset(live, 0, n);
        }
    }
    return !image->heap || (heap && emu_heap_restore(heap, image->heap));
}

static bool chunk_agrees(const struct tier_image_allocation *a, size_t c)
{
    size_t n;
    const uint8_t *live = chunk_live(&a->range, c, &n);
    return a->chunks[c] ? memcmp(a->chunks[c], live, n) == 0 : all_zero(live, n);
}

/* The image's byte at `offset` of the allocation. */
static uint8_t image_byte(const struct tier_image_allocation *a, uint64_t offset)
{
    const uint8_t *chunk = a->chunks[offset / IMAGE_CHUNK];
    return chunk ? chunk[offset % IMAGE_CHUNK] : 0;
}

static uint32_t image_word(const struct tier_image_allocation *a, uint64_t offset)
{
    uint32_t w = 0;
    for (unsigned k = 0; k < 4; k++)
        w |= (uint32_t)image_byte(a, offset + k) << (8 * k);
    return w;
}

/* Says where the allocation first differs from the live memory, from
 * chunk `c` on, and how many bytes do. */
static void describe(const struct tier_image_allocation *a, size_t index, size_t count, size_t c,
                     char *what, size_t size)
{
    const struct emu_range *r = &a->range;
    const uint8_t *live = (const uint8_t *)(uintptr_t)r->base;
    uint64_t first = (uint64_t)c * IMAGE_CHUNK, differing = 0;
    while (image_byte(a, first) == live[first])
        first++;
    for (; c < chunk_count(r); c++) {
        size_t n;
        uint64_t from = (uint64_t)c * IMAGE_CHUNK;
        chunk_live(r, c, &n);
        if (chunk_agrees(a, c))
            continue;
        for (uint64_t k = from; k < from + n; k++)
            differing += image_byte(a, k) != live[k];
    }
    uint64_t word = first & ~(uint64_t)3;
    uint32_t live_word = 0;
    if (word + 4 <= r->size)
        memcpy(&live_word, live + word, 4);
    snprintf(what, size,
             "device memory: allocation %zu of %zu (%s #%" PRIu64 ", %" PRIu64
             " bytes), byte offset %" PRIu64
             ": 0x%02x in the interpreter, 0x%02x in the compiled tier "
             "(the 32-bit word at offset %" PRIu64 ": 0x%08x and 0x%08x); %" PRIu64
             " bytes of it differ",
             index + 1, count, emu_allocation_noun(r->kind), r->number, r->size, first,
             image_byte(a, first), live[first], word, word + 4 <= r->size ? image_word(a, word) : 0,
             live_word, differing);
}

static bool same_range(const struct emu_range *a, const struct emu_range *b)
{
    return a->base == b->base && a->size == b->size && a->kind == b->kind && a->serial == b->serial;
}

static bool table_agrees(const struct tier_image *image, struct emu_memory *memory, char *what,
                         size_t size)
{
    struct emu_range *now;
    size_t count;
    if (!emu_memory_list(memory, &now, &count)) {
        snprintf(what, size, "nothing yet: out of host memory to compare device memory");
        return false;
    }
    bool same = count == image->count;
    for (size_t i = 0; same && i < count; i++)
        same = same_range(&now[i], &image->allocations[i].range);
    free(now);
    if (!same)
        snprintf(what, size,
                 "the table of device allocations (%zu in the interpreter, %zu in the compiled "
                 "tier, or not the same ones)",
                 image->count, count);
    return same;
}

bool tier_image_agrees(const struct tier_image *image, struct emu_memory *memory,
                       struct emu_heap *heap, char *what, size_t size)
{
    if (!table_agrees(image, memory, what, size))
        return false;
    for (size_t i = 0; i < image->count; i++) {
        const struct tier_image_allocation *a = &image->allocations[i];
        for (size_t c = 0; c < chunk_count(&a->range); c++) {
            if (!chunk_agrees(a, c)) {
                describe(a, i, image->count, c, what, size);
                return false;
            }
        }
    }
    if (image->heap && (!heap || !emu_heap_matches(heap, image->heap))) {
        snprintf(what, size,
                 "the device-side malloc heap's blocks (malloc and free in the kernel "
                 "did not give and take back the same blocks)");
        return false;
    }
    return true;
}
