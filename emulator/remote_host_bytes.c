/*
 * Which of a served session's device bytes are as the host left them
 * (remote_server.h), so that a copy back to the host tells how many of
 * its bytes the host had put there itself (kgemu_copy_record.host_bytes):
 * a client that computes an answer on the host, uploads it and copies it
 * back, in any pieces, at any offset, or through a copy within the
 * device, is told from one whose kernels wrote what it copies back.
 *
 * The host writes by a copy to the device, a memset, a copy within the
 * device of bytes as it left them, and a module's image (its variables'
 * initial bytes, zeros included). Per allocation the host wrote into, one
 * entry per 4 KiB page it spans (REMOTE_HOST_PAGE, aligned on device
 * addresses): the range of the page the host wrote ([lo, hi), the union
 * of several writes as one range) and kgemu_hash of the page's bytes there
 * right after the last write. Bytes are as the host left them while the
 * page's bytes over its range still have that hash: a kernel that wrote
 * other values there changes it (one that rewrites the same values is not
 * seen, which only a kernel can do).
 * An allocation is found by the base the driver gives for an address, and
 * its entries hold only while the driver's allocation there is the same
 * one (its serial), so memory freed and made again (cuMemFree, a module
 * unloaded) holds none of the old entries. The entries cost 16 bytes per
 * 4 KiB of the allocations the host wrote into, allocated zeroed (pages
 * never written are never touched), freed with the allocation.
 *
 * Only the serving thread reads or changes them; device memory is the
 * serving process's (a device address is its host address), changed only
 * by this session's own calls, made on that thread.
 */
#include <stdlib.h>
#include <string.h>

#include "remote_server.h"

#define HOST_ITEMS_FIRST 16 /* allocations or spans before the first growth (then doubled) */

struct host_page {
    uint16_t lo, hi; /* the range written, within the page; hi == 0: none */
    uint64_t hash;   /* kgemu_hash of the page's bytes over it, once written */
};

struct remote_host_allocation {
    uint64_t base, serial;
    uint64_t first_page; /* base / REMOTE_HOST_PAGE */
    struct host_page *pages;
};

/* A part of a page: [lo, hi) within it. */
struct page_part {
    unsigned lo, hi;
};

static const unsigned char *page_bytes(uint64_t page, unsigned lo)
{
    return (const unsigned char *)(uintptr_t)(page * REMOTE_HOST_PAGE + lo);
}

static uint64_t page_hash(uint64_t page, unsigned lo, unsigned hi)
{
    return kgemu_hash(page_bytes(page, lo), hi - lo);
}

/* The part of [device, device + bytes) on `page`. */
static struct page_part page_part(CUdeviceptr device, size_t bytes, uint64_t page)
{
    uint64_t start = page * REMOTE_HOST_PAGE, end = device + bytes;
    uint64_t lo = device > start ? device - start : 0;
    uint64_t hi = end < start + REMOTE_HOST_PAGE ? end - start : REMOTE_HOST_PAGE;
    return (struct page_part){(unsigned)lo, (unsigned)hi};
}

/* Whether the page's bytes over its entry are still as the host left them. */
static bool page_kept(const struct host_page *entry, uint64_t page)
{
    return entry->hi > 0 && page_hash(page, entry->lo, entry->hi) == entry->hash;
}

/* ------------------------------------------------------- the allocations */

/* Where `base` is, or would go, in the sorted allocations. */
static size_t allocation_slot(const struct remote_host_memory *host, uint64_t base)
{
    size_t lo = 0, hi = host->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (host->allocations[mid].base < base)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* `items` (`count` of `size` bytes) with room for one more: themselves,
 * or moved (`*capacity` grown); NULL, and `items` as they were, when
 * there is no memory for it. */
static void *room(void *items, size_t *capacity, size_t count, size_t size)
{
    if (count < *capacity)
        return items;
    size_t more = *capacity == 0 ? HOST_ITEMS_FIRST : *capacity * 2;
    void *grown = realloc(items, more * size);
    if (grown != NULL)
        *capacity = more;
    return grown;
}

/* The entries of the driver's allocation `range`, made (empty) when `make`;
 * NULL when there are none (or no memory for them). */
static struct remote_host_allocation *allocation_of(struct remote_host_memory *host,
                                                    const struct emu_range *range, bool make)
{
    size_t i = allocation_slot(host, range->base);
    bool there = i < host->count && host->allocations[i].base == range->base;
    if (there && host->allocations[i].serial == range->serial)
        return &host->allocations[i];
    if (!make)
        return NULL;
    uint64_t first = range->base / REMOTE_HOST_PAGE;
    uint64_t pages = (range->base + range->size - 1) / REMOTE_HOST_PAGE - first + 1;
    struct host_page *entries = calloc(pages, sizeof *entries);
    struct remote_host_allocation *grown =
        there || entries == NULL
            ? host->allocations
            : room(host->allocations, &host->capacity, host->count, sizeof *grown);
    if (entries == NULL || grown == NULL) {
        free(entries);
        return NULL;
    }
    host->allocations = grown;
    if (there) {
        free(host->allocations[i].pages); /* an allocation made again at its base */
    } else {
        memmove(host->allocations + i + 1, host->allocations + i,
                (host->count - i) * sizeof *host->allocations);
        host->count++;
    }
    host->allocations[i] =
        (struct remote_host_allocation){range->base, range->serial, first, entries};
    return &host->allocations[i];
}

/* The entries of the allocation that holds [device, device + bytes). */
static struct remote_host_allocation *allocation_at(struct remote_session *s, CUdeviceptr device,
                                                    size_t bytes, bool make)
{
    struct emu_range range;
    if (s->served == NULL || bytes == 0 || driver_own_range(device, bytes, &range) != CUDA_SUCCESS)
        return NULL;
    return allocation_of(&s->host, &range, make);
}

static struct host_page *entry_of(struct remote_host_allocation *a, uint64_t page)
{
    return &a->pages[page - a->first_page];
}

static void allocation_drop(struct remote_host_memory *host, size_t i)
{
    free(host->allocations[i].pages);
    memmove(host->allocations + i, host->allocations + i + 1,
            (host->count - i - 1) * sizeof *host->allocations);
    host->count--;
}

void remote_host_freed(struct remote_session *s, CUdeviceptr base)
{
    size_t i = allocation_slot(&s->host, base);
    if (i < s->host.count && s->host.allocations[i].base == base)
        allocation_drop(&s->host, i);
}

void remote_host_prune(struct remote_session *s)
{
    for (size_t i = s->host.count; i-- > 0;) {
        const struct remote_host_allocation *a = &s->host.allocations[i];
        struct emu_range range;
        if (driver_own_range(a->base, 1, &range) != CUDA_SUCCESS || range.base != a->base ||
            range.serial != a->serial)
            allocation_drop(&s->host, i);
    }
}

void remote_host_release(struct remote_session *s)
{
    for (size_t i = 0; i < s->host.count; i++)
        free(s->host.allocations[i].pages);
    free(s->host.allocations);
    s->host = (struct remote_host_memory){0};
}

/* ------------------------------------------------------- the host writes */

/* Only the first and last pages of a write can hold entries that reach
 * past it; each is dropped unless still as the host left it. */
static void edge_check(struct remote_host_allocation *a, CUdeviceptr device, size_t bytes,
                       uint64_t page)
{
    struct host_page *entry = entry_of(a, page);
    struct page_part part = page_part(device, bytes, page);
    bool inside = entry->lo >= part.lo && entry->hi <= part.hi;
    if (entry->hi > 0 && !inside && !page_kept(entry, page))
        *entry = (struct host_page){0};
}

void remote_host_writing(struct remote_session *s, CUdeviceptr device, size_t bytes)
{
    struct remote_host_allocation *a = allocation_at(s, device, bytes, false);
    if (a == NULL)
        return;
    uint64_t first = device / REMOTE_HOST_PAGE, last = (device + bytes - 1) / REMOTE_HOST_PAGE;
    edge_check(a, device, bytes, first);
    if (last != first)
        edge_check(a, device, bytes, last);
}

void remote_host_wrote(struct remote_session *s, CUdeviceptr device, size_t bytes)
{
    struct remote_host_allocation *a = allocation_at(s, device, bytes, true);
    if (a == NULL)
        return;
    uint64_t last = (device + bytes - 1) / REMOTE_HOST_PAGE;
    for (uint64_t page = device / REMOTE_HOST_PAGE; page <= last; page++) {
        struct host_page *entry = entry_of(a, page);
        struct page_part part = page_part(device, bytes, page);
        if (entry->hi > 0) { /* still as the host left it (remote_host_writing) */
            part.lo = entry->lo < part.lo ? entry->lo : part.lo;
            part.hi = entry->hi > part.hi ? entry->hi : part.hi;
        }
        *entry = (struct host_page){(uint16_t)part.lo, (uint16_t)part.hi,
                                    page_hash(page, part.lo, part.hi)};
    }
}

/* ------------------------------------------------------ module variables */

/* The client's allocations (none when the session is not served). */
static size_t own_allocations(struct remote_session *s, struct emu_range **ranges)
{
    size_t count = 0;
    *ranges = NULL;
    if (s->served != NULL && driver_own_allocations(ranges, &count) != CUDA_SUCCESS)
        count = 0;
    return count;
}

uint64_t remote_host_newest(struct remote_session *s)
{
    struct emu_range *ranges;
    size_t count = own_allocations(s, &ranges);
    uint64_t newest = 0;
    for (size_t i = 0; i < count; i++)
        newest = ranges[i].serial > newest ? ranges[i].serial : newest;
    free(ranges);
    return newest;
}

void remote_host_module_loaded(struct remote_session *s, uint64_t newest)
{
    struct emu_range *ranges;
    size_t count = own_allocations(s, &ranges);
    for (size_t i = 0; i < count; i++)
        if (ranges[i].kind == EMU_ALLOC_GLOBAL && ranges[i].serial > newest)
            remote_host_wrote(s, ranges[i].base, ranges[i].size);
    free(ranges);
}

/* ------------------------------------------------ what is still the host's */

typedef void (*kept_part)(void *context, uint64_t offset, uint64_t bytes);

/* Calls `each` with every part of [device, device + bytes) that is as the
 * host left it, in order, as offsets into the range. */
static void kept_parts(struct remote_session *s, CUdeviceptr device, size_t bytes, kept_part each,
                       void *context)
{
    struct remote_host_allocation *a = allocation_at(s, device, bytes, false);
    if (a == NULL)
        return;
    uint64_t last = (device + bytes - 1) / REMOTE_HOST_PAGE;
    for (uint64_t page = device / REMOTE_HOST_PAGE; page <= last; page++) {
        const struct host_page *entry = entry_of(a, page);
        struct page_part part = page_part(device, bytes, page);
        unsigned lo = entry->lo > part.lo ? entry->lo : part.lo;
        unsigned hi = entry->hi < part.hi ? entry->hi : part.hi;
        if (lo < hi && page_kept(entry, page))
            each(context, page * REMOTE_HOST_PAGE + lo - device, hi - lo);
    }
}

static void count_part(void *context, uint64_t offset, uint64_t bytes)
{
    (void)offset;
    *(uint64_t *)context += bytes;
}

uint64_t remote_host_kept(struct remote_session *s, CUdeviceptr device, size_t bytes)
{
    uint64_t kept = 0;
    kept_parts(s, device, bytes, count_part, &kept);
    return kept;
}

/* ------------------------------------------------- copies within the device */

/* Adds a part to the spans, joined to the last when it follows it. A part
 * that finds no room is left out (counted as not the host's). */
static void span_part(void *context, uint64_t offset, uint64_t bytes)
{
    struct remote_host_spans *spans = context;
    struct remote_host_span *last = spans->count > 0 ? &spans->span[spans->count - 1] : NULL;
    if (last != NULL && last->offset + last->bytes == offset) {
        last->bytes += bytes;
        return;
    }
    struct remote_host_span *span =
        room(spans->span, &spans->capacity, spans->count, sizeof *spans->span);
    if (span == NULL)
        return;
    spans->span = span;
    spans->span[spans->count++] = (struct remote_host_span){offset, bytes};
}

void remote_host_copying(struct remote_session *s, CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                         struct remote_host_spans *spans)
{
    *spans = (struct remote_host_spans){0};
    kept_parts(s, src, bytes, span_part, spans);
    for (size_t i = 0; i < spans->count; i++)
        remote_host_writing(s, dst + spans->span[i].offset, spans->span[i].bytes);
}

void remote_host_copied(struct remote_session *s, CUdeviceptr dst, bool made,
                        struct remote_host_spans *spans)
{
    for (size_t i = 0; made && i < spans->count; i++)
        remote_host_wrote(s, dst + spans->span[i].offset, spans->span[i].bytes);
    free(spans->span);
    *spans = (struct remote_host_spans){0};
}
