/*
 * Device memory: the table of live allocations that every device access and
 * every driver copy is checked against.
 *
 * An allocation is an anonymous private mapping of its own, so it is zero
 * filled and page aligned (more than the 256 bytes CUDA promises), and the
 * device address is the host address. Pages are committed by the kernel on
 * first touch (MAP_NORESERVE), so a 400 MB buffer costs nothing until it is
 * written. What the table charges against the modeled device's capacity is
 * the mapped (page-rounded) size. Page-locked host memory is entered in
 * the table too (emu_memory_adopt), so that kernels reach it through the
 * same checks, but it is the driver's (driver_host_memory.c) or the
 * program's: the table neither maps it, charges it, nor unmaps it.
 *
 * The table is an array sorted by base address, searched by bisection:
 * O(log n) lookups, O(n) inserts and removals, which suits a program that
 * allocates a few buffers and then checks millions of accesses. Lookups take
 * the read side of a rwlock, so the host threads that run a kernel check
 * accesses in parallel; alloc and free take the write side.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emu.h"

/* Slots the table starts with; it doubles when full. */
#define MEMORY_TABLE_INITIAL 16

struct emu_allocation {
    struct emu_range range;
    size_t mapped;           /* the length of the mapping: range.size rounded up to pages;
                                0 for adopted memory, which the table neither maps nor charges */
    struct emu_range window; /* what kernels may touch (emu_memory_set_window); range by default */
};

struct emu_memory {
    pthread_rwlock_t lock;
    struct emu_allocation *table; /* sorted by range.base */
    size_t count;
    size_t slots;
    size_t used;                       /* sum of the mapped lengths */
    uint64_t serials;                  /* allocations made so far: the last one's serial */
    uint64_t numbers[EMU_ALLOC_KINDS]; /* of them, of each kind */
    struct emu_range freed[EMU_FREED_REMEMBERED]; /* windows of the latest freed, in turn */
    unsigned freed_next;
    size_t capacity;
    size_t page;
};

struct emu_memory *emu_memory_create(size_t capacity)
{
    struct emu_memory *memory = calloc(1, sizeof *memory);
    if (memory == NULL)
        return NULL;
    /* Writers first: glibc's default lets a stream of lookups from the
     * threads running a kernel starve cuMemAlloc and cuMemFree forever. */
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    int failed = pthread_rwlock_init(&memory->lock, &attr);
    pthread_rwlockattr_destroy(&attr);
    if (failed) {
        free(memory);
        return NULL;
    }
    memory->capacity = capacity;
    memory->page = (size_t)sysconf(_SC_PAGESIZE);
    return memory;
}

void emu_memory_destroy(struct emu_memory *memory)
{
    if (memory == NULL)
        return;
    for (size_t i = 0; i < memory->count; i++)
        if (memory->table[i].mapped > 0)
            munmap((void *)(uintptr_t)memory->table[i].range.base, memory->table[i].mapped);
    free(memory->table);
    pthread_rwlock_destroy(&memory->lock);
    free(memory);
}

/* The number of allocations whose base is <= address: the index of the one
 * that may contain `address`, plus one. Caller holds the lock. */
static size_t memory_upper_bound(const struct emu_memory *memory, uint64_t address)
{
    size_t lo = 0, hi = memory->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (memory->table[mid].range.base <= address)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool memory_grow(struct emu_memory *memory)
{
    if (memory->count < memory->slots)
        return true;
    size_t slots = memory->slots ? 2 * memory->slots : MEMORY_TABLE_INITIAL;
    struct emu_allocation *table = realloc(memory->table, slots * sizeof *table);
    if (table == NULL)
        return false;
    memory->table = table;
    memory->slots = slots;
    return true;
}

/* Caller holds the write lock and has made room. */
static void memory_insert(struct emu_memory *memory, const struct emu_allocation *allocation)
{
    size_t at = memory_upper_bound(memory, allocation->range.base);
    memmove(&memory->table[at + 1], &memory->table[at],
            (memory->count - at) * sizeof memory->table[0]);
    memory->table[at] = *allocation;
    memory->count++;
    memory->used += allocation->mapped;
}

/* Allocations of at least a huge page are mapped on a huge-page boundary
 * with transparent huge pages asked for: the first touch of a 400 MB
 * buffer then costs 200 page faults, not 100,000 (a grading at 100M
 * elements spent a third of its time in the kernel's fault handler). The
 * advice may be refused (THP off): only the speed changes. */
#define HUGE_PAGE ((size_t)2 << 20)

static void *map_zeroed(size_t bytes)
{
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    if (bytes < HUGE_PAGE)
        return mmap(NULL, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
    size_t span = bytes + HUGE_PAGE;
    uint8_t *p = mmap(NULL, span, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (p == MAP_FAILED)
        return MAP_FAILED;
    uint8_t *start = (uint8_t *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (start > p)
        munmap(p, (size_t)(start - p));
    if (p + span > start + bytes)
        munmap(start + bytes, (size_t)(p + span - (start + bytes)));
    madvise(start, bytes, MADV_HUGEPAGE);
    return start;
}

CUresult emu_memory_alloc(struct emu_memory *memory, size_t size, enum emu_allocation_kind kind,
                          uint64_t *address)
{
    if (memory == NULL || address == NULL || size == 0 || (unsigned)kind >= EMU_ALLOC_KINDS)
        return CUDA_ERROR_INVALID_VALUE;
    if (size > SIZE_MAX - memory->page)
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct emu_allocation allocation = {
        .range = {.size = size, .kind = kind},
        .mapped = (size + memory->page - 1) / memory->page * memory->page,
    };
    CUresult rc = CUDA_ERROR_OUT_OF_MEMORY;
    pthread_rwlock_wrlock(&memory->lock);
    if (allocation.mapped > memory->capacity - memory->used || !memory_grow(memory))
        goto out;
    void *p = map_zeroed(allocation.mapped);
    if (p == MAP_FAILED)
        goto out; /* the host's address space or an RLIMIT_AS is exhausted */
    allocation.range.base = (uint64_t)(uintptr_t)p;
    allocation.range.serial = ++memory->serials;
    allocation.range.number = ++memory->numbers[kind];
    allocation.window = allocation.range;
    memory_insert(memory, &allocation);
    *address = allocation.range.base;
    rc = CUDA_SUCCESS;
out:
    pthread_rwlock_unlock(&memory->lock);
    return rc;
}

/* Whether [base, base + size) overlaps no allocation. Caller holds the lock. */
static bool memory_vacant(const struct emu_memory *memory, uint64_t base, uint64_t size)
{
    size_t at = memory_upper_bound(memory, base);
    const struct emu_range *below = at > 0 ? &memory->table[at - 1].range : NULL;
    const struct emu_range *above = at < memory->count ? &memory->table[at].range : NULL;
    return (below == NULL || below->base + below->size <= base) &&
           (above == NULL || base + size <= above->base);
}

CUresult emu_memory_adopt(struct emu_memory *memory, uint64_t base, uint64_t size,
                          enum emu_allocation_kind kind)
{
    if (memory == NULL || size == 0 || base > UINT64_MAX - size ||
        (unsigned)kind >= EMU_ALLOC_KINDS)
        return CUDA_ERROR_INVALID_VALUE;
    struct emu_allocation allocation = {.range = {.base = base, .size = size, .kind = kind}};
    pthread_rwlock_wrlock(&memory->lock);
    CUresult rc = CUDA_ERROR_INVALID_VALUE;
    if (memory_vacant(memory, base, size))
        rc = memory_grow(memory) ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
    if (rc == CUDA_SUCCESS) {
        allocation.range.serial = ++memory->serials;
        allocation.range.number = ++memory->numbers[kind];
        allocation.window = allocation.range;
        memory_insert(memory, &allocation);
    }
    pthread_rwlock_unlock(&memory->lock);
    return rc;
}

CUresult emu_memory_free(struct emu_memory *memory, uint64_t address)
{
    if (memory == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_rwlock_wrlock(&memory->lock);
    size_t at = memory_upper_bound(memory, address);
    if (at == 0 || memory->table[at - 1].range.base != address) {
        pthread_rwlock_unlock(&memory->lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    struct emu_allocation gone = memory->table[at - 1];
    memmove(&memory->table[at - 1], &memory->table[at],
            (memory->count - at) * sizeof memory->table[0]);
    memory->count--;
    memory->used -= gone.mapped;
    memory->freed[memory->freed_next] = gone.window;
    memory->freed_next = (memory->freed_next + 1) % EMU_FREED_REMEMBERED;
    pthread_rwlock_unlock(&memory->lock);
    if (gone.mapped > 0)
        munmap((void *)(uintptr_t)gone.range.base, gone.mapped);
    return CUDA_SUCCESS;
}

/* A size of 0 asks whether `address` itself lies inside an allocation. */
bool emu_memory_find(struct emu_memory *memory, uint64_t address, uint64_t size,
                     struct emu_range *range)
{
    if (memory == NULL)
        return false;
    if (size == 0)
        size = 1;
    if (address > UINT64_MAX - size)
        return false;
    bool found = false;
    pthread_rwlock_rdlock(&memory->lock);
    size_t at = memory_upper_bound(memory, address);
    if (at > 0) {
        const struct emu_range *r = &memory->table[at - 1].range;
        found = address + size <= r->base + r->size;
        if (found && range != NULL)
            *range = *r;
    }
    pthread_rwlock_unlock(&memory->lock);
    return found;
}

bool emu_memory_accessible(struct emu_memory *memory, uint64_t address, uint64_t size,
                           struct emu_range *window)
{
    if (memory == NULL || address > UINT64_MAX - (size ? size : 1))
        return false;
    bool found = false;
    pthread_rwlock_rdlock(&memory->lock);
    size_t at = memory_upper_bound(memory, address);
    if (at > 0) {
        const struct emu_range *w = &memory->table[at - 1].window;
        found = address >= w->base && address + (size ? size : 1) <= w->base + w->size;
        if (found && window != NULL)
            *window = *w;
    }
    pthread_rwlock_unlock(&memory->lock);
    return found;
}

CUresult emu_memory_set_window(struct emu_memory *memory, uint64_t base, uint64_t head,
                               uint64_t tail)
{
    CUresult rc = CUDA_ERROR_INVALID_VALUE;
    pthread_rwlock_wrlock(&memory->lock);
    size_t at = memory_upper_bound(memory, base);
    struct emu_allocation *a = at > 0 ? &memory->table[at - 1] : NULL;
    if (a && a->range.base == base && head <= a->range.size && tail <= a->range.size - head) {
        a->window.base = base + head;
        a->window.size = a->range.size - head - tail;
        rc = CUDA_SUCCESS;
    }
    pthread_rwlock_unlock(&memory->lock);
    return rc;
}

bool emu_memory_nearest(struct emu_memory *memory, uint64_t address, struct emu_range *range)
{
    if (memory == NULL)
        return false;
    pthread_rwlock_rdlock(&memory->lock);
    size_t at = memory_upper_bound(memory, address);
    if (at > 0 && range != NULL)
        *range = memory->table[at - 1].window;
    pthread_rwlock_unlock(&memory->lock);
    return at > 0;
}

const char *emu_allocation_noun(enum emu_allocation_kind kind)
{
    switch (kind) {
    case EMU_ALLOC_GLOBAL:
        return "module variable";
    case EMU_ALLOC_HEAP:
        return "device malloc heap";
    case EMU_ALLOC_ARRAY:
        return "CUDA array";
    case EMU_ALLOC_HOST:
        return "host buffer";
    case EMU_ALLOC_MANAGED:
        return "managed buffer";
    default:
        return "buffer";
    }
}

bool emu_memory_next(struct emu_memory *memory, uint64_t address, struct emu_range *range)
{
    if (memory == NULL)
        return false;
    pthread_rwlock_rdlock(&memory->lock);
    size_t at = memory_upper_bound(memory, address);
    bool found = at < memory->count;
    if (found && range != NULL)
        *range = memory->table[at].window;
    pthread_rwlock_unlock(&memory->lock);
    return found;
}

bool emu_memory_freed(struct emu_memory *memory, uint64_t address, struct emu_range *range)
{
    if (memory == NULL)
        return false;
    bool found = false;
    pthread_rwlock_rdlock(&memory->lock);
    for (unsigned k = 1; k <= EMU_FREED_REMEMBERED && !found; k++) {
        const struct emu_range *r =
            &memory->freed[(memory->freed_next + EMU_FREED_REMEMBERED - k) % EMU_FREED_REMEMBERED];
        found = r->size && address - r->base < r->size;
        if (found && range != NULL)
            *range = *r;
    }
    pthread_rwlock_unlock(&memory->lock);
    return found;
}

void emu_memory_usage(struct emu_memory *memory, size_t *used, size_t *capacity)
{
    if (memory == NULL)
        return;
    pthread_rwlock_rdlock(&memory->lock);
    if (used != NULL)
        *used = memory->used;
    if (capacity != NULL)
        *capacity = memory->capacity;
    pthread_rwlock_unlock(&memory->lock);
}

bool emu_memory_list(struct emu_memory *memory, struct emu_range **ranges, size_t *count)
{
    *ranges = NULL;
    *count = 0;
    if (memory == NULL)
        return true;
    pthread_rwlock_rdlock(&memory->lock);
    bool ok = true;
    if (memory->count > 0) {
        *ranges = malloc(memory->count * sizeof **ranges);
        ok = *ranges != NULL;
        for (size_t i = 0; ok && i < memory->count; i++)
            (*ranges)[i] = memory->table[i].range;
        *count = ok ? memory->count : 0;
    }
    pthread_rwlock_unlock(&memory->lock);
    return ok;
}
