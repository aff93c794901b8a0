/*
 * Unit tests of the virtual GPU's device memory table (emulator/memory.c):
 * allocation, lookup, the nearest allocations for messages (below, above,
 * and the latest freed, each numbered among its kind, never named by its
 * address), capacity, and lookups on many threads while another thread
 * allocates and frees; and memory the table adopts but does not own (the
 * driver's page-locked host memory).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "emulator/emu.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CAPACITY_LARGE     ((size_t)80 << 30)
#define READERS            4
#define WRITER_ROUNDS      2000
#define STABLE_ALLOCATIONS 64

static size_t page(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

static void alloc_is_aligned_zeroed_and_writable(void **state)
{
    (void)state;
    struct emu_memory *m = emu_memory_create(CAPACITY_LARGE);
    size_t sizes[] = {1, 3, 255, 256, 4097, 1 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint64_t a = 0;
        assert_int_equal(emu_memory_alloc(m, sizes[i], EMU_ALLOC_USER, &a), CUDA_SUCCESS);
        assert_true(a != 0);
        assert_int_equal(a % 256, 0);
        unsigned char *p = (unsigned char *)(uintptr_t)a;
        for (size_t j = 0; j < sizes[i]; j++)
            assert_int_equal(p[j], 0);
        memset(p, 0xab, sizes[i]);
        assert_int_equal(emu_memory_free(m, a), CUDA_SUCCESS);
    }
    emu_memory_destroy(m);
}

static void zero_size_and_null_arguments_are_refused(void **state)
{
    (void)state;
    struct emu_memory *m = emu_memory_create(CAPACITY_LARGE);
    uint64_t a = 0;
    assert_int_equal(emu_memory_alloc(m, 0, EMU_ALLOC_USER, &a), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(emu_memory_alloc(m, 16, EMU_ALLOC_USER, NULL), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(emu_memory_alloc(NULL, 16, EMU_ALLOC_USER, &a), CUDA_ERROR_INVALID_VALUE);
    assert_false(emu_memory_find(NULL, 1, 1, NULL));
    emu_memory_destroy(m);
    emu_memory_destroy(NULL);
}

static void find_accepts_ranges_inside_one_allocation(void **state)
{
    (void)state;
    struct emu_memory *m = emu_memory_create(CAPACITY_LARGE);
    uint64_t a;
    assert_int_equal(emu_memory_alloc(m, 1000, EMU_ALLOC_GLOBAL, &a), CUDA_SUCCESS);
    struct emu_range r;
    assert_true(emu_memory_find(m, a, 1000, &r));
    assert_int_equal(r.base, a);
    assert_int_equal(r.size, 1000);
    assert_int_equal(r.kind, EMU_ALLOC_GLOBAL);
    assert_true(emu_memory_find(m, a + 999, 1, NULL));
    assert_true(emu_memory_find(m, a + 500, 0, NULL));
    assert_false(emu_memory_find(m, a + 1000, 1, NULL)); /* one past the end */
    assert_false(emu_memory_find(m, a + 996, 8, NULL));  /* straddles the end */
    assert_false(emu_memory_find(m, a - 1, 1, NULL));
    assert_false(emu_memory_find(m, a, 1001, NULL));
    assert_false(emu_memory_find(m, UINT64_MAX - 2, 8, NULL)); /* wraps around */
    assert_int_equal(emu_memory_free(m, a), CUDA_SUCCESS);
    assert_false(emu_memory_find(m, a, 1, NULL));
    emu_memory_destroy(m);
}

static void free_takes_only_live_bases(void **state)
{
    (void)state;
    struct emu_memory *m = emu_memory_create(CAPACITY_LARGE);
    uint64_t a;
    assert_int_equal(emu_memory_alloc(m, 4096, EMU_ALLOC_USER, &a), CUDA_SUCCESS);
    assert_int_equal(emu_memory_free(m, a + 8), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(emu_memory_free(m, 0), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(emu_memory_free(m, a), CUDA_SUCCESS);
    assert_int_equal(emu_memory_free(m, a), CUDA_ERROR_INVALID_VALUE); /* double free */
    emu_memory_destroy(m);
}

static void nearest_names_the_allocation_below(void **state)
{
    (void)state;
    struct emu_memory *m = emu_memory_create(CAPACITY_LARGE);
    uint64_t a;
    assert_int_equal(emu_memory_alloc(m, 400, EMU_ALLOC_USER, &a), CUDA_SUCCESS);
    struct emu_range r;
    assert_true(emu_memory_nearest(m, a + 400, &r)); /* one past the end */
    assert_int_equal(r.base, a);
    assert_int_equal(r.size, 400);
    assert_true(emu_memory_nearest(m, a + 10, &r));
    assert_int_equal(r.base, a);
    assert_false(emu_memory_nearest(m, 4096, &r)); /* below every allocation */
    emu_memory_destroy(m);
}

static void allocations_are_numbered_by_kind(void **state)
{
    (void)state;
    struct emu_memory *m = emu_memory_create(CAPACITY_LARGE);
    uint64_t a, g, b;
    assert_int_equal(emu_memory_alloc(m, 400, EMU_ALLOC_USER, &a), CUDA_SUCCESS);
    assert_int_equal(emu_memory_alloc(m, 8, EMU_ALLOC_GLOBAL, &g), CUDA_SUCCESS);
    assert_int_equal(emu_memory_alloc(m, 400, EMU_ALLOC_USER, &b), CUDA_SUCCESS);
    struct emu_range r;
    uint64_t want[][2] = {{a, 1}, {g, 1}, {b, 2}};
    for (size_t i = 0; i < 3; i++) {
        assert_true(emu_memory_find(m, want[i][0], 1, &r));
        assert_int_equal(r.number, want[i][1]);
    }
    assert_int_equal(emu_memory_free(m, a), CUDA_SUCCESS);
    assert_int_equal(emu_memory_alloc(m, 400, EMU_ALLOC_USER, &a), CUDA_SUCCESS);
    assert_true(emu_memory_find(m, a, 1, &r));
    assert_int_equal(r.number, 3); /* numbers are never reused */
    assert_int_equal(emu_memory_alloc(m, 8, (enum emu_allocation_kind)EMU_ALLOC_KINDS, &a),
                     CUDA_ERROR_INVALID_VALUE);
    emu_memory_destroy(m);
}

static void next_names_the_allocation_above(void **state)
{
    (void)state;
    struct emu_memory *m = emu_memory_create(CAPACITY_LARGE);
    uint64_t a, b;
    assert_int_equal(emu_memory_alloc(m, 400, EMU_ALLOC_USER, &a), CUDA_SUCCESS);
    assert_int_equal(emu_memory_alloc(m, 400, EMU_ALLOC_USER, &b), CUDA_SUCCESS);
    uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
    struct emu_range r;
    assert_true(emu_memory_next(m, lo - 4, &r)); /* just before the start */
    assert_int_equal(r.base, lo);
    assert_true(emu_memory_next(m, lo, &r)); /* the one above, not itself */
    assert_int_equal(r.base, hi);
    assert_false(emu_memory_next(m, hi, &r)); /* above every allocation */
    assert_int_equal(emu_memory_set_window(m, hi, 16, 16), CUDA_SUCCESS);
    assert_true(emu_memory_next(m, hi - 1, &r)); /* its window: past the guard zone */
    assert_int_equal(r.base, hi + 16);
    assert_int_equal(r.size, 400 - 32);
    emu_memory_destroy(m);
}

static void freed_allocations_are_remembered_for_a_while(void **state)
{
    (void)state;
    struct emu_memory *m = emu_memory_create(CAPACITY_LARGE);
    uint64_t a, b;
    struct emu_range r;
    assert_int_equal(emu_memory_alloc(m, 400, EMU_ALLOC_USER, &a), CUDA_SUCCESS);
    assert_int_equal(emu_memory_alloc(m, 400, EMU_ALLOC_USER, &b), CUDA_SUCCESS);
    assert_false(emu_memory_freed(m, a, &r)); /* live */
    assert_int_equal(emu_memory_set_window(m, a, 16, 16), CUDA_SUCCESS);
    assert_int_equal(emu_memory_free(m, a), CUDA_SUCCESS);
    assert_true(emu_memory_freed(m, a + 20, &r));
    assert_int_equal(r.base, a + 16); /* its window */
    assert_int_equal(r.size, 400 - 32);
    assert_int_equal(r.number, 1);
    assert_false(emu_memory_freed(m, a + 4, &r)); /* in its guard zone */
    assert_false(emu_memory_freed(m, a + 400 - 16, &r));
    for (int i = 0; i < EMU_FREED_REMEMBERED; i++) {
        uint64_t c;
        assert_int_equal(emu_memory_alloc(m, 16, EMU_ALLOC_USER, &c), CUDA_SUCCESS);
        assert_int_equal(emu_memory_free(m, c), CUDA_SUCCESS);
    }
    assert_false(emu_memory_freed(m, a + 20, &r)); /* forgotten */
    assert_false(emu_memory_freed(NULL, a, &r));
    emu_memory_destroy(m);
}

static void many_allocations_stay_sorted(void **state)
{
    (void)state;
    enum { N = 500 };
    struct emu_memory *m = emu_memory_create(CAPACITY_LARGE);
    uint64_t a[N];
    for (int i = 0; i < N; i++)
        assert_int_equal(emu_memory_alloc(m, 100 + (size_t)i, EMU_ALLOC_USER, &a[i]), CUDA_SUCCESS);
    for (int i = 0; i < N; i += 2)
        assert_int_equal(emu_memory_free(m, a[i]), CUDA_SUCCESS);
    for (int i = 0; i < N; i++) {
        struct emu_range r;
        bool live = i % 2 == 1;
        assert_int_equal(emu_memory_find(m, a[i] + 99, 1, &r), live);
        if (live)
            assert_int_equal(r.size, 100 + i);
    }
    emu_memory_destroy(m); /* frees the odd ones */
}

static void capacity_is_enforced_and_given_back(void **state)
{
    (void)state;
    size_t capacity = 4 * page();
    struct emu_memory *m = emu_memory_create(capacity);
    uint64_t a, b, c;
    assert_int_equal(emu_memory_alloc(m, 2 * page(), EMU_ALLOC_USER, &a), CUDA_SUCCESS);
    assert_int_equal(emu_memory_alloc(m, page() + 1, EMU_ALLOC_USER, &b), CUDA_SUCCESS);
    size_t used, total;
    emu_memory_usage(m, &used, &total);
    assert_int_equal(used, 4 * page()); /* charged by the page */
    assert_int_equal(total, capacity);
    assert_int_equal(emu_memory_alloc(m, 1, EMU_ALLOC_USER, &c), CUDA_ERROR_OUT_OF_MEMORY);
    assert_int_equal(emu_memory_alloc(m, SIZE_MAX, EMU_ALLOC_USER, &c), CUDA_ERROR_OUT_OF_MEMORY);
    assert_int_equal(emu_memory_free(m, b), CUDA_SUCCESS);
    assert_int_equal(emu_memory_alloc(m, 2 * page(), EMU_ALLOC_USER, &c), CUDA_SUCCESS);
    emu_memory_destroy(m);
}

/* Pages are committed on first touch: 400 MB cost what is written. */
static void large_allocations_are_lazy(void **state)
{
    (void)state;
    size_t big = (size_t)400 << 20;
    struct emu_memory *m = emu_memory_create(CAPACITY_LARGE);
    uint64_t a[4];
    for (int i = 0; i < 4; i++) {
        assert_int_equal(emu_memory_alloc(m, big, EMU_ALLOC_USER, &a[i]), CUDA_SUCCESS);
        unsigned char *p = (unsigned char *)(uintptr_t)a[i];
        p[0] = 1;
        p[big - 1] = 2;
        assert_true(emu_memory_find(m, a[i], big, NULL));
    }
    emu_memory_destroy(m);
}

/* An allocation of a huge page or more starts on one (memory.c asks for
 * transparent huge pages there), zeroed, and is found and freed as any. */
static void huge_allocations_start_on_a_huge_page(void **state)
{
    (void)state;
    size_t huge = (size_t)2 << 20, size = 3 * huge / 2 + 5;
    struct emu_memory *m = emu_memory_create(CAPACITY_LARGE);
    for (int i = 0; i < 3; i++) {
        uint64_t a = 0;
        assert_int_equal(emu_memory_alloc(m, size, EMU_ALLOC_USER, &a), CUDA_SUCCESS);
        assert_int_equal(a % huge, 0);
        const unsigned char *p = (const unsigned char *)(uintptr_t)a;
        assert_int_equal(p[0] | p[huge] | p[size - 1], 0);
        assert_true(emu_memory_find(m, a, size, NULL));
        assert_false(emu_memory_find(m, a, size + page(), NULL));
        assert_int_equal(emu_memory_free(m, a), CUDA_SUCCESS);
    }
    emu_memory_destroy(m);
}

/* The driver's copies and fills (host_copy.c) write the same bytes on any
 * number of host threads, for sizes that split into uneven pieces. */
static void large_copies_and_fills_are_exact_on_any_thread_count(void **state)
{
    (void)state;
    size_t bytes = ((size_t)64 << 20) + 12345;
    unsigned char *src = malloc(bytes), *dst = malloc(bytes);
    assert_non_null(src);
    assert_non_null(dst);
    for (size_t i = 0; i < bytes; i++)
        src[i] = (unsigned char)(i * 2654435761u >> 13);
    const char *threads[] = {"1", "2", "3", "7"};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        setenv("KGEMU_THREADS", threads[t], 1);
        memset(dst, 0, bytes);
        emu_host_copy(dst, src, bytes);
        assert_memory_equal(dst, src, bytes);
        emu_host_set(dst + 1, 0xA5, bytes - 2);
        assert_int_equal(dst[0], src[0]);
        assert_int_equal(dst[bytes - 1], src[bytes - 1]);
        for (size_t i = 1; i < bytes - 1; i++)
            if (dst[i] != 0xA5)
                fail_msg("byte %zu not filled with %s threads", i, threads[t]);
    }
    unsetenv("KGEMU_THREADS");
    free(src);
    free(dst);
}

struct shared_table {
    struct emu_memory *memory;
    uint64_t stable[STABLE_ALLOCATIONS];
    atomic_bool stop;
    atomic_int failures;
};

/* Adopted memory is checked like an allocation, charged nothing, and left
 * mapped (here: the caller's malloc'ed block) when it is removed or the
 * table destroyed; an overlap with any allocation is refused. */
static void adopted_memory_is_checked_not_owned(void **state)
{
    (void)state;
    struct emu_memory *m = emu_memory_create(4 * page());
    unsigned char *host = malloc(1000);
    assert_non_null(host);
    uint64_t base = (uint64_t)(uintptr_t)host, device = 0;
    assert_int_equal(emu_memory_adopt(m, base, 1000, EMU_ALLOC_HOST), CUDA_SUCCESS);
    size_t used = 1;
    emu_memory_usage(m, &used, NULL);
    assert_int_equal(used, 0);
    struct emu_range r;
    assert_true(emu_memory_accessible(m, base + 996, 4, &r));
    assert_false(emu_memory_accessible(m, base + 997, 4, NULL));
    assert_int_equal(r.kind, EMU_ALLOC_HOST);
    assert_int_equal(r.number, 1);
    assert_string_equal(emu_allocation_noun(r.kind), "host buffer");
    assert_int_equal(emu_memory_adopt(m, base + 999, 8, EMU_ALLOC_HOST), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(emu_memory_adopt(m, base - 8, 9, EMU_ALLOC_HOST), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(emu_memory_adopt(m, base, 0, EMU_ALLOC_HOST), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(emu_memory_alloc(m, 4 * page(), EMU_ALLOC_USER, &device), CUDA_SUCCESS);
    assert_int_equal(emu_memory_adopt(m, device + 8, 8, EMU_ALLOC_HOST), CUDA_ERROR_INVALID_VALUE);
    assert_int_equal(emu_memory_free(m, base), CUDA_SUCCESS);
    assert_false(emu_memory_find(m, base, 1, NULL));
    memset(host, 1, 1000); /* still the caller's */
    assert_int_equal(emu_memory_adopt(m, base, 1000, EMU_ALLOC_HOST), CUDA_SUCCESS);
    emu_memory_destroy(m);
    memset(host, 2, 1000);
    free(host);
}

static void *reader(void *arg)
{
    struct shared_table *t = arg;
    unsigned i = 0;
    while (!atomic_load(&t->stop)) {
        struct emu_range r;
        uint64_t base = t->stable[i++ % STABLE_ALLOCATIONS];
        if (!emu_memory_find(t->memory, base + 10, 4, &r) || r.base != base)
            atomic_fetch_add(&t->failures, 1);
    }
    return NULL;
}

static void lookups_run_while_another_thread_allocates(void **state)
{
    (void)state;
    struct shared_table t = {.memory = emu_memory_create(CAPACITY_LARGE)};
    atomic_init(&t.stop, false);
    atomic_init(&t.failures, 0);
    for (int i = 0; i < STABLE_ALLOCATIONS; i++)
        assert_int_equal(emu_memory_alloc(t.memory, 64, EMU_ALLOC_USER, &t.stable[i]),
                         CUDA_SUCCESS);
    pthread_t readers[READERS];
    for (int i = 0; i < READERS; i++)
        assert_int_equal(pthread_create(&readers[i], NULL, reader, &t), 0);
    for (int round = 0; round < WRITER_ROUNDS; round++) {
        uint64_t a;
        assert_int_equal(emu_memory_alloc(t.memory, 128, EMU_ALLOC_USER, &a), CUDA_SUCCESS);
        assert_true(emu_memory_find(t.memory, a, 128, NULL));
        assert_int_equal(emu_memory_free(t.memory, a), CUDA_SUCCESS);
    }
    atomic_store(&t.stop, true);
    for (int i = 0; i < READERS; i++)
        pthread_join(readers[i], NULL);
    assert_int_equal(atomic_load(&t.failures), 0);
    size_t used;
    emu_memory_usage(t.memory, &used, NULL);
    assert_int_equal(used, STABLE_ALLOCATIONS * page());
    emu_memory_destroy(t.memory);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(alloc_is_aligned_zeroed_and_writable),
        cmocka_unit_test(zero_size_and_null_arguments_are_refused),
        cmocka_unit_test(find_accepts_ranges_inside_one_allocation),
        cmocka_unit_test(free_takes_only_live_bases),
        cmocka_unit_test(nearest_names_the_allocation_below),
        cmocka_unit_test(allocations_are_numbered_by_kind),
        cmocka_unit_test(next_names_the_allocation_above),
        cmocka_unit_test(freed_allocations_are_remembered_for_a_while),
        cmocka_unit_test(many_allocations_stay_sorted),
        cmocka_unit_test(capacity_is_enforced_and_given_back),
        cmocka_unit_test(large_allocations_are_lazy),
        cmocka_unit_test(huge_allocations_start_on_a_huge_page),
        cmocka_unit_test(large_copies_and_fills_are_exact_on_any_thread_count),
        cmocka_unit_test(lookups_run_while_another_thread_allocates),
        cmocka_unit_test(adopted_memory_is_checked_not_owned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
