/*
 * Unit tests of the timing model (emulator/timing.c): shared requests' bank
 * conflicts against a straightforward count, a global request's log (its
 * distinct sectors, line by line, whatever shortcut its shape takes; and
 * the same request given by its sectors, as the compiled tier gives it),
 * and the L2 and its sequencer:
 * global requests logged by blocks handed in out of order, from several
 * threads, must give the DRAM traffic and same-address atomics of one
 * straightforward model fed in block order: a set-associative LRU cache of
 * 128-byte lines with a stamp per way (the model's first form, kept here as
 * the oracle). Addresses span twice a T4's L2, so lines are evicted, dirty
 * ones written back, and others hit; thrice an L2 of 4 sets; and twice one
 * of 1,536 sets. A third of the requests come back to the lines of one a
 * few requests before, so that the log's entries take in later accesses
 * of their lines (checked to happen where sets are many).
 * Atomics to millions of addresses are counted in a few megabytes, the
 * most to one address never short, the same from one thread or several.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "emulator/exec.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BLOCKS          600
#define REQUESTS        48 /* per block */
#define SUBMITTERS      3  /* threads handing in blocks */
#define LINE            128
#define WAYS            16
#define ORACLE_SET_HASH 0x9E3779B97F4A7C15ull /* timing.c's set index, (line * it >> 20) % sets */

/* ------------------------------------------------------------ the oracle */

struct oracle_way {
    uint64_t line, stamp;
    uint8_t valid, dirty;
};

struct oracle {
    struct oracle_way *ways;
    uint64_t sets, clock, read_sectors, write_sectors;
};

static void oracle_access(struct oracle *o, uint64_t address, uint8_t sectors, bool write)
{
    uint64_t line = address / LINE + 1;
    struct oracle_way *set = &o->ways[(line * ORACLE_SET_HASH >> 20) % o->sets * WAYS];
    struct oracle_way *victim = &set[0];
    o->clock++;
    for (int w = 0; w < WAYS; w++) {
        if (set[w].line == line) {
            if (!write)
                o->read_sectors += (uint64_t)__builtin_popcount(sectors & ~set[w].valid);
            set[w].valid |= sectors;
            set[w].dirty |= write ? sectors : 0;
            set[w].stamp = o->clock;
            return;
        }
        if (set[w].stamp < victim->stamp)
            victim = &set[w];
    }
    o->write_sectors += (uint64_t)__builtin_popcount(victim->dirty);
    if (!write)
        o->read_sectors += (uint64_t)__builtin_popcount(sectors);
    *victim = (struct oracle_way){line, o->clock, sectors, write ? sectors : 0};
}

/* ----------------------------------------------------------- the requests */

struct request {
    uint64_t address[WARP_SIZE];
    uint32_t mask;
    enum timing_access kind;
};

/* Atomics go to 64 words at the base, or to 10 words of one line past
 * everything else (ONE_LINE_HOT from the base; no other request touches
 * its sectors); hot_word numbers them. */
#define ONE_LINE_HOT (2 * 4096ull * 1024 + 24) /* past twice a T4's L2, sectors 0 and 1 */
#define HOT_WORDS    (64 + 10)

static unsigned hot_word(uint64_t address, uint64_t base)
{
    return address - base < ONE_LINE_HOT ? (unsigned)((address - base) / 4)
                                         : 64 + (unsigned)((address - base - ONE_LINE_HOT) / 4);
}

/* An atomic request, lane by lane: a read then a write of each lane's
 * sector, and a count for its word (`hot`, words from `base`). */
static void oracle_atomics(struct oracle *o, const struct request *r, uint64_t base, uint64_t *hot,
                           uint64_t *atomics)
{
    for (uint32_t l = 0; l < WARP_SIZE; l++) {
        if (!(r->mask >> l & 1))
            continue;
        uint8_t sector = (uint8_t)(1u << (r->address[l] / 32 % 4));
        oracle_access(o, r->address[l], sector, false);
        oracle_access(o, r->address[l], sector, true);
        hot[hot_word(r->address[l], base)]++;
        (*atomics)++;
    }
}

static uint64_t next_random(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 17;
}

/* Contiguous, scattered and atomic requests over `span` bytes at `base`;
 * scattered ones and half the atomic ones with some lanes inactive. */
static void make_request(struct request *r, uint64_t *seed, uint64_t base, uint64_t span)
{
    uint64_t shape = next_random(seed) % 4, start = base + next_random(seed) % span / 4 * 4;
    /* hot words over two lines, or 10 in one line of their own, over two sectors */
    bool in_line = next_random(seed) % 2;
    uint64_t hot = in_line ? 10 : 64, hot_base = in_line ? base + ONE_LINE_HOT : base;
    r->kind = shape == 3 ? TIMING_ATOMIC : next_random(seed) % 3 == 0 ? TIMING_WRITE : TIMING_READ;
    r->mask = shape == 2 || (shape == 3 && next_random(seed) % 2) ? (uint32_t)next_random(seed) | 1
                                                                  : FULL_MASK;
    for (uint32_t l = 0; l < WARP_SIZE; l++)
        r->address[l] = shape == 0   ? start / LINE * LINE + l * 4
                        : shape == 3 ? hot_base + next_random(seed) % hot * 4
                                     : base + next_random(seed) % span / 4 * 4;
}

struct fixture {
    struct ptx_function ptx;
    struct emu_function function;
    struct emu_launch cfg;
    struct timing_launch timing;
    struct request (*requests)[REQUESTS];
    uint64_t next_block;
    uint64_t logged; /* the entries the blocks' logs kept */
    pthread_mutex_t lock;
};

/* The next of `blocks` blocks for a submitting thread; false when none is
 * left. */
static bool take_block(pthread_mutex_t *lock, uint64_t *next, uint64_t blocks, uint64_t *block)
{
    pthread_mutex_lock(lock);
    *block = (*next)++;
    pthread_mutex_unlock(lock);
    return *block < blocks;
}

/* Each thread takes blocks in turn, logs them and hands them in, so they
 * arrive out of order and concurrently; its log is kept from block to
 * block, as a host thread of the launch keeps it (with its table of each
 * set's latest entry, stale from the blocks before). */
static void *submitter(void *arg)
{
    struct fixture *fx = arg;
    struct timing_log log = {0};
    uint64_t block;
    while (take_block(&fx->lock, &fx->next_block, BLOCKS, &block)) {
        struct timing_warp warp = {0};
        struct ptx_insn insn = {0};
        for (int i = 0; i < REQUESTS; i++) {
            struct request *r = &fx->requests[block][i];
            timing_global_request(&warp, &fx->timing, &log, &insn, r->mask, r->address, 4, r->kind);
        }
        pthread_mutex_lock(&fx->lock);
        fx->logged += log.count;
        pthread_mutex_unlock(&fx->lock);
        timing_block_done(&fx->timing, block, &warp, 1, &log, true);
    }
    timing_log_free(&log);
    return NULL;
}

/* The launch's DRAM traffic and atomics, of requests over `span` bytes,
 * against the oracle's; `joins`: whether some accesses must have joined an
 * earlier entry of their line (an L2 of many sets, where a line accessed
 * again a few requests later is still its set's latest). */
static void check_dram_traffic(const struct emu_device_model *device, uint64_t span, bool joins)
{
    static struct fixture fx;
    memset(&fx, 0, sizeof fx);
    fx.function.ptx = &fx.ptx;
    fx.function.info.registers = 16;
    fx.cfg = (struct emu_launch){
        .function = &fx.function, .grid = {BLOCKS, 1, 1}, .block = {32, 1, 1}, .device = device};
    assert_true(timing_launch_init(&fx.timing, &fx.cfg, 32, 0));
    fx.timing.l1_lines = 0; /* the L2 alone: the oracle has no L1 */
    fx.requests = calloc(BLOCKS, sizeof *fx.requests);
    assert_non_null(fx.requests);
    uint64_t seed = 7, base = 1ull << 32;
    assert_true(ONE_LINE_HOT >= span);
    for (int b = 0; b < BLOCKS; b++)
        for (int i = 0; i < REQUESTS; i++) {
            make_request(&fx.requests[b][i], &seed, base, span);
            if (i > 0 && next_random(&seed) % 3 == 0) { /* a request of a few before, again */
                struct request *again = &fx.requests[b][i - 1 - (int)(next_random(&seed) % 4) % i];
                enum timing_access kind = fx.requests[b][i].kind;
                fx.requests[b][i] = *again;
                /* atomics stay atomics (on their hot words); a load may become a store */
                fx.requests[b][i].kind = again->kind == TIMING_ATOMIC ? TIMING_ATOMIC
                                         : kind == TIMING_ATOMIC      ? TIMING_READ
                                                                      : kind;
            }
        }
    pthread_mutex_init(&fx.lock, NULL);
    pthread_t threads[SUBMITTERS];
    for (int i = 0; i < SUBMITTERS; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, submitter, &fx), 0);
    for (int i = 0; i < SUBMITTERS; i++)
        pthread_join(threads[i], NULL);
    struct kgemu_counters got;
    timing_finish(&fx.timing, &got);

    /* the oracle: the same requests' lines in block order */
    struct oracle o = {.sets = device->l2_bytes / LINE / WAYS};
    o.ways = calloc(o.sets * WAYS, sizeof *o.ways);
    assert_non_null(o.ways);
    uint64_t hot[HOT_WORDS] = {0}, atomics = 0, accessed = 0;
    for (int b = 0; b < BLOCKS; b++)
        for (int i = 0; i < REQUESTS; i++) {
            struct request *r = &fx.requests[b][i];
            struct timing_log log = {0}; /* the request's entries, alone */
            struct timing_warp warp = {0};
            struct ptx_insn insn = {0};
            struct timing_launch plain = {.enabled = true, .device = device};
            timing_global_request(&warp, &plain, &log, &insn, r->mask, r->address, 4, r->kind);
            accessed += log.count;
            if (r->kind == TIMING_ATOMIC) /* each lane in turn, as a GPU might */
                oracle_atomics(&o, r, base, hot, &atomics);
            for (size_t e = 0; e < log.count && r->kind != TIMING_ATOMIC; e++) {
                const struct timing_access_entry *x = &log.entries[e];
                oracle_access(&o, x->address, x->sectors, x->kind == TIMING_WRITE);
            }
            timing_log_free(&log);
        }
    for (uint64_t i = 0; i < o.sets * WAYS; i++)
        o.write_sectors += (uint64_t)__builtin_popcount(o.ways[i].dirty);
    uint64_t most = 0;
    for (int i = 0; i < HOT_WORDS; i++)
        most = hot[i] > most ? hot[i] : most;
    assert_true(o.write_sectors > 0 && o.read_sectors > 0);
    assert_int_equal(got.dram_read_bytes, o.read_sectors * 32);
    assert_int_equal(got.dram_write_bytes, o.write_sectors * 32);
    assert_int_equal(got.global_atomics, atomics);
    assert_int_equal(got.max_same_address_atomics, most);
    assert_int_equal(got.blocks_complete, BLOCKS);
    assert_true(joins ? fx.logged < accessed : fx.logged <= accessed);
    free(o.ways);
    free(fx.requests);
    timing_launch_free(&fx.timing);
    pthread_mutex_destroy(&fx.lock);
}

/* ------------------------------------------ atomics to many addresses */

/* A launch whose warps each update 32 addresses once (a red.add to every
 * element: the lanes of a request `SCATTER` words apart, every address of
 * the launch updated once), but for each block's first request, whose 32
 * lanes all go to one hot word. */
#define MANY_BASE         (1ull << 32)
#define MANY_HOT          (1ull << 31)
#define SCATTER           97                /* words between a request's lanes: odd */
#define ATOMIC_BYTES_CEIL ((size_t)4 << 20) /* what a launch's atomics may hold */
#define MANY_ADDRESSES    ((size_t)1 << 21) /* distinct addresses of the large launches */
#define FEW_ADDRESSES     ((size_t)1 << 14) /* few enough to be counted one by one */

struct many {
    struct ptx_function ptx;
    struct emu_function function;
    struct emu_launch cfg;
    struct timing_launch timing;
    unsigned blocks, requests;
    uint64_t next_block;
    size_t log_bytes; /* the most a block's log held for its atomics */
    pthread_mutex_t lock;
};

static void many_addresses(const struct many *m, unsigned block, unsigned i, uint64_t *address)
{
    uint64_t total = (uint64_t)m->blocks * m->requests * WARP_SIZE;
    uint64_t first = ((uint64_t)block * m->requests + i) * WARP_SIZE;
    for (unsigned l = 0; l < WARP_SIZE; l++)
        address[l] = i == 0 ? MANY_HOT : MANY_BASE + (first + l) * SCATTER % total * 4;
}

static void *many_submitter(void *arg)
{
    struct many *m = arg;
    struct timing_log log = {0};
    uint64_t block;
    while (take_block(&m->lock, &m->next_block, m->blocks, &block)) {
        struct timing_warp warp = {0};
        struct ptx_insn insn = {0}; /* no integer add: every lane counts */
        uint64_t address[WARP_SIZE];
        for (unsigned i = 0; i < m->requests; i++) {
            many_addresses(m, (unsigned)block, i, address);
            timing_global_request(&warp, &m->timing, &log, &insn, FULL_MASK, address, 4,
                                  TIMING_ATOMIC);
        }
        pthread_mutex_lock(&m->lock);
        size_t bytes = timing_log_atomic_bytes(&log);
        m->log_bytes = bytes > m->log_bytes ? bytes : m->log_bytes;
        pthread_mutex_unlock(&m->lock);
        timing_block_done(&m->timing, block, &warp, 1, &log, true);
    }
    timing_log_free(&log);
    return NULL;
}

/* Runs `blocks` blocks of `requests` requests, handed in by `threads`
 * threads; `launch_bytes` gets what the launch's atomics held at the end. */
static struct kgemu_counters run_many(unsigned blocks, unsigned requests, int threads,
                                      size_t *log_bytes, size_t *launch_bytes)
{
    static struct many m;
    memset(&m, 0, sizeof m);
    m.function.ptx = &m.ptx;
    m.function.info.registers = 16;
    m.cfg = (struct emu_launch){.function = &m.function,
                                .grid = {blocks, 1, 1},
                                .block = {32, 1, 1},
                                .device = emu_device_model_find("h100")};
    m.blocks = blocks;
    m.requests = requests;
    assert_true(timing_launch_init(&m.timing, &m.cfg, 32, 0));
    pthread_mutex_init(&m.lock, NULL);
    pthread_t id[SUBMITTERS];
    assert_true(threads <= SUBMITTERS);
    for (int i = 0; i < threads; i++)
        assert_int_equal(pthread_create(&id[i], NULL, many_submitter, &m), 0);
    for (int i = 0; i < threads; i++)
        pthread_join(id[i], NULL);
    *log_bytes = m.log_bytes;
    *launch_bytes = timing_atomic_bytes(&m.timing);
    struct kgemu_counters got;
    timing_finish(&m.timing, &got);
    timing_launch_free(&m.timing);
    pthread_mutex_destroy(&m.lock);
    return got;
}

/* Every lane counted; the hot word's lanes the most to one address, never
 * fewer (past what the model counts one by one, a little more). */
static void check_many(const struct kgemu_counters *got, unsigned blocks, unsigned requests,
                       bool exact)
{
    uint64_t hot = (uint64_t)blocks * WARP_SIZE;
    assert_int_equal(got->global_atomics, (uint64_t)blocks * requests * WARP_SIZE);
    assert_true(got->max_same_address_atomics >= hot);
    assert_true(got->max_same_address_atomics <= (exact ? hot : hot + hot / 4));
    assert_true(got->atomic_ms > 0);
}

static void atomics_to_many_addresses_stay_in_bounded_memory(void **state)
{
    (void)state;
    size_t log_bytes, launch_bytes;
    /* one block of 262,144 addresses: its own table is bounded */
    unsigned requests = MANY_ADDRESSES / 8 / WARP_SIZE;
    struct kgemu_counters got = run_many(1, requests, 1, &log_bytes, &launch_bytes);
    check_many(&got, 1, requests, false);
    assert_true(log_bytes > 0 && log_bytes <= ATOMIC_BYTES_CEIL);
    assert_true(launch_bytes > 0 && launch_bytes <= ATOMIC_BYTES_CEIL);
    /* 64 blocks, 2M addresses, from several threads: the launch's too */
    unsigned blocks = 64;
    requests = MANY_ADDRESSES / blocks / WARP_SIZE;
    got = run_many(blocks, requests, SUBMITTERS, &log_bytes, &launch_bytes);
    check_many(&got, blocks, requests, false);
    assert_true(log_bytes <= ATOMIC_BYTES_CEIL);
    assert_true(launch_bytes > 0 && launch_bytes <= ATOMIC_BYTES_CEIL);
}

static void atomics_counts_do_not_depend_on_the_threads(void **state)
{
    (void)state;
    size_t log_bytes, launch_bytes;
    unsigned blocks = 64, sizes[] = {FEW_ADDRESSES, MANY_ADDRESSES};
    for (size_t k = 0; k < 2; k++) {
        unsigned requests = sizes[k] / blocks / WARP_SIZE;
        struct kgemu_counters one = run_many(blocks, requests, 1, &log_bytes, &launch_bytes);
        struct kgemu_counters several =
            run_many(blocks, requests, SUBMITTERS, &log_bytes, &launch_bytes);
        check_many(&one, blocks, requests, sizes[k] == FEW_ADDRESSES);
        assert_memory_equal(&one, &several, sizeof one);
    }
}

static void dram_traffic_is_the_lru_oracles(void **state)
{
    (void)state;
    const struct emu_device_model *t4 = emu_device_model_find("t4");
    assert_non_null(t4);
    check_dram_traffic(t4, 2 * (uint64_t)t4->l2_bytes, true);
}

/* An L2 of 4 sets: nearly every access evicts, and lines accessed a few
 * entries apart share sets (the model's recent lines must stop counting
 * as their set's latest). */
static void a_small_l2_is_the_lru_oracles(void **state)
{
    (void)state;
    const struct emu_device_model *t4 = emu_device_model_find("t4");
    assert_non_null(t4);
    struct emu_device_model small = *t4;
    small.l2_bytes = 4 * LINE * WAYS;
    check_dram_traffic(&small, 3 * (uint64_t)small.l2_bytes, false);
}

/* An L2 of 1,536 sets (not a power of two): the set of a line is a
 * remainder, which timing.c finds by a multiplication. */
static void an_l2_of_any_size_is_the_lru_oracles(void **state)
{
    (void)state;
    const struct emu_device_model *t4 = emu_device_model_find("t4");
    assert_non_null(t4);
    struct emu_device_model odd = *t4;
    odd.l2_bytes = 1536 * LINE * WAYS;
    check_dram_traffic(&odd, 2 * (uint64_t)odd.l2_bytes, true);
}

/* ------------------------------------------------- a request's sectors */

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A load's log, straightforwardly: its distinct sectors in ascending order,
 * one entry per line. Returns the entries; *distinct, the sectors. */
static size_t oracle_log(uint32_t mask, const uint64_t *address, unsigned bytes,
                         struct timing_access_entry *out, unsigned *distinct)
{
    uint64_t sectors[WARP_SIZE * 2];
    unsigned n = 0, d = 0;
    for (uint32_t l = 0; l < WARP_SIZE; l++)
        if (mask >> l & 1)
            for (uint64_t s = address[l] / 32; s <= (address[l] + bytes - 1) / 32; s++)
                sectors[n++] = s;
    qsort(sectors, n, sizeof *sectors, compare_u64);
    size_t count = 0;
    for (unsigned i = 0; i < n; i++) {
        if (i > 0 && sectors[i] == sectors[i - 1])
            continue;
        d++;
        uint64_t line = sectors[i] / 4 * LINE;
        uint8_t bit = (uint8_t)(1u << (sectors[i] % 4));
        if (count > 0 && out[count - 1].address == line)
            out[count - 1].sectors |= bit;
        else
            out[count++] =
                (struct timing_access_entry){.address = line, .sectors = bit, .kind = TIMING_READ};
    }
    *distinct = d;
    return count;
}

/* An address an atomic request updates, and how many of its lanes do. */
struct address_lanes {
    uint64_t address;
    unsigned lanes;
};

/* One request of `kind` on its own: its log is the oracle's n entries
 * `want`, its sectors `distinct`, its atomics (for an atomic) its lanes,
 * counted by address as `atomics` says. */
static void check_request(const struct emu_device_model *device, uint32_t mask,
                          const uint64_t *address, unsigned bytes, enum timing_access kind,
                          const struct timing_access_entry *want, size_t n, unsigned distinct,
                          const struct address_lanes *atomics, size_t n_atomics)
{
    struct timing_log log = {0};
    struct timing_warp warp = {0};
    struct ptx_insn insn = {0};
    struct timing_launch plain = {.enabled = true, .device = device};
    timing_global_request(&warp, &plain, &log, &insn, mask, address, bytes, kind);
    assert_int_equal(log.count, n);
    for (size_t e = 0; e < n; e++) {
        assert_int_equal(log.entries[e].address, want[e].address);
        assert_int_equal(log.entries[e].sectors, want[e].sectors);
        assert_int_equal(log.entries[e].kind, kind);
    }
    for (size_t i = 0; i < n_atomics; i++) {
        assert_int_equal(timing_log_atomic_lanes(&log, atomics[i].address), atomics[i].lanes);
        /* one request on each line it touches */
        assert_int_equal(timing_log_atomic_operations(&log, atomics[i].address / LINE * LINE), 1);
    }
    assert_int_equal(warp.global_sectors, distinct);
    assert_int_equal(warp.global_requests, 1);
    assert_int_equal(warp.global_atomics, kind == TIMING_ATOMIC ? __builtin_popcount(mask) : 0);
    timing_log_free(&log);
}

/* Shapes of a warp's addresses: halves reading the same addresses, halves
 * each reading one, the whole warp one, each of those with one lane
 * different, scattered, and lanes off. */
static void make_shape(uint64_t *address, uint32_t *mask, int shape, unsigned bytes, uint64_t *seed)
{
    const uint64_t base = 1ull << 32, span = 1 << 16;
    uint64_t a0 = base + next_random(seed) % span / bytes * bytes;
    uint64_t a1 = base + next_random(seed) % span / bytes * bytes;
    bool rows = next_random(seed) % 2; /* consecutive, or scattered, within a half */
    *mask = shape == 6 ? (uint32_t)next_random(seed) | 1 : FULL_MASK;
    for (uint32_t l = 0; l < WARP_SIZE; l++) {
        uint64_t h = l % 16, own = base + next_random(seed) % span / bytes * bytes;
        uint64_t half_pattern =
            rows ? a0 + h * bytes : base + (a0 * 7 + h * 977) % span / bytes * bytes;
        address[l] = shape == 0 || shape == 3   ? half_pattern
                     : shape == 1 || shape == 4 ? (l < 16 ? a0 : a1)
                     : shape == 2               ? a0
                                                : own;
    }
    if (shape == 3 || shape == 4) /* one lane unlike the rest */
        address[next_random(seed) % WARP_SIZE] = a1 + bytes;
}

static void requests_log_their_distinct_sectors(void **state)
{
    (void)state;
    const struct emu_device_model *t4 = emu_device_model_find("t4");
    assert_non_null(t4);
    uint64_t seed = 5, address[WARP_SIZE];
    for (int i = 0; i < 20000; i++) {
        unsigned bytes = 4u << (i % 3), distinct;
        uint32_t mask;
        make_shape(address, &mask, i / 3 % 7, bytes, &seed);
        struct timing_access_entry want[WARP_SIZE * 2];
        size_t n = oracle_log(mask, address, bytes, want, &distinct);
        check_request(t4, mask, address, bytes, TIMING_READ, want, n, distinct, NULL, 0);
    }
}

/* A request given by its sectors (timing_global_sectors, what the compiled
 * tier hands in) must count and log as the same request given by its lanes'
 * addresses: every shape of make_shape whose sectors fit two windows of
 * 64, the windows found from the oracle's sectors. */
static void requests_by_their_sectors_are_the_same(void **state)
{
    (void)state;
    const struct emu_device_model *t4 = emu_device_model_find("t4");
    assert_non_null(t4);
    uint64_t seed = 11, address[WARP_SIZE];
    unsigned checked = 0;
    for (int i = 0; i < 20000; i++) {
        unsigned bytes = 4u << (i % 2); /* the compiled tier's widths: one sector a lane */
        uint32_t mask;
        make_shape(address, &mask, i / 2 % 7, bytes, &seed);
        uint64_t sectors[WARP_SIZE], base[2] = {0}, bits[2] = {0};
        unsigned n = 0, window = 0;
        for (uint32_t l = 0; l < WARP_SIZE; l++)
            if (mask >> l & 1)
                sectors[n++] = address[l] / 32;
        qsort(sectors, n, sizeof *sectors, compare_u64);
        bool fits = true;
        for (unsigned k = 0; k < n && fits; k++) {
            if (k == 0 || sectors[k] - base[window] >= 64) {
                window += k > 0;
                fits = window < 2;
                base[window < 2 ? window : 1] = sectors[k] / 4 * 4;
            }
            if (fits)
                bits[window] |= 1ull << (sectors[k] - base[window]);
        }
        if (!fits)
            continue;
        struct timing_log by_lanes = {0}, by_sectors = {0};
        struct timing_warp lanes_warp = {0}, sectors_warp = {0};
        struct ptx_insn insn = {.ptx_line = 7};
        struct timing_launch plain = {.enabled = true, .device = t4};
        timing_global_request(&lanes_warp, &plain, &by_lanes, &insn, mask, address, bytes,
                              TIMING_WRITE);
        timing_global_sectors(&sectors_warp, &plain, &by_sectors, &insn, base[0], bits[0], base[1],
                              bits[1], TIMING_WRITE);
        assert_memory_equal(&lanes_warp, &sectors_warp, sizeof lanes_warp);
        assert_int_equal(by_lanes.count, by_sectors.count);
        for (size_t e = 0; e < by_lanes.count; e++) {
            assert_int_equal(by_lanes.entries[e].address, by_sectors.entries[e].address);
            assert_int_equal(by_lanes.entries[e].sectors, by_sectors.entries[e].sectors);
            assert_int_equal(by_lanes.entries[e].kind, by_sectors.entries[e].kind);
        }
        timing_log_free(&by_lanes);
        timing_log_free(&by_sectors);
        checked++;
    }
    assert_true(checked > 10000);
}

/* An atomic request's log, straightforwardly: when every lane is in one
 * line, one entry for it with the sectors of its addresses; else one entry
 * per address's line, in the order of each address's last lane (the next
 * address in the same line joining its entry). Every address
 * with its lanes goes to `atomics`. Returns the entries; *distinct, the
 * sectors; *n_atomics, the addresses. */
static size_t oracle_atomic_log(uint32_t mask, const uint64_t *address, unsigned bytes,
                                struct timing_access_entry *out, unsigned *distinct,
                                struct address_lanes *atomics, size_t *n_atomics)
{
    uint64_t sectors[WARP_SIZE * 2], lines[WARP_SIZE];
    unsigned n = 0, n_lines = 0, d = 0;
    size_t count = 0;
    uint8_t line_sectors = 0;
    *n_atomics = 0;
    for (uint32_t l = 0; l < WARP_SIZE; l++) {
        if (!(mask >> l & 1))
            continue;
        lines[n_lines++] = address[l] / LINE;
        for (uint64_t s = address[l] / 32; s <= (address[l] + bytes - 1) / 32; s++)
            sectors[n++] = s;
        uint8_t sector = (uint8_t)(1u << (address[l] % LINE / 32));
        line_sectors |= sector;
        unsigned lanes = 0, last = l;
        for (uint32_t k = 0; k < WARP_SIZE; k++)
            if (mask >> k & 1 && address[k] == address[l]) {
                lanes++;
                last = k;
            }
        if (last == l) { /* the address's last lane: its line's entry, in lane order */
            uint64_t line = address[l] / LINE * LINE;
            if (count > 0 && out[count - 1].address == line) /* joins its line's */
                out[count - 1].sectors |= sector;
            else
                out[count++] = (struct timing_access_entry){
                    .address = line, .sectors = sector, .kind = TIMING_ATOMIC};
            atomics[(*n_atomics)++] = (struct address_lanes){address[l], lanes};
        }
    }
    qsort(sectors, n, sizeof *sectors, compare_u64);
    for (unsigned i = 0; i < n; i++)
        d += i == 0 || sectors[i] != sectors[i - 1];
    qsort(lines, n_lines, sizeof *lines, compare_u64);
    if (lines[0] == lines[n_lines - 1]) { /* one line: one entry */
        out[0] = (struct timing_access_entry){
            .address = lines[0] * LINE, .sectors = line_sectors, .kind = TIMING_ATOMIC};
        count = 1;
    }
    *distinct = d;
    return count;
}

/* Histogram bins in one line, one counter, bins across two lines,
 * scattered; every lane or some. */
static void atomic_shape(uint64_t *address, uint32_t *mask, int shape, unsigned bytes,
                         uint64_t *seed)
{
    uint64_t line = (1ull << 32) + next_random(seed) % 4096 * LINE;
    *mask = next_random(seed) % 2 ? FULL_MASK : (uint32_t)next_random(seed) | 1;
    for (uint32_t l = 0; l < WARP_SIZE; l++)
        address[l] = shape == 0   ? line + next_random(seed) % (LINE / bytes) * bytes
                     : shape == 1 ? line + 2 * bytes
                     : shape == 2 ? line + 96 + next_random(seed) % 16 * bytes
                                  : line + next_random(seed) % (1 << 16) * bytes;
}

static void atomic_requests_count_each_address(void **state)
{
    (void)state;
    const struct emu_device_model *t4 = emu_device_model_find("t4");
    assert_non_null(t4);
    uint64_t seed = 9, address[WARP_SIZE];
    for (int i = 0; i < 20000; i++) {
        unsigned bytes = 4u << (i % 2), distinct;
        uint32_t mask;
        atomic_shape(address, &mask, i / 2 % 4, bytes, &seed);
        struct timing_access_entry want[WARP_SIZE];
        struct address_lanes atomics[WARP_SIZE];
        size_t n_atomics;
        size_t n = oracle_atomic_log(mask, address, bytes, want, &distinct, atomics, &n_atomics);
        check_request(t4, mask, address, bytes, TIMING_ATOMIC, want, n, distinct, atomics,
                      n_atomics);
    }
}

/* A warp's atomics to one address: an integer add (min, max, and, or, xor)
 * is one atomic, reduced over the warp first; a float add, a
 * compare-and-swap, or lanes on two addresses are not combined. The line
 * gets one request either way. */
static void count_one(const struct ptx_insn *insn, uint32_t mask, const uint64_t *address,
                      uint64_t want_atomics, uint64_t want_lanes, uint64_t want_operations)
{
    const struct emu_device_model *h200 = emu_device_model_find("h200");
    assert_non_null(h200);
    struct timing_log log = {0};
    struct timing_warp warp = {0};
    struct timing_launch plain = {.enabled = true, .device = h200};
    timing_global_request(&warp, &plain, &log, insn, mask, address, 4, TIMING_ATOMIC);
    assert_int_equal(warp.global_atomics, want_atomics);
    assert_int_equal(timing_log_atomic_lanes(&log, address[0]), want_lanes);
    assert_int_equal(timing_log_atomic_operations(&log, address[0] / LINE * LINE), want_operations);
    timing_log_free(&log);
}

static void a_warps_atomics_to_one_address_combine(void **state)
{
    (void)state;
    uint64_t one[WARP_SIZE], two[WARP_SIZE];
    for (uint32_t l = 0; l < WARP_SIZE; l++) {
        one[l] = (1ull << 32) + 8;
        two[l] = (1ull << 32) + 8 + 4 * (l % 2);
    }
    struct ptx_insn red_add = {.op = PTX_OP_RED, .type = PTX_U32, .cmp = PTX_ATOM_ADD};
    struct ptx_insn atom_max = {.op = PTX_OP_ATOM, .type = PTX_S64, .cmp = PTX_ATOM_MAX};
    struct ptx_insn float_add = {.op = PTX_OP_ATOM, .type = PTX_F32, .cmp = PTX_ATOM_ADD};
    struct ptx_insn cas = {.op = PTX_OP_ATOM, .type = PTX_B32, .cmp = PTX_ATOM_CAS};
    count_one(&red_add, FULL_MASK, one, 1, 1, 1);
    count_one(&red_add, 0x1F0, one, 1, 1, 1);
    count_one(&atom_max, FULL_MASK, one, 1, 1, 1);
    count_one(&float_add, FULL_MASK, one, 32, 32, 1);
    count_one(&cas, FULL_MASK, one, 32, 32, 1);
    count_one(&red_add, FULL_MASK, two, 32, 16, 1);
}

/* ------------------------------------------------------ shared memory */

/* The wavefronts of a shared request, straightforwardly: each bank serves
 * its distinct words one a wavefront; an atomic's lanes on one word
 * serialize. */
static unsigned oracle_wavefronts(uint32_t mask, const uint64_t *offset, unsigned bytes,
                                  bool atomic)
{
    uint64_t words[WARP_SIZE * 4];
    unsigned n = 0, most = 1, same = 1;
    for (uint32_t l = 0; l < WARP_SIZE; l++)
        if (mask >> l & 1)
            for (uint64_t w = offset[l] / 4; w <= (offset[l] + bytes - 1) / 4; w++)
                words[n++] = w;
    for (unsigned i = 0; i < n; i++) {
        unsigned copies = 0, distinct_before = 0, in_bank = 0;
        for (unsigned j = 0; j < n; j++) {
            copies += words[j] == words[i];
            distinct_before += j < i && words[j] == words[i];
        }
        if (distinct_before)
            continue; /* counted at its first copy */
        for (unsigned j = 0; j < n; j++) {
            bool first = true;
            for (unsigned k = 0; k < j; k++)
                first &= words[k] != words[j];
            in_bank += first && words[j] % 32 == words[i] % 32;
        }
        most = in_bank > most ? in_bank : most;
        same = copies > same ? copies : same;
    }
    return atomic && same > most ? same : most;
}

static unsigned model_wavefronts(uint32_t mask, const uint64_t *offset, unsigned bytes, bool atomic)
{
    struct timing_launch t = {.enabled = true};
    struct timing_warp warp = {0};
    struct ptx_insn insn = {0};
    timing_shared_request(&warp, &t, &insn, mask, offset, bytes, atomic);
    return (unsigned)warp.shared_wavefronts;
}

/* Rows, columns of padded and unpadded tiles, broadcasts, backwards, with
 * lanes off, bins of a histogram, 8-byte words, scattered offsets. */
static void bank_conflicts_are_the_oracles(void **state)
{
    (void)state;
    uint64_t seed = 11, offset[WARP_SIZE];
    for (int64_t stride = -70; stride <= 70; stride++)
        for (unsigned bytes = 4; bytes <= 8; bytes += 4)
            for (int atomic = 0; atomic < 2; atomic++) {
                for (uint32_t l = 0; l < WARP_SIZE; l++)
                    offset[l] = (uint64_t)(4096 + (int64_t)l * stride * 4);
                assert_int_equal(model_wavefronts(FULL_MASK, offset, bytes, atomic),
                                 oracle_wavefronts(FULL_MASK, offset, bytes, atomic));
                assert_int_equal(model_wavefronts(0x0F0F00F1u, offset, bytes, atomic),
                                 oracle_wavefronts(0x0F0F00F1u, offset, bytes, atomic));
            }
    for (int i = 0; i < 3000; i++) {
        uint64_t span = i % 3 == 0 ? 40 : i % 3 == 1 ? 256 : 1 << 16;
        unsigned bytes = i % 4 == 0 ? 8 : 4;
        for (uint32_t l = 0; l < WARP_SIZE; l++)
            offset[l] = next_random(&seed) % span * bytes;
        uint32_t mask = i % 2 ? FULL_MASK : (uint32_t)next_random(&seed) | 1;
        assert_int_equal(model_wavefronts(mask, offset, bytes, i % 5 == 0),
                         oracle_wavefronts(mask, offset, bytes, i % 5 == 0));
    }
}

/* A launch of one-warp blocks on an H200 whose L1 a test drives; its
 * warp, log and instruction. */
struct l1_fixture {
    struct ptx_function ptx;
    struct emu_function function;
    struct emu_launch cfg;
    struct timing_launch t;
    struct timing_warp warp;
    struct timing_log log;
    struct ptx_insn insn;
};

static void l1_launch(struct l1_fixture *fx)
{
    memset(fx, 0, sizeof *fx);
    fx->function.ptx = &fx->ptx;
    fx->function.info.registers = 16;
    fx->cfg = (struct emu_launch){.function = &fx->function,
                                  .grid = {4, 1, 1},
                                  .block = {32, 1, 1},
                                  .device = emu_device_model_find("h200")};
    assert_true(timing_launch_init(&fx->t, &fx->cfg, 32, 0));
    /* the resident blocks share what their reserved shared memory leaves of 256 KB */
    uint32_t resident = (uint32_t)fx->t.resident_blocks;
    assert_int_equal(fx->t.l1_lines, (256 - resident) * 1024 / resident / LINE);
}

/* A warp's read of 32 words, lane l at base + l × stride. */
static void l1_read(struct l1_fixture *fx, uint64_t base, uint64_t stride, enum timing_access kind)
{
    uint64_t address[WARP_SIZE];
    for (uint32_t l = 0; l < WARP_SIZE; l++)
        address[l] = base + l * stride;
    timing_global_request(&fx->warp, &fx->t, &fx->log, &fx->insn, FULL_MASK, address, 4, kind);
}

/* A block's re-read of a line hits in its L1: not logged for the L2, not
 * counted in its bound; a store goes past it; the next block starts empty;
 * a sweep past its share evicts; the compiled tier's sectors see the same
 * L1. */
static void an_l1_serves_a_blocks_rereads(void **state)
{
    (void)state;
    static struct l1_fixture fx;
    l1_launch(&fx);
    const uint64_t row = 1ull << 32;
    l1_read(&fx, row, 4, TIMING_READ);
    assert_false(fx.warp.l1_hit);
    assert_int_equal(fx.log.count, 1);
    l1_read(&fx, row, 4, TIMING_READ);
    assert_true(fx.warp.l1_hit);
    assert_int_equal(fx.warp.l1_hit_sectors, 4);
    assert_int_equal(fx.log.count, 1); /* nothing more for the L2 */
    assert_int_equal(fx.warp.global_sectors, 8);
    timing_global_sectors(&fx.warp, &fx.t, &fx.log, &fx.insn, row / 32, 0xF, row / 32 + 64, 0,
                          TIMING_READ);
    assert_true(fx.warp.l1_hit);
    l1_read(&fx, row, 4, TIMING_WRITE);
    assert_false(fx.warp.l1_hit);
    assert_int_equal(fx.log.count, 2); /* a store goes to the L2 */
    timing_block_done(&fx.t, 0, &fx.warp, 1, &fx.log, true);

    memset(&fx.warp, 0, sizeof fx.warp);
    l1_read(&fx, row, 4, TIMING_READ);
    assert_false(fx.warp.l1_hit); /* another block: its own L1, empty */
    for (uint64_t line = 1; line <= 16 * fx.t.l1_lines; line++)
        l1_read(&fx, row + line * LINE, 0, TIMING_READ);
    l1_read(&fx, row, 4, TIMING_READ);
    assert_false(fx.warp.l1_hit); /* evicted by the sweep */
    timing_block_done(&fx.t, 1, &fx.warp, 1, &fx.log, true);

    struct kgemu_counters got;
    timing_finish(&fx.t, &got);
    assert_int_equal(got.l1_hit_sectors, 8);
    assert_true(got.l2_ms > 0);
    timing_log_free(&fx.log);
    timing_launch_free(&fx.t);
}

/* A warp reading a column (lanes a line apart, the same place in each)
 * takes a pass of the L1's data banks per line; a row, a pass per 4
 * sectors; a store of the column, its sectors at 4 a clock. */
static void a_column_takes_a_pass_per_line(void **state)
{
    (void)state;
    static struct l1_fixture fx;
    l1_launch(&fx);
    l1_read(&fx, 1ull << 32, 1024, TIMING_READ);
    assert_int_equal(fx.warp.lsu_clocks, 32);
    l1_read(&fx, 1ull << 33, 8, TIMING_READ); /* 256 bytes: 8 sectors in 2 lines */
    assert_int_equal(fx.warp.lsu_clocks, 32 + 2);
    l1_read(&fx, 1ull << 34, 1024, TIMING_WRITE);
    assert_int_equal(fx.warp.lsu_clocks, 32 + 2 + 8);
    timing_block_done(&fx.t, 0, &fx.warp, 1, &fx.log, true);
    timing_log_free(&fx.log);
    timing_launch_free(&fx.t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dram_traffic_is_the_lru_oracles),
        cmocka_unit_test(a_small_l2_is_the_lru_oracles),
        cmocka_unit_test(an_l2_of_any_size_is_the_lru_oracles),
        cmocka_unit_test(requests_log_their_distinct_sectors),
        cmocka_unit_test(requests_by_their_sectors_are_the_same),
        cmocka_unit_test(atomic_requests_count_each_address),
        cmocka_unit_test(a_warps_atomics_to_one_address_combine),
        cmocka_unit_test(atomics_to_many_addresses_stay_in_bounded_memory),
        cmocka_unit_test(atomics_counts_do_not_depend_on_the_threads),
        cmocka_unit_test(bank_conflicts_are_the_oracles),
        cmocka_unit_test(an_l1_serves_a_blocks_rereads),
        cmocka_unit_test(a_column_takes_a_pass_per_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
