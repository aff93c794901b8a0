/*
 * The device-side heap behind malloc and free in kernels.
 *
 * One allocation of the device memory table holds the whole heap (its size
 * is CU_LIMIT_MALLOC_HEAP_SIZE), so a kernel's accesses to malloc'ed memory
 * are checked like any other global access. Blocks are kept in a table on
 * the host side (never in device memory, where a kernel could corrupt it):
 * first fit over a list of free ranges, 16-byte granules; a request that
 * does not fit returns NULL, as on a GPU. One mutex serializes calls: they
 * are rare next to the kernel's own work. A snapshot copies the table, for
 * KGEMU_TIER=compare, which runs a launch twice from the same state.
 */
#include "emu.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define HEAP_GRANULE 16

struct heap_range {
    uint64_t base;
    uint64_t size;
};

struct range_list {
    struct heap_range *items;
    size_t count, capacity;
};

struct emu_heap {
    pthread_mutex_t lock;
    uint64_t base;
    uint64_t size;
    struct range_list free_ranges; /* sorted by base */
    struct range_list used;        /* unsorted */
};

static bool list_insert(struct range_list *list, size_t at, struct heap_range r)
{
    if (list->count == list->capacity) {
        size_t cap = list->capacity ? list->capacity * 2 : 64;
        struct heap_range *p = realloc(list->items, cap * sizeof *p);
        if (!p)
            return false;
        list->items = p;
        list->capacity = cap;
    }
    memmove(&list->items[at + 1], &list->items[at], (list->count - at) * sizeof *list->items);
    list->items[at] = r;
    list->count++;
    return true;
}

static void list_remove(struct range_list *list, size_t at)
{
    memmove(&list->items[at], &list->items[at + 1], (list->count - at - 1) * sizeof *list->items);
    list->count--;
}

struct emu_heap *emu_heap_create(struct emu_memory *memory, size_t bytes)
{
    struct emu_heap *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    bytes = (bytes + HEAP_GRANULE - 1) / HEAP_GRANULE * HEAP_GRANULE;
    if (bytes == 0 || emu_memory_alloc(memory, bytes, EMU_ALLOC_HEAP, &h->base) != CUDA_SUCCESS ||
        !list_insert(&h->free_ranges, 0, (struct heap_range){h->base, bytes})) {
        if (h->base)
            emu_memory_free(memory, h->base);
        free(h->free_ranges.items);
        free(h);
        return NULL;
    }
    h->size = bytes;
    pthread_mutex_init(&h->lock, NULL);
    return h;
}

void emu_heap_destroy(struct emu_heap *heap, struct emu_memory *memory)
{
    if (!heap)
        return;
    emu_memory_free(memory, heap->base);
    free(heap->free_ranges.items);
    free(heap->used.items);
    pthread_mutex_destroy(&heap->lock);
    free(heap);
}

uint64_t emu_heap_malloc(struct emu_heap *h, uint64_t bytes)
{
    if (bytes == 0 || bytes > h->size)
        return 0;
    uint64_t size = (bytes + HEAP_GRANULE - 1) / HEAP_GRANULE * HEAP_GRANULE;
    uint64_t address = 0;
    pthread_mutex_lock(&h->lock);
    for (size_t i = 0; i < h->free_ranges.count; i++) {
        struct heap_range *r = &h->free_ranges.items[i];
        if (r->size < size)
            continue;
        if (!list_insert(&h->used, h->used.count, (struct heap_range){r->base, size}))
            break;
        address = r->base;
        r->base += size;
        r->size -= size;
        if (r->size == 0)
            list_remove(&h->free_ranges, i);
        break;
    }
    pthread_mutex_unlock(&h->lock);
    return address;
}

/* Returns the range to the free list, merging with its neighbours. */
static bool give_back(struct emu_heap *h, struct heap_range r)
{
    size_t at = 0;
    while (at < h->free_ranges.count && h->free_ranges.items[at].base < r.base)
        at++;
    if (!list_insert(&h->free_ranges, at, r))
        return false;
    struct heap_range *items = h->free_ranges.items;
    if (at + 1 < h->free_ranges.count && items[at].base + items[at].size == items[at + 1].base) {
        items[at].size += items[at + 1].size;
        list_remove(&h->free_ranges, at + 1);
    }
    if (at > 0 && items[at - 1].base + items[at - 1].size == items[at].base) {
        items[at - 1].size += items[at].size;
        list_remove(&h->free_ranges, at);
    }
    return true;
}

bool emu_heap_free(struct emu_heap *h, uint64_t address)
{
    bool found = false;
    pthread_mutex_lock(&h->lock);
    for (size_t i = 0; i < h->used.count; i++) {
        if (h->used.items[i].base != address)
            continue;
        struct heap_range r = h->used.items[i];
        list_remove(&h->used, i);
        found = give_back(h, r);
        break;
    }
    pthread_mutex_unlock(&h->lock);
    return found;
}

/* ------------------------------------------------------------ snapshots */

struct emu_heap_snapshot {
    struct range_list free_ranges, used;
};

static bool list_copy(struct range_list *to, const struct range_list *from)
{
    to->count = to->capacity = from->count;
    to->items = malloc((from->count ? from->count : 1) * sizeof *to->items);
    if (to->items && from->count)
        memcpy(to->items, from->items, from->count * sizeof *to->items);
    return to->items != NULL;
}

static bool list_equal(const struct range_list *a, const struct range_list *b)
{
    return a->count == b->count &&
           (a->count == 0 || memcmp(a->items, b->items, a->count * sizeof *a->items) == 0);
}

struct emu_heap_snapshot *emu_heap_snapshot(struct emu_heap *h)
{
    struct emu_heap_snapshot *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    pthread_mutex_lock(&h->lock);
    bool ok = list_copy(&s->free_ranges, &h->free_ranges) && list_copy(&s->used, &h->used);
    pthread_mutex_unlock(&h->lock);
    if (!ok) {
        emu_heap_snapshot_free(s);
        return NULL;
    }
    return s;
}

bool emu_heap_restore(struct emu_heap *h, const struct emu_heap_snapshot *s)
{
    struct range_list free_ranges, used;
    if (!list_copy(&free_ranges, &s->free_ranges) || !list_copy(&used, &s->used)) {
        free(free_ranges.items);
        return false;
    }
    pthread_mutex_lock(&h->lock);
    free(h->free_ranges.items);
    free(h->used.items);
    h->free_ranges = free_ranges;
    h->used = used;
    pthread_mutex_unlock(&h->lock);
    return true;
}

bool emu_heap_matches(struct emu_heap *h, const struct emu_heap_snapshot *s)
{
    pthread_mutex_lock(&h->lock);
    bool same = list_equal(&h->free_ranges, &s->free_ranges) && list_equal(&h->used, &s->used);
    pthread_mutex_unlock(&h->lock);
    return same;
}

void emu_heap_snapshot_free(struct emu_heap_snapshot *s)
{
    if (!s)
        return;
    free(s->free_ranges.items);
    free(s->used.items);
    free(s);
}
