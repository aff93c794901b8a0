/*
 * The timing model: counts → the time a launch takes on the modeled GPU.
 *
 * Per SM (block i runs on SM i mod the SM count), in clocks:
 *   issue    = max(instructions / schedulers, each class's instructions ×
 *              32 / its lanes)                     — what the SM can issue
 *   lsu      = Σ over global requests of ⌈sectors / L1 sectors per clock⌉
 *   shared   = wavefronts / wavefronts per clock   — bank conflicts cost here
 *   latency  = Σ of its blocks' longest warp chains / resident blocks
 *              — too few warps cannot hide latency
 * For the device, in seconds:
 *   l2       = sectors requested × 32 B / L2 bandwidth
 *   dram     = (sectors the L2 model misses + dirty sectors written back)
 *              × 32 B / (peak × efficiency)
 *   atomic   = max(most atomics to one address / same-address rate,
 *                  most requests to one line / same-line rate,
 *                  all global atomics / atomic rate)
 *              where a warp's request to one address, of an operation
 *              that combines (integer add, min, max, and, or, xor), is
 *              one atomic: the compiler reduces over the warp first
 *              (warp-aggregated atomics), and the H200 measured it so
 * time = the largest of these (the busiest SM's clocks / clock rate) plus the
 * launch overhead. Constants are the device model's (emu_device_model.timing).
 *
 * Deterministic: counts are sums, maxima and unions, and the L2 replays the
 * blocks' access logs in block-index order, whatever the host threads did.
 */
#include "timing.h"
#include "exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SECTOR_BYTES        32
#define LINE_BYTES          128
#define SECTORS_PER_LINE    4
#define L2_WAYS             16
#define MAX_SETS            (1u << 20) /* 2 GB of L2: l2_set_index's bound */
#define SEQUENCER_RING      4096       /* blocks that may finish ahead of the one replayed next */
#define SEQUENCER_SPARES    64         /* replayed logs' buffers kept for later blocks */
#define REPLAY_PREFETCH     16         /* entries ahead whose L2 sets are fetched into the cache */
#define ATOMIC_TABLE_MIN    16  /* a block's table is merged and emptied per block: kept small */
#define ATOMIC_TABLE_KEPT   256 /* slots of a block's table kept for a later block (4 KB) */
#define ATOMIC_EXACT_KEYS   (1u << 16) /* keys a table counts one by one (2 MB of slots) */
#define ATOMIC_SKETCH_ROWS  2          /* past them, a count-min sketch: rows ... */
#define ATOMIC_SKETCH_BITS  16
#define ATOMIC_SKETCH_WIDTH (1u << ATOMIC_SKETCH_BITS) /* ... of this many sums (1 MB) */
#define BANKS               32
#define L1_WAYS             4              /* the L1 model's ways per set */
#define TIMING_FMAS_PER_MMA (16 * 16 * 16) /* a wmma.mma of .m16n16k16 */

/* ----------------------------------------------------------------- the L2 */

/* A set of L2_WAYS ways, the least recently used replaced first. Ways fill
 * in index order and never empty again, so a set is its filled ways and
 * their recency: age[w] is how many of its ways were used since way w (0:
 * the latest). That is the order a clock's stamps would give, in 192 bytes
 * (3 host cache lines) instead of 6: the replay waits for memory, not for
 * arithmetic. */
struct l2_set {
    uint64_t line[L2_WAYS];                 /* line address / LINE_BYTES, + 1 (0: empty) */
    uint8_t valid[L2_WAYS], dirty[L2_WAYS]; /* sector masks */
    uint8_t age[L2_WAYS];
    uint8_t filled;
} __attribute__((aligned(64)));

/* A line accessed lately, where it is, while it is still the latest used
 * of its set (no other line of the set was accessed since). */
struct l2_recent {
    uint64_t line; /* as in struct l2_set; 0: none */
    struct l2_set *set;
    unsigned way;
};

#define L2_RECENT                                                                                  \
    4 /* a naive SGEMM's two rows of A and a line of B; a histogram's bins and input */

struct l2_model {
    void *memory; /* calloc'ed (untouched pages stay unmapped), sets aligned in it */
    struct l2_set *sets;
    uint64_t n_sets;
    uint64_t set_magic;                   /* for l2_set_index: 2^64 / n_sets, rounded up */
    uint64_t read_sectors, write_sectors; /* to and from DRAM */
    struct l2_recent recent[L2_RECENT];
    unsigned recent_next; /* the slot the next line replaces */
};

static bool l2_init(struct l2_model *l2, size_t bytes)
{
    l2->n_sets = bytes / LINE_BYTES / L2_WAYS;
    if (l2->n_sets == 0)
        l2->n_sets = 1;
    if (l2->n_sets > MAX_SETS)
        l2->n_sets = MAX_SETS;
    l2->set_magic = UINT64_MAX / l2->n_sets + 1;
    l2->memory = calloc(l2->n_sets + 1, sizeof *l2->sets);
    uintptr_t at = (uintptr_t)l2->memory + _Alignof(struct l2_set) - 1;
    l2->sets = (struct l2_set *)(at & ~(uintptr_t)(_Alignof(struct l2_set) - 1));
    return l2->memory != NULL;
}

/* The set of a line: a hash of it, modulo the sets, the modulo by a
 * multiplication (Lemire, Kaser and Kurz, "Faster remainder by direct
 * computation", 2019: exact for a numerator of N bits and a divisor of L
 * bits when N + L <= 64; here 44 and at most 20). */
static uint32_t l2_set_index(const struct l2_model *l2, uint64_t line)
{
    uint64_t h = (line * 0x9E3779B97F4A7C15ull) >> 20;
    return (uint32_t)(((unsigned __int128)(l2->set_magic * h) * l2->n_sets) >> 64);
}

/* How many of a line's 4 sectors a mask has (a table: __builtin_popcount
 * is a library call on baseline x86-64). */
static unsigned sectors_in(uint8_t sectors)
{
    static const uint8_t count[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
    return count[sectors & 0xF];
}

/* The way holding `line`, or L2_WAYS. */
static unsigned l2_find(const struct l2_set *set, uint64_t line)
{
    uint32_t hits = 0;
    for (unsigned w = 0; w < L2_WAYS; w++)
        hits |= (uint32_t)(set->line[w] == line) << w;
    return hits ? (unsigned)__builtin_ctz(hits) : L2_WAYS;
}

/* The way a missing line goes to, emptied for it: the next empty way, else
 * the least recently used, whose dirty sectors are written back. `since`
 * gets how many ways were used since that way (for an empty one: all). */
static unsigned l2_replace(struct l2_model *l2, struct l2_set *set, uint64_t line, unsigned *since)
{
    unsigned way = 0;
    if (set->filled < L2_WAYS) {
        way = set->filled++;
        *since = L2_WAYS;
    } else {
        while (set->age[way] != L2_WAYS - 1)
            way++;
        *since = L2_WAYS - 1;
        l2->write_sectors += sectors_in(set->dirty[way]);
    }
    set->line[way] = line;
    set->valid[way] = 0;
    set->dirty[way] = 0;
    return way;
}

/* Way `way` becomes the latest used: the ways used since it age by one. */
static void l2_touch(struct l2_set *set, unsigned way, unsigned since)
{
    for (unsigned w = 0; w < L2_WAYS; w++)
        set->age[w] += w < set->filled && set->age[w] < since;
    set->age[way] = 0;
}

/* Where `line` is in the L2 after an access: the latest used of its set. A
 * line accessed lately whose set saw no other line since is that already
 * (a request's lines, a loop's lines that every iteration accesses): only
 * its sectors change. */
static struct l2_recent *l2_latest(struct l2_model *l2, uint64_t line, uint32_t set_index)
{
    for (unsigned i = 0; i < L2_RECENT; i++)
        if (l2->recent[i].line == line)
            return &l2->recent[i];
    struct l2_set *set = &l2->sets[set_index];
    unsigned way = l2_find(set, line), since;
    if (way < L2_WAYS)
        since = set->age[way];
    else
        way = l2_replace(l2, set, line, &since);
    l2_touch(set, way, since);
    for (unsigned i = 0; i < L2_RECENT; i++) /* the set's other lines are no longer its latest */
        if (l2->recent[i].set == set)
            l2->recent[i].line = 0;
    struct l2_recent *r = &l2->recent[l2->recent_next];
    l2->recent_next = (l2->recent_next + 1) % L2_RECENT;
    *r = (struct l2_recent){line, set, way};
    return r;
}

/* One access of some sectors of a line (of set `set_index`), in the
 * logical order; an atomic (`read` and `write`) is a read then a write of
 * the same sectors. */
static void l2_access(struct l2_model *l2, uint64_t line_address, uint32_t set_index,
                      uint8_t sectors, bool read, bool write)
{
    const struct l2_recent *latest = l2_latest(l2, line_address / LINE_BYTES + 1, set_index);
    struct l2_set *set = latest->set;
    unsigned way = latest->way;
    if (read)
        l2->read_sectors += sectors_in(sectors & ~set->valid[way]);
    set->valid[way] |= sectors;
    set->dirty[way] |= write ? sectors : 0;
}

/* What is still dirty at the end is written back too. */
static void l2_flush(struct l2_model *l2)
{
    for (uint64_t i = 0; i < l2->n_sets; i++)
        for (unsigned w = 0; w < L2_WAYS; w++) {
            l2->write_sectors += sectors_in(l2->sets[i].dirty[w]);
            l2->sets[i].dirty[w] = 0;
        }
}

/* ----------------------------------------------------------------- the L1 */

/* A block's share of its SM's L1 data cache (emulator/README.md, "The
 * L1"): what shared memory leaves of the SM's combined array, divided among
 * its resident blocks. A global load's sectors that it holds are served
 * there: they do not go to the L2, and a load whose sectors all hit has the
 * L1's latency. Lines of 128 bytes filled sector by sector (a miss fetches
 * only the sectors it lacks), L1_WAYS ways a set, the least recently used
 * replaced; stores and atomics go past it. A block's own, not the SM's: an
 * SM's blocks run on several host threads in any order, a block's warps in
 * one fixed order, so a tag store shared by the SM's blocks would make the
 * time depend on the host's threads. Ways of an earlier block (another
 * generation) are empty: a block's end empties it without a pass over it. */
struct l1_way {
    uint64_t line; /* line address / LINE_BYTES + 1 */
    uint32_t generation;
    uint32_t used; /* the L1's clock when last used: the least is replaced */
    uint8_t sectors;
};

struct timing_l1 {
    struct l1_way *ways; /* sets × L1_WAYS */
    uint32_t sets;       /* a power of 2 */
    uint32_t generation; /* the running block's */
    uint32_t clock;
};

/* The sets of a block's share of `lines`: a power of 2, 0 for no L1. */
static uint32_t l1_sets(uint32_t lines)
{
    uint32_t sets = lines / L1_WAYS;
    return sets ? 1u << (31 - __builtin_clz(sets)) : 0;
}

/* The block's L1, made at its first load (NULL: the launch models none, or
 * out of memory: every load then goes to the L2). */
static struct timing_l1 *l1_of(struct timing_log *log, const struct timing_launch *t)
{
    uint32_t sets = l1_sets(t->l1_lines);
    if (log->l1 && log->l1->sets == sets)
        return log->l1;
    if (log->l1)
        free(log->l1->ways);
    free(log->l1);
    log->l1 = NULL;
    struct timing_l1 *l1 = sets ? calloc(1, sizeof *l1) : NULL;
    if (l1 && !(l1->ways = calloc((size_t)sets * L1_WAYS, sizeof *l1->ways))) {
        free(l1);
        l1 = NULL;
    }
    if (l1) {
        l1->sets = sets;
        l1->generation = 1;
    }
    return log->l1 = l1;
}

/* A read of some sectors of the line at `line_address`; returns those the
 * L1 lacked (fetched from the L2, and held from now on). */
static uint8_t l1_read(struct timing_l1 *l1, uint64_t line_address, uint8_t sectors)
{
    uint64_t line = line_address / LINE_BYTES + 1;
    size_t set = (size_t)((line * 0x9E3779B97F4A7C15ull) >> 32) & (l1->sets - 1);
    struct l1_way *ways = &l1->ways[set * L1_WAYS];
    unsigned victim = 0;
    uint32_t oldest = UINT32_MAX;
    l1->clock++;
    for (unsigned w = 0; w < L1_WAYS; w++) {
        bool live = ways[w].generation == l1->generation;
        if (live && ways[w].line == line) {
            uint8_t missed = sectors & (uint8_t)~ways[w].sectors;
            ways[w].sectors |= sectors;
            ways[w].used = l1->clock;
            return missed;
        }
        uint32_t used = live ? ways[w].used : 0; /* an empty way first */
        if (used < oldest) {
            oldest = used;
            victim = w;
        }
    }
    ways[victim] = (struct l1_way){line, l1->generation, l1->clock, sectors};
    return sectors;
}

/* A block ended: the next starts with an empty L1. */
static void l1_empty(struct timing_l1 *l1)
{
    if (!l1)
        return;
    l1->clock = 0;
    if (++l1->generation == 0) { /* every 2^32 blocks: clear the ways once */
        memset(l1->ways, 0, (size_t)l1->sets * L1_WAYS * sizeof *l1->ways);
        l1->generation = 1;
    }
}

static void l1_free(struct timing_l1 *l1)
{
    if (l1)
        free(l1->ways);
    free(l1);
}

/* ------------------------------------------------------------- atomics */

struct atomic_count {
    uint64_t address; /* + 1 (0: empty) */
    uint64_t count;
};

/* Counts by key (an address, or a line's), one by one up to
 * ATOMIC_EXACT_KEYS keys; past them, in a count-min sketch of
 * ATOMIC_SKETCH_ROWS rows of ATOMIC_SKETCH_WIDTH sums, whatever the number
 * of keys (a red.add to each of 10M elements would otherwise hold 10M
 * counts: more than a grading job's memory). A key's count in the sketch is
 * the least of its rows' sums, never less than the true one; the most
 * atomics to one key, the least of the rows' largest sums. Both forms are
 * sums, so the counts do not depend on the order the keys came in, and
 * which form a table ends in depends only on how many keys it saw: the
 * model stays deterministic. */
struct timing_atomic_table {
    struct atomic_count *slots; /* exact: open addressing, at most half full */
    size_t capacity, used;
    uint64_t max_count, total;
    uint64_t *sketch; /* past ATOMIC_EXACT_KEYS keys (slots then freed): row-major */
    uint64_t row_max[ATOMIC_SKETCH_ROWS];
};

/* A block's or a launch's atomics: lanes by address (one address's
 * serialize) and requests by line (an L2 slice serves one line's requests
 * one after another: a histogram's bins share one line). */
struct timing_atomics {
    struct timing_atomic_table addresses, lines;
};

/* The slot of `key` (an address + 1): where it is, or the empty one it goes
 * to. The capacity is a power of 2 (a mask, not a division: a histogram
 * counts ten addresses a request). */
static size_t atomic_slot(const struct atomic_count *slots, size_t capacity, uint64_t key)
{
    size_t j = (size_t)(key * 0x9E3779B97F4A7C15ull >> 16) & (capacity - 1);
    while (slots[j].address && slots[j].address != key)
        j = (j + 1) & (capacity - 1);
    return j;
}

/* The sketch's sum of `key` in row `row`: multiplicative hashing, an odd
 * constant of its own per row, the product's top bits. */
static uint64_t *sketch_sum(uint64_t *sketch, unsigned row, uint64_t key)
{
    static const uint64_t mix[ATOMIC_SKETCH_ROWS] = {0x9E3779B97F4A7C15ull, 0xC2B2AE3D27D4EB4Full};
    size_t bucket = (size_t)(key * mix[row] >> (64 - ATOMIC_SKETCH_BITS));
    return &sketch[(size_t)row * ATOMIC_SKETCH_WIDTH + bucket];
}

static void sketch_add(struct timing_atomic_table *t, uint64_t key, uint64_t count)
{
    for (unsigned row = 0; row < ATOMIC_SKETCH_ROWS; row++) {
        uint64_t *sum = sketch_sum(t->sketch, row, key);
        *sum += count;
        t->row_max[row] = *sum > t->row_max[row] ? *sum : t->row_max[row];
    }
}

/* The table's counts into a sketch; false (the table as it was) when out of
 * memory. */
static bool atomic_to_sketch(struct timing_atomic_table *t)
{
    t->sketch = calloc((size_t)ATOMIC_SKETCH_ROWS * ATOMIC_SKETCH_WIDTH, sizeof *t->sketch);
    if (!t->sketch)
        return false;
    for (size_t i = 0; i < t->capacity; i++)
        if (t->slots[i].address)
            sketch_add(t, t->slots[i].address, t->slots[i].count);
    free(t->slots);
    t->slots = NULL;
    t->capacity = t->used = 0;
    return true;
}

static bool atomic_grow(struct timing_atomic_table *t)
{
    size_t capacity = t->capacity ? t->capacity * 2 : ATOMIC_TABLE_MIN;
    struct atomic_count *slots = calloc(capacity, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < t->capacity; i++)
        if (t->slots[i].address)
            slots[atomic_slot(slots, capacity, t->slots[i].address)] = t->slots[i];
    free(t->slots);
    t->slots = slots;
    t->capacity = capacity;
    return true;
}

static void atomic_count(struct timing_atomic_table *t, uint64_t address, uint64_t lanes)
{
    uint64_t key = address + 1;
    t->total += lanes;
    if (t->sketch) {
        sketch_add(t, key, lanes);
        return;
    }
    if ((t->used + 1) * 2 > t->capacity && !atomic_grow(t))
        return;
    size_t j = atomic_slot(t->slots, t->capacity, key);
    if (!t->slots[j].address) {
        t->slots[j].address = key;
        if (++t->used > ATOMIC_EXACT_KEYS && atomic_to_sketch(t)) {
            sketch_add(t, key, lanes);
            return;
        }
    }
    if ((t->slots[j].count += lanes) > t->max_count)
        t->max_count = t->slots[j].count;
}

/* The most atomics to one key (at least that many, past ATOMIC_EXACT_KEYS keys). */
static uint64_t atomic_most(const struct timing_atomic_table *t)
{
    if (!t->sketch)
        return t->max_count;
    uint64_t most = UINT64_MAX;
    for (unsigned row = 0; row < ATOMIC_SKETCH_ROWS; row++)
        most = t->row_max[row] < most ? t->row_max[row] : most;
    return most;
}

/* Adds a sketch to a table, which becomes one; false when out of memory. */
static bool sketch_merge(struct timing_atomic_table *into, const struct timing_atomic_table *from)
{
    if (!into->sketch && !atomic_to_sketch(into))
        return false;
    into->total += from->total;
    for (unsigned row = 0; row < ATOMIC_SKETCH_ROWS; row++) {
        uint64_t *sum = &into->sketch[(size_t)row * ATOMIC_SKETCH_WIDTH];
        const uint64_t *add = &from->sketch[(size_t)row * ATOMIC_SKETCH_WIDTH];
        for (size_t b = 0; b < ATOMIC_SKETCH_WIDTH; b++) {
            sum[b] += add[b];
            into->row_max[row] = sum[b] > into->row_max[row] ? sum[b] : into->row_max[row];
        }
    }
    return true;
}

/* Adds a block's atomics to the launch's and empties the block's table; a
 * table left mostly empty, or large, is freed (the next block grows its
 * own), so that one block's scattered atomics do not make every later
 * merge long, nor the logs kept for later blocks hold megabytes. */
static void atomic_merge(struct timing_atomic_table *into, struct timing_atomic_table *from)
{
    if (from->sketch)
        sketch_merge(into, from);
    for (size_t i = 0; i < from->capacity; i++)
        if (from->slots[i].address)
            atomic_count(into, from->slots[i].address - 1, from->slots[i].count);
    free(from->sketch);
    if (from->capacity > ATOMIC_TABLE_KEPT ||
        (from->capacity > ATOMIC_TABLE_MIN && from->used * 8 < from->capacity)) {
        free(from->slots);
        from->slots = NULL;
        from->capacity = 0;
    } else if (from->slots) {
        memset(from->slots, 0, from->capacity * sizeof *from->slots);
    }
    struct atomic_count *slots = from->slots;
    size_t capacity = from->capacity;
    memset(from, 0, sizeof *from);
    from->slots = slots;
    from->capacity = capacity;
}

static void atomics_merge(struct timing_atomics *into, struct timing_atomics *from)
{
    atomic_merge(&into->addresses, &from->addresses);
    atomic_merge(&into->lines, &from->lines);
}

/* The host memory a table holds. */
static size_t atomic_table_bytes(const struct timing_atomic_table *t)
{
    return t->capacity * sizeof *t->slots +
           (t->sketch ? (size_t)ATOMIC_SKETCH_ROWS * ATOMIC_SKETCH_WIDTH * sizeof *t->sketch : 0);
}

static size_t atomics_bytes(const struct timing_atomics *a)
{
    return a ? atomic_table_bytes(&a->addresses) + atomic_table_bytes(&a->lines) : 0;
}

static void atomics_free(struct timing_atomics *a)
{
    free(a->addresses.slots);
    free(a->addresses.sketch);
    free(a->lines.slots);
    free(a->lines.sketch);
}

/* ------------------------------------------------------------ the sequencer */

/* Blocks hand in their logs in any order; the logs are replayed through the
 * L2 in block order by one thread at a time: the one that hands in the log
 * replayed next, which then replays every later one ready meanwhile. It
 * replays outside the lock, so the other threads hand in their logs and go
 * on running blocks instead of waiting for it. */
struct timing_sequencer {
    pthread_mutex_t lock;
    pthread_cond_t room;
    uint64_t next;  /* the block whose log is replayed next */
    bool replaying; /* a thread is replaying: it takes the logs that get ready */
    struct timing_log pending[SEQUENCER_RING];
    bool ready[SEQUENCER_RING];
    struct timing_log spare[SEQUENCER_SPARES]; /* replayed logs, emptied, to hand back */
    unsigned n_spare;
    struct l2_model l2;
    /* the launch's atomics, sums: a block's are added when it hands in its
     * log, in any order, so that the logs waiting for their turn hold none */
    pthread_mutex_t atomics_lock;
    struct timing_atomics atomics;
};

/* Fetches the set of an entry a few ahead into the host's cache: the sets
 * are spread over megabytes, and the replay would otherwise wait for each.
 * (A prefetch in a function of its own is dropped by GCC as having no
 * effect, hence inline.) */
static inline __attribute__((always_inline)) void prefetch_set(const struct l2_model *l2,
                                                               const struct timing_access_entry *e)
{
    const char *set = (const char *)&l2->sets[e->set];
    for (size_t at = 0; at < sizeof(struct l2_set); at += 64)
        __builtin_prefetch(set + at);
}

static void replay(struct timing_sequencer *s, struct timing_log *log)
{
    for (size_t i = 0; i < log->count && i < REPLAY_PREFETCH; i++)
        prefetch_set(&s->l2, &log->entries[i]);
    for (size_t i = 0; i < log->count; i++) {
        if (i + REPLAY_PREFETCH < log->count)
            prefetch_set(&s->l2, &log->entries[i + REPLAY_PREFETCH]);
        const struct timing_access_entry *e = &log->entries[i];
        l2_access(&s->l2, e->address, e->set, e->sectors, e->kind != TIMING_WRITE,
                  e->kind != TIMING_READ);
    }
}

/* A replayed log's buffer is kept for a later block (no allocation per
 * block), up to SEQUENCER_SPARES of them. Under the lock. */
static void keep_spare(struct timing_sequencer *s, struct timing_log *log)
{
    if (s->n_spare == SEQUENCER_SPARES) {
        timing_log_free(log);
        return;
    }
    log->count = 0;
    log->overflowed = false;
    s->spare[s->n_spare++] = *log;
}

/* An empty log for the caller, with a buffer when one is spare. Under the lock. */
static struct timing_log take_spare(struct timing_sequencer *s)
{
    struct timing_log empty = {0};
    return s->n_spare ? s->spare[--s->n_spare] : empty;
}

/* Replays the ready logs in block order, the lock released meanwhile.
 * Called with the lock held by the one replaying thread. */
static void replay_ready(struct timing_sequencer *s)
{
    for (;;) {
        size_t slot = (size_t)(s->next % SEQUENCER_RING);
        if (!s->ready[slot])
            return;
        struct timing_log log = s->pending[slot];
        pthread_mutex_unlock(&s->lock);
        replay(s, &log);
        pthread_mutex_lock(&s->lock);
        memset(&s->pending[slot], 0, sizeof s->pending[slot]);
        s->ready[slot] = false;
        keep_spare(s, &log);
        s->next++;
        pthread_cond_broadcast(&s->room);
    }
}

/* Adds the log's atomics to the launch's, takes its entries (the caller's
 * log is left empty, maybe with a spare buffer) and, unless another thread
 * is replaying, replays every log that is next in block order. */
static void sequencer_submit(struct timing_sequencer *s, uint64_t block, struct timing_log *log)
{
    if (log->atomics) {
        pthread_mutex_lock(&s->atomics_lock);
        atomics_merge(&s->atomics, log->atomics);
        pthread_mutex_unlock(&s->atomics_lock);
    }
    pthread_mutex_lock(&s->lock);
    while (block >= s->next + SEQUENCER_RING)
        pthread_cond_wait(&s->room, &s->lock);
    size_t slot = (size_t)(block % SEQUENCER_RING);
    s->pending[slot] = *log;
    s->pending[slot].latest = NULL; /* the builder's */
    s->pending[slot].latest_sets = 0;
    s->pending[slot].l1 = NULL;
    s->ready[slot] = true;
    struct timing_log kept = *log;
    *log = take_spare(s);
    log->latest = kept.latest;
    log->latest_sets = kept.latest_sets;
    log->l1 = kept.l1;
    if (!s->replaying) {
        s->replaying = true;
        replay_ready(s);
        s->replaying = false;
    }
    pthread_mutex_unlock(&s->lock);
}

static struct timing_sequencer *sequencer_create(size_t l2_bytes)
{
    struct timing_sequencer *s = calloc(1, sizeof *s);
    if (!s || !l2_init(&s->l2, l2_bytes)) {
        free(s);
        return NULL;
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_mutex_init(&s->atomics_lock, NULL);
    pthread_cond_init(&s->room, NULL);
    return s;
}

static void sequencer_free(struct timing_sequencer *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < SEQUENCER_RING; i++)
        timing_log_free(&s->pending[i]);
    for (unsigned i = 0; i < s->n_spare; i++)
        timing_log_free(&s->spare[i]);
    free(s->l2.memory);
    atomics_free(&s->atomics);
    pthread_mutex_destroy(&s->lock);
    pthread_mutex_destroy(&s->atomics_lock);
    pthread_cond_destroy(&s->room);
    free(s);
}

/* ----------------------------------------------------------------- logs */

static void log_append(struct timing_log *log, uint64_t address, uint32_t set, uint8_t sectors,
                       uint8_t kind)
{
    if (log->count == log->capacity) {
        size_t capacity = log->capacity ? log->capacity * 2 : 256;
        struct timing_access_entry *e = realloc(log->entries, capacity * sizeof *e);
        if (!e) {
            log->overflowed = true;
            return;
        }
        log->entries = e;
        log->capacity = capacity;
    }
    log->entries[log->count++] = (struct timing_access_entry){address, set, sectors, kind};
}

/* The latest entry of each L2 set, made at the log's first access. */
static uint32_t *log_latest(struct timing_log *log, const struct l2_model *l2)
{
    if (log->latest_sets != l2->n_sets) {
        free(log->latest);
        log->latest = calloc(l2->n_sets, sizeof *log->latest);
        log->latest_sets = log->latest ? l2->n_sets : 0;
    }
    return log->latest;
}

/* Logs an access of some sectors of the line at `line_address`. When the
 * line's entry is still the latest of its set, the access joins it: in
 * the replay the line is then the latest used of its set, and its sectors
 * are the only thing an access can change (an access of sectors A then of
 * B reads from DRAM the sectors of A | B that were not there, marks
 * dirty the written ones, and leaves the set's order as it was), whatever
 * the other sets saw in between. Only an entry of the same kind is
 * joined: a read after a write of a sector does not read DRAM, before it
 * it would. A naive SGEMM's row of A, reread for 32 iterations, is one
 * entry, not 32. */
static void log_access(struct timing_log *log, const struct l2_model *l2, uint64_t line_address,
                       uint8_t sectors, uint8_t kind)
{
    if (!l2) { /* a launch without an L2 (tests of requests alone): joins the previous entry */
        struct timing_access_entry *e = log->count ? &log->entries[log->count - 1] : NULL;
        if (e && e->address == line_address && e->kind == kind)
            e->sectors |= sectors;
        else
            log_append(log, line_address, 0, sectors, kind);
        return;
    }
    uint32_t set = l2_set_index(l2, line_address / LINE_BYTES + 1);
    uint32_t *latest = log_latest(log, l2);
    if (!latest) {
        log->overflowed = true;
        return;
    }
    if (log->count >= UINT32_MAX) { /* past what the table can name: no more joining */
        log_append(log, line_address, set, sectors, kind);
        return;
    }
    uint32_t at = latest[set];
    if (at < log->count) {
        struct timing_access_entry *e = &log->entries[at];
        if (e->set == set && e->address == line_address && e->kind == kind) {
            e->sectors |= sectors;
            return;
        }
    }
    latest[set] = (uint32_t)log->count;
    log_append(log, line_address, set, sectors, kind);
}

/* The block's atomics, made at its first. */
static struct timing_atomics *log_atomics_of(struct timing_log *log)
{
    if (!log->atomics && !(log->atomics = calloc(1, sizeof *log->atomics)))
        log->overflowed = true;
    return log->atomics;
}

/* Counts `lanes` atomics to `address` in the block's table. */
static void log_atomic_lanes(struct timing_log *log, uint64_t address, unsigned lanes)
{
    struct timing_atomics *a = log_atomics_of(log);
    if (a)
        atomic_count(&a->addresses, address, lanes);
}

/* Counts `operations` on the line at `line_address`. */
static void log_atomic_operations(struct timing_log *log, uint64_t line_address,
                                  unsigned operations)
{
    struct timing_atomics *a = log_atomics_of(log);
    if (a)
        atomic_count(&a->lines, line_address, operations);
}

/* The count of `key` (at least it, past ATOMIC_EXACT_KEYS keys). */
static uint64_t table_count(const struct timing_atomic_table *t, uint64_t key)
{
    if (!t->sketch)
        return t->capacity ? t->slots[atomic_slot(t->slots, t->capacity, key + 1)].count : 0;
    uint64_t least = UINT64_MAX;
    for (unsigned row = 0; row < ATOMIC_SKETCH_ROWS; row++) {
        uint64_t sum = *sketch_sum(t->sketch, row, key + 1);
        least = sum < least ? sum : least;
    }
    return least;
}

uint64_t timing_log_atomic_lanes(const struct timing_log *log, uint64_t address)
{
    return log->atomics ? table_count(&log->atomics->addresses, address) : 0;
}

uint64_t timing_log_atomic_operations(const struct timing_log *log, uint64_t line_address)
{
    return log->atomics ? table_count(&log->atomics->lines, line_address) : 0;
}

size_t timing_log_atomic_bytes(const struct timing_log *log)
{
    return atomics_bytes(log->atomics);
}

size_t timing_atomic_bytes(struct timing_launch *t)
{
    if (!t->enabled)
        return 0;
    struct timing_sequencer *s = t->sequencer;
    pthread_mutex_lock(&s->atomics_lock);
    size_t bytes = atomics_bytes(&s->atomics);
    pthread_mutex_unlock(&s->atomics_lock);
    return bytes;
}

void timing_log_free(struct timing_log *log)
{
    if (log->atomics)
        atomics_free(log->atomics);
    free(log->atomics);
    free(log->entries);
    free(log->latest);
    l1_free(log->l1);
    memset(log, 0, sizeof *log);
}

/* ------------------------------------------------------------- requests */

/* The launch's L2, whose sets the log's entries name; NULL for a launch
 * without one (a test of requests alone). */
static const struct l2_model *l2_of(const struct timing_launch *t)
{
    return t->sequencer ? &t->sequencer->l2 : NULL;
}

static void note_hotspot(uint32_t *value, uint32_t *line, uint32_t v, uint32_t at)
{
    if (v > *value || (v == *value && at < *line)) {
        *value = v;
        *line = at;
    }
}

static uint32_t line_of(const struct ptx_insn *insn)
{
    return insn->src_line ? insn->src_line : insn->ptx_line;
}

/* Sorts a few values; most requests come already in order, which costs
 * one pass. */
static void sort_small(uint64_t *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        uint64_t x = v[i];
        unsigned j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* What a global request asks of the SM's L1 and the L2. */
struct request {
    struct timing_log *log;
    const struct l2_model *l2;
    struct timing_l1 *l1; /* a load's: the block's L1; NULL: past it */
    enum timing_access kind;
    unsigned sectors; /* distinct */
    unsigned hits;    /* of them, those the L1 held */
    /* lines by the place of their sectors in the line: the L1's data array
     * is 32 banks of 4 bytes, a sector's 8 words in 8 banks at the same
     * place in every line, so a load's sectors at one place in n lines
     * take n passes (the bank conflicts of a warp reading a column) */
    unsigned at_place[SECTORS_PER_LINE];
};

/* A request to some sectors of the line at `line_address`: a load's go
 * through the L1 first; those it lacks, and every store's or atomic's,
 * are logged for the L2. */
static void request_line(struct request *r, uint64_t line_address, uint8_t sectors)
{
    uint8_t to_l2 = r->l1 ? l1_read(r->l1, line_address, sectors) : sectors;
    if (to_l2)
        log_access(r->log, r->l2, line_address, to_l2, (uint8_t)r->kind);
    r->sectors += sectors_in(sectors);
    r->hits += sectors_in(sectors) - sectors_in(to_l2);
    for (unsigned p = 0; p < SECTORS_PER_LINE; p++)
        r->at_place[p] += sectors >> p & 1;
}

/* The lines of a window of 64 sectors, bit j of `bits` sector base + j (a
 * contiguous request's, timing_global_sectors'). */
static void request_window(struct request *r, uint64_t base, uint64_t bits)
{
    while (bits) {
        unsigned line = (unsigned)__builtin_ctzll(bits) / SECTORS_PER_LINE;
        uint8_t in_line = (uint8_t)(bits >> line * SECTORS_PER_LINE & 0xF);
        request_line(r, (base / SECTORS_PER_LINE + line) * LINE_BYTES, in_line);
        bits &= ~(0xFull << line * SECTORS_PER_LINE);
    }
}

/* The common case: every lane, consecutive elements. False when the
 * request is not of that shape (or spans more sectors than one window of
 * request_window holds: then the general path). */
static bool contiguous_request(struct request *r, uint32_t mask, const uint64_t *address,
                               unsigned bytes)
{
    if (mask != FULL_MASK || r->kind == TIMING_ATOMIC)
        return false;
    uint64_t off = 0; /* a loop without an exit, which the compiler vectorizes */
    for (uint32_t l = 1; l < WARP_SIZE; l++)
        off |= address[l] ^ (address[0] + (uint64_t)l * bytes);
    if (off)
        return false;
    uint64_t first = address[0] / SECTOR_BYTES;
    uint64_t last = (address[0] + (uint64_t)WARP_SIZE * bytes - 1) / SECTOR_BYTES;
    uint64_t base = first / SECTORS_PER_LINE * SECTORS_PER_LINE;
    if (last - base >= 64)
        return false;
    uint64_t sectors = (2ull << (last - first)) - 1; /* first to last, in a window at base */
    request_window(r, base, sectors << (first - base));
    return true;
}

/* Sorts the n sectors and drops repeats; returns how many are left. When
 * they span fewer than 64 sectors (nearly always: a warp's request is
 * within a few lines), a bitmap does it in one pass. */
static unsigned distinct_sectors(uint64_t *s, unsigned n)
{
    uint64_t lo = s[0], hi = s[0];
    for (unsigned i = 1; i < n; i++) {
        lo = s[i] < lo ? s[i] : lo;
        hi = s[i] > hi ? s[i] : hi;
    }
    unsigned d = 0;
    if (hi - lo < 64) {
        uint64_t seen = 0;
        for (unsigned i = 0; i < n; i++)
            seen |= 1ull << (s[i] - lo);
        for (; seen; seen &= seen - 1)
            s[d++] = lo + (uint64_t)__builtin_ctzll(seen);
        return d;
    }
    sort_small(s, n);
    for (unsigned i = 0; i < n; i++)
        if (i == 0 || s[i] != s[i - 1])
            s[d++] = s[i];
    return d;
}

/* Counts a request: its sectors, those the L1 held, and its clocks in the
 * L1: its sectors at L1 sectors per clock, and a load's data at least a
 * pass per line with a sector at the same place (request.at_place). */
static void count_request(struct timing_warp *tw, const struct timing_launch *t,
                          const struct ptx_insn *insn, const struct request *r)
{
    const unsigned per_clock = (unsigned)t->device->timing.l1_sectors_per_clock;
    unsigned clocks = (r->sectors + per_clock - 1) / per_clock;
    for (unsigned p = 0; p < SECTORS_PER_LINE && r->kind == TIMING_READ; p++)
        clocks = r->at_place[p] > clocks ? r->at_place[p] : clocks;
    tw->global_requests++;
    tw->global_sectors += r->sectors;
    tw->l1_hit_sectors += r->hits;
    tw->l1_hit = r->l1 && r->hits == r->sectors;
    tw->lsu_clocks += clocks;
    note_hotspot(&tw->worst_sectors, &tw->worst_sectors_line, r->sectors, line_of(insn));
}

/* A request of `kind` from the block whose log is `log`. */
static struct request request_of(struct timing_log *log, const struct timing_launch *t,
                                 enum timing_access kind)
{
    struct request r = {.log = log, .l2 = l2_of(t), .kind = kind};
    r.l1 = kind == TIMING_READ ? l1_of(log, t) : NULL;
    return r;
}

/* The common atomic request, every lane in one line (a histogram's bins, a
 * counter): the L2 sees that one line whatever the order, so it is one
 * entry with the sectors of its addresses; each address's lanes are
 * counted from a count per byte of the line and a bitmap of the bytes used
 * (no branch on the lanes' data), and the line one request. A request of
 * one address that `combines` is one lane (the warp's reduction, then one
 * atomic). `distinct` gets the request's sectors, `atomics` the atomics it
 * makes. False (nothing logged) when the lanes span lines. */
static bool log_atomics_in_line(struct timing_log *log, const struct l2_model *l2, uint32_t mask,
                                const uint64_t *address, unsigned bytes, bool combines,
                                unsigned *distinct, unsigned *atomics)
{
    uint64_t first = address[__builtin_ctz(mask)], line = first / LINE_BYTES, other = 0;
    /* inactive lanes' addresses are not set: they count as the first's,
     * chosen by a mask, not a branch, so that the loop vectorizes */
    for (uint32_t l = 0; l < WARP_SIZE; l++) {
        uint64_t on = -(uint64_t)(mask >> l & 1);
        uint64_t a = (address[l] & on) | (first & ~on);
        other |= (a / LINE_BYTES ^ line) | ((a + bytes - 1) / LINE_BYTES ^ line);
    }
    if (other)
        return false;
    uint8_t lanes[LINE_BYTES] = {0};
    uint64_t used[LINE_BYTES / 64] = {0};
    unsigned sectors = 0, first_bytes = 0; /* sectors of the lanes' bytes, of their first */
    for (uint32_t l = 0; l < WARP_SIZE; l++) {
        unsigned on = mask >> l & 1, at = (unsigned)(address[l] % LINE_BYTES);
        lanes[at] += (uint8_t)on;
        used[at / 64] |= (uint64_t)on << at % 64;
        first_bytes |= on << at / SECTOR_BYTES;
        sectors |= on << at / SECTOR_BYTES | on << (at + bytes - 1) % LINE_BYTES / SECTOR_BYTES;
    }
    log_access(log, l2, line * LINE_BYTES, (uint8_t)first_bytes, TIMING_ATOMIC);
    unsigned addresses = 0;
    for (unsigned h = 0; h < LINE_BYTES / 64; h++)
        addresses += (unsigned)__builtin_popcountll(used[h]);
    *atomics = combines && addresses == 1 ? 1 : (unsigned)__builtin_popcount(mask);
    for (unsigned h = 0; h < LINE_BYTES / 64; h++)
        for (uint64_t u = used[h]; u; u &= u - 1) {
            unsigned at = h * 64 + (unsigned)__builtin_ctzll(u);
            log_atomic_lanes(log, line * LINE_BYTES + at, addresses == 1 ? *atomics : lanes[at]);
        }
    log_atomic_operations(log, line * LINE_BYTES, 1);
    *distinct = sectors_in((uint8_t)sectors);
    return true;
}

/* An atomic request over several lines: one entry per address, in the
 * order of their last lanes, each address's lanes counted, and one request
 * on each line. The L2 ends as it would after each lane's access in turn (a lane's repeat of an
 * earlier lane's line only makes it the latest used again), unless the request's own lines evict
 * one another: over 16 lines of one L2 set in one request. */
static void log_atomics(struct timing_log *log, const struct l2_model *l2, uint32_t mask,
                        const uint64_t *address)
{
    uint64_t distinct[WARP_SIZE];
    uint8_t lanes[WARP_SIZE];
    unsigned n = 0;
    for (int l = WARP_SIZE - 1; l >= 0; l--) {
        if (!(mask >> l & 1))
            continue;
        unsigned j = 0;
        while (j < n && distinct[j] != address[l])
            j++;
        if (j == n) {
            distinct[n] = address[l];
            lanes[n++] = 0;
        }
        lanes[j]++;
    }
    for (unsigned i = 0; i < n; i++) { /* each line once */
        uint64_t line = distinct[i] / LINE_BYTES;
        unsigned j = 0;
        while (j < i && distinct[j] / LINE_BYTES != line)
            j++;
        if (j == i)
            log_atomic_operations(log, line * LINE_BYTES, 1);
    }
    while (n-- > 0) {
        log_access(log, l2, distinct[n] & ~(uint64_t)(LINE_BYTES - 1),
                   (uint8_t)(1u << (distinct[n] / SECTOR_BYTES % 4)), TIMING_ATOMIC);
        log_atomic_lanes(log, distinct[n], lanes[n]);
    }
}

/* An atomic whose lanes on one address the compiler reduces over the warp
 * first: an integer add, min, max, and, or or xor (not an exchange, a
 * compare-and-swap, a wrapping inc or dec, or a float add, whose order
 * would show). */
static bool combines(const struct ptx_insn *insn)
{
    bool atomic = insn->op == PTX_OP_ATOM || insn->op == PTX_OP_RED;
    bool integer = insn->type == PTX_U32 || insn->type == PTX_S32 || insn->type == PTX_U64 ||
                   insn->type == PTX_S64 || insn->type == PTX_B32 || insn->type == PTX_B64;
    switch (insn->cmp) {
    case PTX_ATOM_ADD:
    case PTX_ATOM_MIN:
    case PTX_ATOM_MAX:
    case PTX_ATOM_AND:
    case PTX_ATOM_OR:
    case PTX_ATOM_XOR:
        return atomic && integer;
    default:
        return false;
    }
}

/* The lanes of mask whose addresses the request's sectors need: a full
 * warp whose halves read the same addresses (a 16-wide tile's two rows of
 * threads) needs its first half; halves that each read one address (a
 * broadcast per row of threads), their first lanes. The sectors are a set,
 * so the lanes left out change nothing. Loops over every lane without an
 * exit, which the compiler vectorizes. */
static uint32_t lanes_needed(uint32_t mask, const uint64_t *address)
{
    const unsigned half = WARP_SIZE / 2;
    if (mask != FULL_MASK)
        return mask;
    uint64_t halves_differ = 0, halves_vary = 0;
    for (unsigned l = 0; l < half; l++) {
        halves_differ |= address[l] ^ address[l + half];
        halves_vary |= (address[l] ^ address[0]) | (address[l + half] ^ address[half]);
    }
    if (halves_vary == 0)
        return 1u | 1u << half;
    return halves_differ == 0 ? (1u << half) - 1 : mask;
}

void timing_global_request(struct timing_warp *tw, struct timing_launch *t, struct timing_log *log,
                           const struct ptx_insn *insn, uint32_t mask, const uint64_t *address,
                           unsigned bytes, enum timing_access kind)
{
    tw->l1_hit = false;
    if (!t->enabled || mask == 0)
        return;
    struct request r = request_of(log, t, kind);
    unsigned atomics;
    if (kind == TIMING_ATOMIC && log_atomics_in_line(log, r.l2, mask, address, bytes,
                                                     combines(insn), &r.sectors, &atomics)) {
        count_request(tw, t, insn, &r);
        tw->global_atomics += atomics;
        return;
    }
    if (contiguous_request(&r, mask, address, bytes)) {
        count_request(tw, t, insn, &r);
        return;
    }
    /* A sector equal to the one before is left out at once: lanes reading
     * one address (a broadcast) or neighbours in one sector come in runs,
     * and distinct_sectors then has a few values to order, not 32. */
    uint64_t sectors[WARP_SIZE * 2 + 1], previous = UINT64_MAX; /* no sector's number */
    unsigned n = 0;
    for (uint32_t lanes = lanes_needed(mask, address); lanes; lanes &= lanes - 1) {
        uint32_t l = (uint32_t)__builtin_ctz(lanes);
        uint64_t first = address[l] / SECTOR_BYTES, last = (address[l] + bytes - 1) / SECTOR_BYTES;
        sectors[n] = first; /* kept (n moves on) only when new: no branch to mispredict */
        n += first != previous;
        sectors[n] = last;
        n += last != first;
        previous = last;
    }
    unsigned distinct = distinct_sectors(sectors, n);
    if (kind == TIMING_ATOMIC) {
        log_atomics(log, r.l2, mask, address);
        r.sectors = distinct;
        tw->global_atomics += (uint64_t)__builtin_popcount(mask);
    }
    for (unsigned i = 0, j; i < distinct && kind != TIMING_ATOMIC; i = j) {
        uint8_t in_line = 0; /* the sectors, in order, of one line at a time */
        for (j = i; j < distinct && sectors[j] / SECTORS_PER_LINE == sectors[i] / SECTORS_PER_LINE;
             j++)
            in_line |= (uint8_t)(1u << (sectors[j] % SECTORS_PER_LINE));
        request_line(&r, sectors[i] / SECTORS_PER_LINE * LINE_BYTES, in_line);
    }
    count_request(tw, t, insn, &r);
}

void timing_global_sectors(struct timing_warp *tw, struct timing_launch *t, struct timing_log *log,
                           const struct ptx_insn *insn, uint64_t base0, uint64_t bits0,
                           uint64_t base1, uint64_t bits1, enum timing_access kind)
{
    tw->l1_hit = false;
    if (!t->enabled || (bits0 | bits1) == 0)
        return;
    struct request r = request_of(log, t, kind);
    request_window(&r, base0, bits0);
    request_window(&r, base1, bits1);
    count_request(tw, t, insn, &r);
}

/* The most distinct words one bank serves (`wavefronts`, at least 1) and
 * the most lanes on one word (`same`), for n words. Words within 64 of one
 * another (nearly always: a tile's row, a few bins) are counted in place;
 * others are sorted. */
static void bank_wavefronts(uint64_t *words, unsigned n, unsigned *wavefronts, unsigned *same)
{
    unsigned per_bank[BANKS] = {0};
    uint64_t lo = words[0], hi = words[0];
    for (unsigned i = 1; i < n; i++) {
        lo = words[i] < lo ? words[i] : lo;
        hi = words[i] > hi ? words[i] : hi;
    }
    if (hi - lo < 64) {
        uint8_t lanes[64] = {0}; /* at most WARP_SIZE * 4 */
        for (unsigned i = 0; i < n; i++)
            lanes[words[i] - lo]++;
        for (unsigned w = 0; w <= hi - lo; w++) {
            if (!lanes[w])
                continue;
            unsigned b = (unsigned)((lo + w) % BANKS);
            *wavefronts = ++per_bank[b] > *wavefronts ? per_bank[b] : *wavefronts;
            *same = lanes[w] > *same ? lanes[w] : *same;
        }
        return;
    }
    sort_small(words, n);
    unsigned run = 1;
    for (unsigned i = 0; i < n; i++) {
        if (i > 0 && words[i] == words[i - 1]) {
            run++;
            *same = run > *same ? run : *same;
            continue;
        }
        run = 1;
        unsigned b = (unsigned)(words[i] % BANKS);
        *wavefronts = ++per_bank[b] > *wavefronts ? per_bank[b] : *wavefronts;
    }
}

/* The common shape: every lane, one aligned word each, lane l at word
 * w0 + l × s (a row, a column of a tile, a broadcast). Lanes l and l' share
 * a bank when (l - l') × s is a multiple of 32, so each bank serves
 * gcd(s, 32) distinct words; s = 0 is one word, all lanes on it. False when
 * the request is not of that shape. */
static bool strided_request(uint32_t mask, const uint64_t *offset, unsigned bytes,
                            unsigned *wavefronts, unsigned *same)
{
    if (mask != FULL_MASK || bytes != 4)
        return false;
    uint64_t step = offset[1] - offset[0];
    uint64_t off = (offset[0] | step) & 3; /* a loop without an exit, which vectorizes */
    for (uint32_t l = 2; l < WARP_SIZE; l++)
        off |= offset[l] ^ (offset[0] + (uint64_t)l * step);
    if (off)
        return false;
    uint64_t s = (int64_t)step < 0 ? -step / 4 : step / 4;
    unsigned twos = s ? (unsigned)__builtin_ctzll(s) : 5;
    *wavefronts = s ? 1u << (twos < 5 ? twos : 5) : 1;
    *same = s ? 1 : WARP_SIZE;
    return true;
}

/* The other common shape: one aligned word a lane, all within 64 words (a
 * histogram's bins, a tile's row with gaps). Two of those words share a
 * bank only when 32 apart, so a bank serves 1 or 2 of them: the words
 * present as a bitmap tell which; for an atomic, a count per word gives
 * `same`. No branch on the lanes' words (they are data). False when the
 * request is not of that shape. */
static bool narrow_request(uint32_t mask, const uint64_t *offset, unsigned bytes, bool atomic,
                           unsigned *wavefronts, unsigned *same)
{
    if (bytes != 4)
        return false;
    uint64_t first = offset[__builtin_ctz(mask)], lo = first, hi = first, bits = 0;
    for (uint32_t l = 0; l < WARP_SIZE; l++) {
        uint64_t o = mask >> l & 1 ? offset[l] : first;
        lo = o < lo ? o : lo;
        hi = o > hi ? o : hi;
        bits |= o;
    }
    if ((bits & 3) || (hi - lo) / 4 >= 64)
        return false;
    uint8_t count[64] = {0};
    uint64_t present = 0;
    for (uint32_t l = 0; l < WARP_SIZE; l++) {
        unsigned on = mask >> l & 1, word = (unsigned)((offset[l] - lo) / 4 % 64);
        count[word] += (uint8_t)on;
        present |= (uint64_t)on << word;
    }
    *wavefronts = (present & present >> 32) != 0 ? 2 : 1;
    for (uint64_t p = atomic ? present : 0; p; p &= p - 1) {
        unsigned c = count[__builtin_ctzll(p)];
        *same = c > *same ? c : *same;
    }
    return true;
}

void timing_shared_request(struct timing_warp *tw, struct timing_launch *t,
                           const struct ptx_insn *insn, uint32_t mask, const uint64_t *offset,
                           unsigned bytes, bool atomic)
{
    if (!t->enabled || mask == 0)
        return;
    unsigned wavefronts = 1, same = 1;
    if (!strided_request(mask, offset, bytes, &wavefronts, &same) &&
        !narrow_request(mask, offset, bytes, atomic, &wavefronts, &same)) {
        uint64_t words[WARP_SIZE * 4];
        unsigned n = 0;
        for (uint32_t l = 0; l < WARP_SIZE; l++)
            if (mask >> l & 1)
                for (uint64_t w = offset[l] / 4;
                     w <= (offset[l] + bytes - 1) / 4 && n < WARP_SIZE * 4; w++)
                    words[n++] = w;
        bank_wavefronts(words, n, &wavefronts, &same);
    }
    if (atomic && same > wavefronts) /* atomics to one word serialize */
        wavefronts = same;
    tw->shared_requests++;
    tw->shared_wavefronts += wavefronts;
    note_hotspot(&tw->worst_ways, &tw->worst_ways_line, wavefronts, line_of(insn));
}

unsigned timing_shared_merge(struct timing_warp *tw, const struct ptx_insn *insn, uint32_t mask,
                             const uint64_t *offset, unsigned bytes)
{
    uint64_t bit = 1ull << (insn->merge_group % 64);
    if (insn->merge == PTX_MERGE_FOLLOWER)
        return tw->merged & bit ? 0 : bytes;
    unsigned group = bytes * insn->merge;
    uint64_t misaligned = 0;
    for (uint32_t l = 0; l < WARP_SIZE; l++)
        if (mask >> l & 1)
            misaligned |= offset[l] % group;
    tw->merged = misaligned ? tw->merged & ~bit : tw->merged | bit;
    return misaligned ? bytes : group;
}

/* ---------------------------------------------------------------- blocks */

/* The occupancy calculator's resident blocks (occupancy.c) for blocks of
 * `shared_bytes` (static and dynamic). A launch the driver accepted runs,
 * so at least one block: without ptxas's count the registers are an
 * estimate, which may be more than a GPU would allow. */
static int resident_blocks(const struct emu_launch *cfg, unsigned threads_per_block,
                           uint32_t shared_bytes)
{
    struct emu_occupancy_input in = {
        .threads_per_block = (int)threads_per_block,
        .registers = cfg->function->info.registers,
        .static_shared_bytes = shared_bytes - cfg->dynamic_shared_bytes,
        .dynamic_shared_bytes = cfg->dynamic_shared_bytes,
        .max_dynamic_shared_bytes = cfg->dynamic_shared_bytes,
        .shared_carveout = cfg->shared_carveout,
    };
    int blocks = emu_occupancy_blocks(cfg->device, &in);
    return blocks > 0 ? blocks : 1;
}

/* A block's share of its SM's L1, in lines: what the resident blocks'
 * shared memory (and the part reserved for each) leaves of the SM's
 * combined L1 and shared array, divided among them. */
static uint32_t l1_lines(const struct emu_device_model *d, int resident, uint32_t shared_bytes)
{
    size_t shared = (size_t)resident * (shared_bytes + d->shared_reserved_per_block);
    size_t l1 = d->l1_shared_per_sm > shared ? d->l1_shared_per_sm - shared : 0;
    return (uint32_t)(l1 / LINE_BYTES / (size_t)resident);
}

bool timing_launch_init(struct timing_launch *t, const struct emu_launch *cfg,
                        unsigned threads_per_block, uint32_t shared_bytes)
{
    memset(t, 0, sizeof *t);
    const char *env = getenv("KGEMU_TIMING");
    t->enabled = !(env && (strcmp(env, "off") == 0 || strcmp(env, "0") == 0));
    t->device = cfg->device;
    t->sm_count = cfg->device->sm_count;
    t->registers = cfg->function->info.registers;
    t->registers_exact = cfg->function->info.registers_exact;
    const struct ptx_function *f = cfg->function->ptx;
    t->lines_are_source = f->n_code > 0 && f->code[f->n_code - 1].src_line != 0;
    t->resident_blocks = resident_blocks(cfg, threads_per_block, shared_bytes);
    t->l1_lines = l1_lines(cfg->device, t->resident_blocks, shared_bytes);
    t->budget_ms = cfg->time_budget_ms;
    t->blocks_total = (uint64_t)cfg->grid[0] * cfg->grid[1] * cfg->grid[2];
    pthread_mutex_init(&t->lock, NULL);
    size_t n = (size_t)t->sm_count;
    t->issued = calloc(n * PTX_CLASS_COUNT, sizeof *t->issued);
    t->lsu_clocks = calloc(n, sizeof *t->lsu_clocks);
    t->shared_wavefronts = calloc(n, sizeof *t->shared_wavefronts);
    t->block_paths = calloc(n, sizeof *t->block_paths);
    t->longest_path = calloc(n, sizeof *t->longest_path);
    t->sequencer = t->enabled ? sequencer_create(cfg->device->l2_bytes) : NULL;
    return t->issued && t->lsu_clocks && t->shared_wavefronts && t->block_paths &&
           t->longest_path && (!t->enabled || t->sequencer);
}

void timing_launch_free(struct timing_launch *t)
{
    free(t->issued);
    free(t->lsu_clocks);
    free(t->shared_wavefronts);
    free(t->block_paths);
    free(t->longest_path);
    sequencer_free(t->sequencer);
    pthread_mutex_destroy(&t->lock);
}

static void merge_hotspot(struct timing_hotspot *h, uint32_t value, uint32_t line)
{
    if (value > h->value || (value == h->value && value > 0 && line < h->line)) {
        h->value = value;
        h->line = line;
    }
}

void timing_block_done(struct timing_launch *t, uint64_t block_index, struct timing_warp *warps,
                       unsigned n_warps, struct timing_log *log, bool complete)
{
    if (!t->enabled)
        return;
    size_t sm = (size_t)(block_index % (uint64_t)t->sm_count);
    uint64_t path = 0;
    pthread_mutex_lock(&t->lock);
    struct kgemu_counters *c = &t->totals;
    for (unsigned i = 0; i < n_warps; i++) {
        const struct timing_warp *w = &warps[i];
        for (int k = 0; k < PTX_CLASS_COUNT; k++) {
            t->issued[sm * PTX_CLASS_COUNT + (size_t)k] += w->issued[k];
            c->warp_instructions[k] += w->issued[k];
        }
        t->lsu_clocks[sm] += w->lsu_clocks;
        t->shared_wavefronts[sm] += w->shared_wavefronts;
        c->global_requests += w->global_requests;
        c->global_sectors += w->global_sectors;
        c->l1_hit_sectors += w->l1_hit_sectors;
        c->shared_requests += w->shared_requests;
        c->shared_wavefronts += w->shared_wavefronts;
        c->global_atomics += w->global_atomics;
        path = w->path > path ? w->path : path;
        merge_hotspot(&t->bank_conflict, w->worst_ways, w->worst_ways_line);
        merge_hotspot(&t->scattered_access, w->worst_sectors, w->worst_sectors_line);
    }
    t->blocks_complete += complete;
    t->block_paths[sm] += path;
    t->longest_path[sm] = path > t->longest_path[sm] ? path : t->longest_path[sm];
    pthread_mutex_unlock(&t->lock);
    l1_empty(log->l1);
    sequencer_submit(t->sequencer, block_index, log);
}

/* ----------------------------------------------------------------- time */

/* What PTX hides (emulator/README.md, "What PTX hides"): the SASS that
 * ptxas makes of one PTX division, reciprocal or square root, its fast path
 * (operands and result in the normal range; the slow path, a call, is not
 * charged), by issue class {FP32, FP64, INT, SFU, MEMORY, CONTROL, TENSOR}.
 * div.rn.f32 on sm_90: MUFU.RCP, FCHK (the range check, on the MUFU
 * queue), 5 dependent FFMAs, and BSSY, @!P0 BRA, BSYNC around the slow
 * path's call (read from a listing); estimates of the same shape for the
 * others: rcp.rn.f32 and sqrt.rn.f32, MUFU.RCP or MUFU.RSQ, 3 or 4
 * FFMA/FMUL, an exponent range check in integer instructions, the same
 * branch; the f64 forms, MUFU.RCP64H or MUFU.RSQ64H and 4 (rcp) or 8 (div,
 * sqrt) DFMAs, as a V100's 7.5 and 9.6 DFMA slots a DDIV and a DSQRT
 * (gpu-benches, cuda-incore); div.approx.f32, MUFU.RCP and FMUL;
 * div.full.f32, the same with its operand scaling. */
#define SEQ(fp32, fp64, integer, sfu, control)                                                     \
    {                                                                                              \
        fp32, fp64, integer, sfu, 0, control, 0                                                    \
    }
const struct timing_sequence timing_sequences[PTX_SEQ_COUNT] = {
    [PTX_SEQ_DIV_APPROX_F32] = {SEQ(1, 0, 0, 1, 0), SEQ(1, 0, 0, 1, 0)},
    [PTX_SEQ_DIV_FULL_F32] = {SEQ(3, 0, 0, 1, 0), SEQ(2, 0, 0, 1, 0)},
    [PTX_SEQ_DIV_RN_F32] = {SEQ(5, 0, 0, 2, 3), SEQ(5, 0, 0, 1, 1)},
    [PTX_SEQ_RCP_RN_F32] = {SEQ(3, 0, 3, 1, 3), SEQ(3, 0, 0, 1, 1)},
    [PTX_SEQ_SQRT_RN_F32] = {SEQ(4, 0, 2, 1, 3), SEQ(3, 0, 0, 1, 1)},
    [PTX_SEQ_DIV_RN_F64] = {SEQ(1, 8, 2, 1, 3), SEQ(0, 8, 0, 1, 1)},
    [PTX_SEQ_RCP_RN_F64] = {SEQ(0, 4, 2, 1, 3), SEQ(0, 4, 0, 1, 1)},
    [PTX_SEQ_SQRT_RN_F64] = {SEQ(0, 8, 2, 1, 3), SEQ(0, 8, 0, 1, 1)},
};
#undef SEQ

static double clock_hz(const struct timing_launch *t)
{
    return (double)t->device->clock_khz * 1e3;
}

/* The clocks SM `sm` needs to issue its instructions. */
static double issue_clocks(const struct timing_launch *t, size_t sm)
{
    const struct emu_timing_constants *c = &t->device->timing;
    const uint64_t *n = &t->issued[sm * PTX_CLASS_COUNT];
    /* a wmma.mma counts as a .m16n16k16 f16 product, its tensor core's
     * share of the SM's multiply-adds a clock for its warp's 32 lanes */
    const int tensor_lanes = c->tensor_fmas * WARP_SIZE / TIMING_FMAS_PER_MMA;
    const int lanes[PTX_CLASS_COUNT] = {
        c->fp32_lanes, c->fp64_lanes, c->int_lanes, c->sfu_lanes, c->lsu_lanes, 0, tensor_lanes};
    double all = 0, worst = 0;
    for (int k = 0; k < PTX_CLASS_COUNT; k++) {
        all += (double)n[k];
        if (lanes[k] > 0) {
            double clocks = (double)n[k] * WARP_SIZE / lanes[k];
            worst = clocks > worst ? clocks : worst;
        }
    }
    all /= t->device->schedulers_per_sm;
    return all > worst ? all : worst;
}

struct bounds {
    double issue, lsu, shared, latency, l2, dram, atomic;
};

static struct bounds compute_bounds(const struct timing_launch *t, uint64_t dram_sectors,
                                    const struct timing_atomics *atomics)
{
    const struct emu_timing_constants *c = &t->device->timing;
    struct bounds b = {0, 0, 0, 0, 0, 0, 0};
    double hz = clock_hz(t);
    for (size_t sm = 0; sm < (size_t)t->sm_count; sm++) {
        double issue = issue_clocks(t, sm) / hz;
        double lsu = (double)t->lsu_clocks[sm] / hz;
        double shared = (double)t->shared_wavefronts[sm] / c->shared_wavefronts_per_clock / hz;
        /* blocks overlap their latencies up to the resident count, and no
         * SM finishes before its longest block */
        double waves = (double)t->block_paths[sm] / t->resident_blocks;
        double longest = (double)t->longest_path[sm];
        double latency = (waves > longest ? waves : longest) / hz;
        b.issue = issue > b.issue ? issue : b.issue;
        b.lsu = lsu > b.lsu ? lsu : b.lsu;
        b.shared = shared > b.shared ? shared : b.shared;
        b.latency = latency > b.latency ? latency : b.latency;
    }
    uint64_t to_l2 = t->totals.global_sectors - t->totals.l1_hit_sectors;
    b.l2 = (double)to_l2 * SECTOR_BYTES / c->l2_bytes_per_second;
    b.dram = (double)dram_sectors * SECTOR_BYTES /
             (t->device->dram_bytes_per_second * c->dram_efficiency);
    if (atomics) {
        double same = (double)atomic_most(&atomics->addresses) / c->same_address_atomics_per_second;
        double line = (double)atomic_most(&atomics->lines) / c->same_line_atomics_per_second;
        double all = (double)atomics->addresses.total / c->atomics_per_second;
        b.atomic = same > all ? same : all;
        b.atomic = line > b.atomic ? line : b.atomic;
    }
    return b;
}

double timing_lower_bound_ms(struct timing_launch *t, const struct timing_warp *running)
{
    if (!t->enabled)
        return 0;
    pthread_mutex_lock(&t->lock);
    struct bounds b = compute_bounds(t, 0, NULL);
    pthread_mutex_unlock(&t->lock);
    double path = running ? (double)running->path / clock_hz(t) : 0;
    double worst = b.issue;
    const double others[] = {b.lsu, b.shared, b.latency, b.l2, path};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        worst = others[i] > worst ? others[i] : worst;
    return worst * 1e3;
}

double timing_finish(struct timing_launch *t, struct kgemu_counters *out)
{
    *out = t->totals;
    out->blocks_per_sm = t->resident_blocks;
    out->registers_per_thread = t->registers;
    out->registers_exact = t->registers_exact;
    out->lines_are_source = t->lines_are_source;
    out->blocks_total = t->blocks_total;
    out->blocks_complete = t->blocks_complete;
    if (!t->enabled)
        return 0;
    struct timing_sequencer *s = t->sequencer;
    l2_flush(&s->l2);
    uint64_t dram = s->l2.read_sectors + s->l2.write_sectors;
    struct bounds b = compute_bounds(t, dram, &s->atomics);
    out->dram_read_bytes = s->l2.read_sectors * SECTOR_BYTES;
    out->dram_write_bytes = s->l2.write_sectors * SECTOR_BYTES;
    out->max_same_address_atomics = atomic_most(&s->atomics.addresses);
    out->worst_bank_conflict_ways = t->bank_conflict.value;
    out->worst_bank_conflict_line = (int)t->bank_conflict.line;
    out->worst_sectors_per_request = t->scattered_access.value;
    out->worst_sectors_line = (int)t->scattered_access.line;
    const struct {
        const char *name;
        double seconds;
        double *slot;
    } terms[] = {
        {"issue", b.issue, &out->issue_ms},
        {"lsu", b.lsu, &out->lsu_ms},
        {"shared", b.shared, &out->shared_ms},
        {"latency", b.latency, &out->latency_ms},
        {"l2", b.l2, &out->l2_ms},
        {"dram", b.dram, &out->dram_ms},
        {"atomic", b.atomic, &out->atomic_ms},
    };
    double worst = -1;
    for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++) {
        *terms[i].slot = terms[i].seconds * 1e3;
        if (terms[i].seconds > worst) {
            worst = terms[i].seconds;
            snprintf(out->limiter, sizeof out->limiter, "%s", terms[i].name);
        }
    }
    out->overhead_ms = t->device->timing.launch_overhead_us / 1e3;
    out->modeled_ms = worst * 1e3 + out->overhead_ms;
    return out->modeled_ms;
}
