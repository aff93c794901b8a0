/*
 * Memory access of the interpreter: ld, st, atom and red, for each lane.
 *
 * Every access is checked before it is made. A global access must lie inside
 * one live allocation of the device memory table (a one-entry cache of the
 * last allocation hit makes the common case two comparisons), a shared
 * access inside the block's shared memory, a local one inside the thread's
 * stack, and every access must be aligned to its size (when a warp's lanes
 * all fit, in one allocation or in the block's shared memory, one test
 * covers them all: the fast paths). Anything else stops
 * the launch with a fault that names the thread, the address and what it
 * missed, as the real GPU's compute-sanitizer would; the host process is
 * never touched outside device memory.
 */
#include "exec.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define NULL_PAGE_BYTES   4096       /* an address below it is a null pointer's */
#define NEAR_BUFFER_BYTES (1u << 20) /* a bad address this far past a buffer is its element */

static const char *space_name(enum ptx_space space)
{
    switch (space) {
    case PTX_SPACE_GLOBAL:
        return "global";
    case PTX_SPACE_SHARED:
        return "shared";
    case PTX_SPACE_LOCAL:
        return "local";
    case PTX_SPACE_PARAM:
    case PTX_SPACE_CALL_PARAM:
        return "parameter";
    case PTX_SPACE_CONST:
        return "constant";
    default:
        return "generic";
    }
}

/* The window of the allocation a bad address belongs to: a live one it
 * lies in (in a guard zone), else one of the latest freed that it lay in
 * (`*freed`: a use after free), else the nearer of the live one it is past
 * the end of and the one it is before the start of, within
 * NEAR_BUFFER_BYTES. False when it belongs to none. */
static bool owner_of(struct emu_memory *memory, uint64_t address, struct emu_range *r, bool *freed)
{
    *freed = false;
    if (emu_memory_find(memory, address, 1, NULL))
        return emu_memory_nearest(memory, address, r);
    if (emu_memory_freed(memory, address, r))
        return *freed = true;
    struct emu_range below = {0}, above = {0};
    uint64_t past = UINT64_MAX, before = UINT64_MAX;
    if (emu_memory_nearest(memory, address, &below))
        past = address < below.base + below.size ? 0 : address - (below.base + below.size);
    if (emu_memory_next(memory, address, &above))
        before = above.base - address;
    *r = past <= before ? below : above;
    return (past <= before ? past : before) < NEAR_BUFFER_BYTES;
}

/* Where a global address lies, by the allocation it belongs to (owner_of;
 * its window: a grader's guard zones are outside), in elements of `bytes`:
 * "element [1000] of the 1000-element buffer #3 (one past its end)".
 * Returns the window's start, 0 when no buffer is named. */
static uint64_t where_global(struct warp *w, uint64_t address, unsigned bytes, char *out,
                             size_t size)
{
    struct emu_range r;
    struct emu_memory *memory = w->block->launch->cfg->memory;
    bool freed;
    if (address < NULL_PAGE_BYTES) {
        snprintf(out, size, "address %" PRIu64 ", a null pointer", address);
        return 0;
    }
    if (emu_memory_find(memory, address, 1, &r) && r.kind == EMU_ALLOC_ARRAY) {
        snprintf(out, size,
                 "byte %" PRIu64 " of CUDA array #%" PRIu64
                 ", which kernels reach only through texture and surface objects",
                 address - r.base, r.number);
        return 0;
    }
    if (!owner_of(memory, address, &r, &freed)) {
        snprintf(out, size, "an address outside every buffer");
        return 0;
    }
    char buffer[96];
    snprintf(buffer, sizeof buffer, "the %" PRIu64 "-element %s #%" PRIu64, r.size / bytes,
             emu_allocation_noun(r.kind), r.number);
    uint64_t end = r.base + r.size;
    if (freed)
        snprintf(out, size, "element [%" PRIu64 "] of %s, which was freed before the launch",
                 (address - r.base) / bytes, buffer);
    else if (address < r.base) /* in a guard zone before the window */
        snprintf(out, size, "element [-%" PRIu64 "] of %s (before its start)",
                 (r.base - address + bytes - 1) / bytes, buffer);
    else if (address >= end && address - end < bytes)
        snprintf(out, size, "element [%" PRIu64 "] of %s (one past its end)",
                 (address - r.base) / bytes, buffer);
    else if (address >= end)
        snprintf(out, size, "element [%" PRIu64 "] of %s (%" PRIu64 " elements past its end)",
                 (address - r.base) / bytes, buffer, (address - end) / bytes + 1);
    else
        snprintf(out, size, "byte %" PRIu64 " of the %" PRIu64 "-byte %s #%" PRIu64 "%s",
                 address - r.base, r.size, emu_allocation_noun(r.kind), r.number,
                 bytes > end - address ? ", running past its end" : "");
    return r.base;
}

uint64_t mem_where(struct warp *w, enum ptx_space space, uint64_t address, unsigned bytes,
                   char *out, size_t size)
{
    if (space == PTX_SPACE_GENERIC && address - SHARED_WINDOW < WINDOW_SIZE)
        space = PTX_SPACE_SHARED, address -= SHARED_WINDOW;
    else if (space == PTX_SPACE_GENERIC && address - LOCAL_WINDOW < WINDOW_SIZE)
        space = PTX_SPACE_LOCAL, address -= LOCAL_WINDOW;
    switch (space) {
    case PTX_SPACE_SHARED:
    case PTX_SPACE_LOCAL:
    case PTX_SPACE_PARAM:
    case PTX_SPACE_CALL_PARAM:
        snprintf(out, size, "offset %" PRIu64 " of %s memory", address, space_name(space));
        return 0;
    default:
        return where_global(w, address, bytes, out, size);
    }
}

static void remember(struct warp *w, const struct emu_range *r)
{
    w->cache_base[w->cache_next] = r->base;
    w->cache_end[w->cache_next] = r->base + r->size;
    w->cache_next = (w->cache_next + 1) % WARP_CACHE;
}

static void *global_pointer(struct warp *w, const struct ptx_insn *insn, int lane, uint64_t address,
                            unsigned bytes, bool write)
{
    if (address + bytes > address && warp_cache_holds(w, address, address + bytes))
        return (void *)(uintptr_t)address;
    struct emu_range r;
    if (emu_memory_accessible(w->block->launch->cfg->memory, address, bytes, &r)) {
        remember(w, &r);
        return (void *)(uintptr_t)address;
    }
    char where[MEM_WHERE_MAX];
    uint64_t buffer = where_global(w, address, bytes, where, sizeof where);
    launch_fault(w, lane, insn, CUDA_ERROR_ILLEGAL_ADDRESS, address, "%s %u bytes at %s",
                 write ? "wrote" : "read", bytes, where);
    launch_note_access(w, address, bytes, write, buffer);
    return NULL;
}

static void *window_pointer(struct warp *w, const struct ptx_insn *insn, int lane,
                            enum ptx_space space, uint64_t offset, unsigned bytes, bool write,
                            uint8_t *base, uint64_t limit)
{
    if (offset < limit && bytes <= limit - offset)
        return base + offset;
    launch_fault(w, lane, insn, CUDA_ERROR_ILLEGAL_ADDRESS, offset,
                 "%s %u bytes at offset %" PRIu64 " of %s memory, which has %" PRIu64 " bytes",
                 write ? "wrote" : "read", bytes, offset, space_name(space), limit);
    return NULL;
}

void *mem_resolve(struct warp *w, struct frame *f, const struct ptx_insn *insn, int lane,
                  enum ptx_space space, uint64_t address, unsigned bytes, bool write)
{
    const struct launch_state *ls = w->block->launch;
    if (space == PTX_SPACE_GENERIC) {
        if (address - SHARED_WINDOW < WINDOW_SIZE)
            space = PTX_SPACE_SHARED, address -= SHARED_WINDOW;
        else if (address - LOCAL_WINDOW < WINDOW_SIZE)
            space = PTX_SPACE_LOCAL, address -= LOCAL_WINDOW;
        else
            space = PTX_SPACE_GLOBAL;
    }
    unsigned alignment = bytes > 16 ? 16 : bytes;
    if (bytes > 1 && address % alignment != 0) {
        char where[MEM_WHERE_MAX];
        uint64_t buffer = mem_where(w, space, address, bytes, where, sizeof where);
        launch_fault(w, lane, insn, CUDA_ERROR_MISALIGNED_ADDRESS, address,
                     "%s %u bytes at %s, an address that is not a multiple of %u",
                     write ? "wrote" : "read", bytes, where, alignment);
        launch_note_access(w, address, bytes, write, buffer);
        return NULL;
    }
    switch (space) {
    case PTX_SPACE_SHARED:
        return window_pointer(w, insn, lane, space, address, bytes, write, w->block->shared,
                              w->block->shared_bytes);
    case PTX_SPACE_LOCAL:
        return window_pointer(w, insn, lane, space, address, bytes, write,
                              w->local + (size_t)lane * ls->local_per_lane, ls->local_per_lane);
    case PTX_SPACE_PARAM:
        if (write)
            break;
        return window_pointer(w, insn, lane, space, address, bytes, write,
                              (uint8_t *)(uintptr_t)ls->cfg->params,
                              ls->function->info.param_bytes);
    case PTX_SPACE_CALL_PARAM:
        return window_pointer(w, insn, lane, space, address, bytes, write,
                              f->params + (size_t)lane * f->fn->call_param_bytes,
                              f->fn->call_param_bytes);
    default:
        return global_pointer(w, insn, lane, address, bytes, write);
    }
    launch_fault(w, lane, insn, CUDA_ERROR_ILLEGAL_ADDRESS, address,
                 "wrote to the kernel's parameters, which are read-only");
    return NULL;
}

/* What an [address] operand adds to its register (if any): the
 * immediate, and a .local depot's place in the frame. */
static uint64_t address_offset(const struct frame *f, const struct ptx_operand *o)
{
    uint64_t offset = (uint64_t)o->imm;
    if (o->count == 1 && o->space == PTX_SPACE_LOCAL) /* a .local depot: per frame */
        offset += f->local_base;
    return offset;
}

/* The lane's address of an [address] operand. */
uint64_t mem_lane_address(const struct frame *f, const struct ptx_operand *o, uint32_t l)
{
    uint64_t base = o->reg != PTX_NO_REG ? f->regs[o->reg][l] : 0;
    return base + address_offset(f, o);
}

/* The state space an access goes to. Parameters named by symbol say which
 * parameters they are; ld.param through a register in a function reads the
 * function's own parameters. */
static enum ptx_space access_space(const struct frame *f, const struct ptx_insn *insn,
                                   const struct ptx_operand *o)
{
    if (o->count == 1 && o->space == PTX_SPACE_CALL_PARAM)
        return PTX_SPACE_CALL_PARAM;
    if (insn->space == PTX_SPACE_PARAM && !f->fn->is_entry)
        return PTX_SPACE_CALL_PARAM;
    return (enum ptx_space)insn->space;
}

/* The registers a load writes or a store reads: one, or a vector's. */
static unsigned value_rows(const struct ptx_operand *o, uint32_t rows[PTX_MAX_VEC])
{
    if (o->kind == PTX_OPD_VEC) {
        for (unsigned i = 0; i < o->count; i++)
            rows[i] = o->vec[i];
        return o->count;
    }
    rows[0] = o->kind == PTX_OPD_REG ? o->reg : PTX_NO_REG;
    return 1;
}

static const lanes_t no_register = {0};

/* The fast path of global accesses: when every lane's address is aligned
 * and the lanes together fall inside one allocation (the cached one, most
 * often), no lane needs a check of its own. Fills `address` per lane. */
static bool global_lanes_fit(struct warp *w, const struct frame *f, enum ptx_space space,
                             const struct ptx_operand *o, uint32_t m, unsigned bytes,
                             uint64_t address[WARP_SIZE])
{
    if (space != PTX_SPACE_GLOBAL && space != PTX_SPACE_CONST && space != PTX_SPACE_GENERIC)
        return false;
    uint64_t lo = UINT64_MAX, hi = 0, bits = 0, offset = address_offset(f, o);
    const uint64_t *base = o->reg != PTX_NO_REG ? f->regs[o->reg] : no_register;
    LANES(m, {
        uint64_t a = base[l] + offset;
        address[l] = a;
        lo = a < lo ? a : lo;
        hi = a > hi ? a : hi;
        bits |= a;
    });
    if ((bits & (bytes - 1)) != 0 || hi >= SHARED_WINDOW || hi + bytes < hi)
        return false; /* misaligned, a window, or wrapping: the careful path says which */
    if (warp_cache_holds(w, lo, hi + bytes))
        return true;
    struct emu_range r;
    if (!emu_memory_accessible(w->block->launch->cfg->memory, lo, hi + bytes - lo, &r))
        return false;
    remember(w, &r);
    return true;
}

/* The fast path of shared accesses (`bytes` a power of two): when every
 * lane's offset is aligned and inside the block's shared memory, no lane
 * needs a check of its own. Fills `offset` (for the timing model) and
 * `host`, the host addresses, per lane. */
static bool shared_lanes_fit(const struct warp *w, const struct frame *f, enum ptx_space space,
                             const struct ptx_operand *o, uint32_t m, unsigned bytes,
                             uint64_t offset[WARP_SIZE], uint64_t host[WARP_SIZE])
{
    if (space != PTX_SPACE_SHARED)
        return false;
    uint64_t hi = 0, bits = 0, add = address_offset(f, o), limit = w->block->shared_bytes;
    const uint64_t *base = o->reg != PTX_NO_REG ? f->regs[o->reg] : no_register;
    LANES(m, {
        uint64_t a = base[l] + add;
        offset[l] = a;
        hi = a > hi ? a : hi;
        bits |= a;
    });
    if ((bits & (bytes - 1)) != 0 || hi >= limit || bytes > limit - hi)
        return false; /* the careful path says which lane and why */
    uint64_t shared = (uint64_t)(uintptr_t)w->block->shared;
    LANES(m, host[l] = shared + offset[l]);
    return true;
}

void mem_account_shared(struct warp *w, const struct ptx_insn *insn, uint32_t m,
                        const uint64_t *offset, unsigned bytes, enum timing_access kind)
{
    struct timing_launch *t = &w->block->launch->timing;
    if (!t->enabled)
        return;
    if (insn->merge) /* ld.shared that ptxas merges (ptx_merge.c) */
        bytes = timing_shared_merge(&w->timing, insn, m, offset, bytes);
    if (bytes)
        timing_shared_request(&w->timing, t, insn, m, offset, bytes, kind == TIMING_ATOMIC);
}

/* Tells the timing model about an access of the lanes of m, `bytes` each:
 * global requests by their sectors, shared ones by their banks (generic
 * addresses by the window they fall in), and a generic load's latency. `known`
 * holds the lanes' addresses when the caller has them. Local and parameter
 * accesses are not counted. */
void mem_account_global(struct warp *w, const struct ptx_insn *insn, uint32_t m,
                        const uint64_t *address, unsigned bytes, enum timing_access kind)
{
    struct timing_launch *t = &w->block->launch->timing;
    if (t->enabled)
        timing_global_request(&w->timing, t, &w->block->log, insn, m, address, bytes, kind);
}

static void account(struct warp *w, const struct frame *f, const struct ptx_insn *insn,
                    enum ptx_space space, const struct ptx_operand *o, uint32_t m, unsigned bytes,
                    enum timing_access kind, const uint64_t *known)
{
    struct timing_launch *t = &w->block->launch->timing;
    if (!t->enabled)
        return;
    bool generic_load = insn->op == PTX_OP_LD && space == PTX_SPACE_GENERIC;
    uint32_t pc = (uint32_t)(insn - f->fn->code);
    if (known) { /* the fast path checked that every lane is global */
        mem_account_global(w, insn, m, known, bytes, kind);
        timing_global_load(&w->timing, t->device, f->fn, pc, f->ready);
        return;
    }
    uint64_t address[WARP_SIZE];
    uint32_t global = 0, shared = 0;
    for (uint32_t l = 0; l < WARP_SIZE; l++) {
        if (!(m >> l & 1))
            continue;
        uint64_t a = known ? known[l] : mem_lane_address(f, o, l);
        if (space == PTX_SPACE_GENERIC && a - SHARED_WINDOW < WINDOW_SIZE) {
            address[l] = a - SHARED_WINDOW;
            shared |= 1u << l;
        } else if (space == PTX_SPACE_SHARED) {
            address[l] = a;
            shared |= 1u << l;
        } else if (space == PTX_SPACE_GLOBAL || space == PTX_SPACE_CONST ||
                   (space == PTX_SPACE_GENERIC && a - LOCAL_WINDOW >= WINDOW_SIZE)) {
            address[l] = a;
            global |= 1u << l;
        }
    }
    if (global) {
        timing_global_request(&w->timing, t, &w->block->log, insn, global, address, bytes, kind);
        timing_global_load(&w->timing, t->device, f->fn, pc, f->ready);
    }
    if (shared)
        mem_account_shared(w, insn, shared, address, bytes, kind);
    if (generic_load && !global)
        timing_generic_load(&w->timing, t->device, f->fn, pc, f->ready,
                            shared ? TIMING_IN_SHARED : TIMING_IN_LOCAL);
}

/* The fast paths' loads and stores of `bytes` at checked addresses, one
 * loop per size: the common sizes without a switch per lane. */
static void load_lanes(uint64_t *d, const uint64_t *address, uint32_t m, unsigned bytes, bool sgn)
{
    if (bytes == 4 && !sgn)
        LANES(m, d[l] = *(const uint32_t *)(uintptr_t)address[l]);
    else if (bytes == 8)
        LANES(m, d[l] = *(const uint64_t *)(uintptr_t)address[l]);
    else
        LANES(m, d[l] = ptx_load_value((const void *)(uintptr_t)address[l], bytes, sgn));
}

static void store_lanes(const uint64_t *address, const uint64_t *value, uint32_t m, unsigned bytes)
{
    if (bytes == 4)
        LANES(m, *(uint32_t *)(uintptr_t)address[l] = (uint32_t)value[l]);
    else if (bytes == 8)
        LANES(m, *(uint64_t *)(uintptr_t)address[l] = value[l]);
    else
        LANES(m, memcpy((void *)(uintptr_t)address[l], &value[l], bytes));
}

void mem_account(struct warp *w, const struct frame *f, const struct ptx_insn *insn,
                 enum ptx_space space, const struct ptx_operand *o, uint32_t m, unsigned bytes,
                 enum timing_access kind)
{
    account(w, f, insn, space, o, m, bytes, kind, NULL);
}

bool mem_load(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t m)
{
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    bool sgn = ptx_type_is_signed((enum ptx_type)insn->type);
    uint32_t rows[PTX_MAX_VEC];
    unsigned n = value_rows(&insn->o[0], rows);
    enum ptx_space space = access_space(f, insn, &insn->o[1]);
    uint64_t address[WARP_SIZE];
    if (n == 1 && rows[0] != PTX_NO_REG && space == PTX_SPACE_PARAM &&
        insn->o[1].reg == PTX_NO_REG) {
        /* a kernel parameter: one address for every lane */
        const uint8_t *p = mem_resolve(w, f, insn, __builtin_ctz(m), space,
                                       mem_lane_address(f, &insn->o[1], 0), bytes, false);
        if (!p)
            return false;
        uint64_t v = ptx_load_value(p, bytes, sgn), *d = f->regs[rows[0]];
        LANES(m, d[l] = v);
        return true;
    }
    uint64_t host[WARP_SIZE];
    if (n == 1 && rows[0] != PTX_NO_REG &&
        global_lanes_fit(w, f, space, &insn->o[1], m, bytes, address)) {
        load_lanes(f->regs[rows[0]], address, m, bytes, sgn);
        account(w, f, insn, space, &insn->o[1], m, bytes, TIMING_READ, address);
        return true;
    }
    if (n == 1 && rows[0] != PTX_NO_REG &&
        shared_lanes_fit(w, f, space, &insn->o[1], m, bytes, address, host)) {
        load_lanes(f->regs[rows[0]], host, m, bytes, sgn);
        mem_account_shared(w, insn, m, address, bytes, TIMING_READ);
        return true;
    }
    for (uint32_t mm = m, l = 0; l < WARP_SIZE; l++) {
        if (!(mm >> l & 1))
            continue;
        const uint8_t *p = mem_resolve(w, f, insn, (int)l, space,
                                       mem_lane_address(f, &insn->o[1], l), bytes * n, false);
        if (!p)
            return false;
        for (unsigned i = 0; i < n; i++)
            if (rows[i] != PTX_NO_REG)
                f->regs[rows[i]][l] = ptx_load_value(p + i * bytes, bytes, sgn);
    }
    account(w, f, insn, space, &insn->o[1], m, bytes * n, TIMING_READ, NULL);
    return true;
}

bool mem_store(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t m)
{
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    const struct ptx_operand *v = &insn->o[1];
    uint32_t rows[PTX_MAX_VEC];
    unsigned n = value_rows(v, rows);
    enum ptx_space space = access_space(f, insn, &insn->o[0]);
    uint64_t address[WARP_SIZE];
    uint64_t host[WARP_SIZE];
    if (n == 1 && v->kind == PTX_OPD_REG &&
        global_lanes_fit(w, f, space, &insn->o[0], m, bytes, address)) {
        store_lanes(address, f->regs[rows[0]], m, bytes);
        account(w, f, insn, space, &insn->o[0], m, bytes, TIMING_WRITE, address);
        return true;
    }
    if (n == 1 && v->kind == PTX_OPD_REG &&
        shared_lanes_fit(w, f, space, &insn->o[0], m, bytes, address, host)) {
        store_lanes(host, f->regs[rows[0]], m, bytes);
        mem_account_shared(w, insn, m, address, bytes, TIMING_WRITE);
        return true;
    }
    for (uint32_t mm = m, l = 0; l < WARP_SIZE; l++) {
        if (!(mm >> l & 1))
            continue;
        uint8_t *p = mem_resolve(w, f, insn, (int)l, space, mem_lane_address(f, &insn->o[0], l),
                                 bytes * n, true);
        if (!p)
            return false;
        for (unsigned i = 0; i < n; i++) {
            uint64_t value = v->kind == PTX_OPD_IMM  ? (uint64_t)v->imm
                             : rows[i] != PTX_NO_REG ? f->regs[rows[i]][l]
                                                     : 0;
            memcpy(p + i * bytes, &value, bytes); /* little-endian: the low bytes */
        }
    }
    account(w, f, insn, space, &insn->o[0], m, bytes * n, TIMING_WRITE, NULL);
    return true;
}

/* ------------------------------------------------------------- atomics */

/* atom.add.f32 on global memory flushes subnormal inputs and results to
 * zero (PTX ISA); on shared memory it does not. f64 never flushes. */
static uint64_t atomic_float_add(void *p, uint64_t operand, unsigned bytes, bool ftz)
{
    if (bytes == 4) {
        uint32_t old = __atomic_load_n((uint32_t *)p, __ATOMIC_RELAXED), want;
        float b = ftz ? arith_ftz_f32(slot_f32(operand)) : slot_f32(operand);
        do {
            float sum = (ftz ? arith_ftz_f32(slot_f32(old)) : slot_f32(old)) + b;
            want = (uint32_t)f32_result(ftz ? arith_ftz_f32(sum) : sum);
        } while (!__atomic_compare_exchange_n((uint32_t *)p, &old, want, true, __ATOMIC_SEQ_CST,
                                              __ATOMIC_RELAXED));
        return old;
    }
    uint64_t old = __atomic_load_n((uint64_t *)p, __ATOMIC_RELAXED), want;
    do
        want = f64_slot(slot_f64(old) + slot_f64(operand));
    while (!__atomic_compare_exchange_n((uint64_t *)p, &old, want, true, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED));
    return old;
}

/* The new value of a read-modify-write for the operations without a
 * single host instruction. */
static uint64_t combine_value(enum ptx_atom_op op, uint64_t old, uint64_t b, unsigned bytes,
                              bool sgn)
{
    uint64_t keep = bytes == 8 ? ~0ull : 0xFFFFFFFFull;
    old &= keep;
    b &= keep;
    int64_t so = bytes == 8 ? (int64_t)old : (int32_t)old,
            sb = bytes == 8 ? (int64_t)b : (int32_t)b;
    switch (op) {
    case PTX_ATOM_MIN:
        return (sgn ? so < sb : old < b) ? old : b;
    case PTX_ATOM_MAX:
        return (sgn ? so > sb : old > b) ? old : b;
    case PTX_ATOM_INC:
        return old >= b ? 0 : old + 1;
    case PTX_ATOM_DEC:
        return old == 0 || old > b ? b : old - 1;
    default:
        return old;
    }
}

/* A compare-and-swap loop applying `op`. */
static uint64_t atomic_loop(void *p, enum ptx_atom_op op, uint64_t b, unsigned bytes, bool sgn)
{
    if (bytes == 4) {
        uint32_t old = __atomic_load_n((uint32_t *)p, __ATOMIC_RELAXED), want;
        do
            want = (uint32_t)combine_value(op, old, b, 4, sgn);
        while (!__atomic_compare_exchange_n((uint32_t *)p, &old, want, true, __ATOMIC_SEQ_CST,
                                            __ATOMIC_RELAXED));
        return old;
    }
    uint64_t old = __atomic_load_n((uint64_t *)p, __ATOMIC_RELAXED), want;
    do
        want = combine_value(op, old, b, 8, sgn);
    while (!__atomic_compare_exchange_n((uint64_t *)p, &old, want, true, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED));
    return old;
}

#define ATOMIC_BY_SIZE(bytes, p, fn, v)                                                            \
    ((bytes) == 4 ? (uint64_t)fn((uint32_t *)(p), (uint32_t)(v), __ATOMIC_SEQ_CST)                 \
                  : (uint64_t)fn((uint64_t *)(p), (uint64_t)(v), __ATOMIC_SEQ_CST))

/* The value an atomic operation leaves, of the old one and its operands
 * (compare-and-swap: b the expected value, c the new one). */
static uint64_t private_result(const struct ptx_insn *insn, uint64_t old, uint64_t b, uint64_t c,
                               unsigned bytes)
{
    enum ptx_type type = (enum ptx_type)insn->type;
    uint64_t keep = bytes == 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
    switch ((enum ptx_atom_op)insn->cmp) {
    case PTX_ATOM_ADD:
        if (ptx_type_is_float(type))
            return bytes == 4 ? (uint32_t)f32_result(slot_f32(old) + slot_f32(b))
                              : f64_slot(slot_f64(old) + slot_f64(b));
        return old + b;
    case PTX_ATOM_AND:
        return old & b;
    case PTX_ATOM_OR:
        return old | b;
    case PTX_ATOM_XOR:
        return old ^ b;
    case PTX_ATOM_EXCH:
        return b;
    case PTX_ATOM_CAS:
        return old == (b & keep) ? c : old;
    default:
        return combine_value((enum ptx_atom_op)insn->cmp, old, b, bytes, ptx_type_is_signed(type));
    }
}

/* An atomic operation on shared or local memory: the block's own, which one
 * host thread runs from start to end (launch.c; a cluster is one block), so
 * a plain load and store do what a locked host instruction would, at a
 * fraction of its cost (a histogram's bins in shared memory: one
 * read-modify-write a lane). The same values as mem_atomic_apply's global
 * path but for the flush to zero, which only global f32 additions do. */
static uint64_t private_apply(void *p, const struct ptx_insn *insn, uint64_t b, uint64_t c)
{
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    switch (bytes) { /* mem_atomic allows these sizes only */
    case 2: {
        uint16_t *q = p, old = *q;
        *q = (uint16_t)private_result(insn, old, b, c, 2);
        return old;
    }
    case 4: {
        uint32_t *q = p, old = *q;
        *q = (uint32_t)private_result(insn, old, b, c, 4);
        return old;
    }
    default: {
        uint64_t *q = p, old = *q;
        *q = private_result(insn, old, b, c, 8);
        return old;
    }
    }
}

uint64_t mem_atomic_apply(void *p, const struct ptx_insn *insn, uint64_t b, uint64_t c, bool global)
{
    enum ptx_type type = (enum ptx_type)insn->type;
    unsigned bytes = ptx_type_bytes(type);
    if (!global && !ptx_type_is_half(type))
        return private_apply(p, insn, b, c);
    switch ((enum ptx_atom_op)insn->cmp) {
    case PTX_ATOM_ADD:
        if (ptx_type_is_half(type))
            return half_atomic_add(p, b, type);
        if (ptx_type_is_float(type))
            return atomic_float_add(p, b, bytes, global);
        return ATOMIC_BY_SIZE(bytes, p, __atomic_fetch_add, b);
    case PTX_ATOM_AND:
        return ATOMIC_BY_SIZE(bytes, p, __atomic_fetch_and, b);
    case PTX_ATOM_OR:
        return ATOMIC_BY_SIZE(bytes, p, __atomic_fetch_or, b);
    case PTX_ATOM_XOR:
        return ATOMIC_BY_SIZE(bytes, p, __atomic_fetch_xor, b);
    case PTX_ATOM_EXCH:
        return ATOMIC_BY_SIZE(bytes, p, __atomic_exchange_n, b);
    case PTX_ATOM_CAS:
        if (bytes == 2) { /* atom.cas.b16, the one 16-bit integer atomic */
            uint16_t expected = (uint16_t)b;
            __atomic_compare_exchange_n((uint16_t *)p, &expected, (uint16_t)c, false,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            return expected;
        }
        if (bytes == 4) {
            uint32_t expected = (uint32_t)b;
            __atomic_compare_exchange_n((uint32_t *)p, &expected, (uint32_t)c, false,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            return expected;
        } else {
            uint64_t expected = b;
            __atomic_compare_exchange_n((uint64_t *)p, &expected, c, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST);
            return expected;
        }
    default:
        return atomic_loop(p, (enum ptx_atom_op)insn->cmp, b, bytes, ptx_type_is_signed(type));
    }
}

uint64_t mem_operand_lane(const struct frame *f, const struct ptx_operand *o, uint32_t l)
{
    if (o->kind == PTX_OPD_REG)
        return f->regs[o->reg][l];
    return (uint64_t)o->imm;
}

/* Whether the lanes' addresses are in one ADDS_LINE_BYTES line; its address. */
static bool in_one_line(uint32_t m, const uint64_t *address, uint64_t *line)
{
    const uint64_t span = ~(uint64_t)(ADDS_LINE_BYTES - 1);
    uint64_t first = address[__builtin_ctz(m)] & span, other = 0;
    LANES(m, other |= (address[l] & span) ^ first);
    *line = first;
    return other == 0;
}

/* The lanes of a global integer atom.add or red.add that all fall in one
 * line (a histogram's bins, a counter) add up per address before the
 * memory sees them: one locked host instruction per address instead of one
 * per lane, which two host threads sharing the bins would otherwise pass
 * back and forth lane by lane. False (nothing done) when the lanes span
 * lines. Each lane gets the value its add saw had the lanes added in
 * ascending order, as the lane loop gives them: the memory ends the same,
 * and another host thread's accesses fall between this warp's whole
 * request and the next, which the GPU allows too. */
static bool global_adds_combined(const struct ptx_insn *insn, uint32_t m, const uint64_t *at,
                                 const uint64_t *operand, uint64_t *old)
{
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    /* a lane's slot is (at[l] - base) / bytes: a division took half the call's time */
    unsigned shift = bytes == 8 ? 3 : 2;
    uint64_t base, sum[ADDS_LINE_BYTES / 4] = {0};
    if (!in_one_line(m, at, &base))
        return false;
    uint32_t used = 0;
    LANES(m, {
        uint64_t slot = (at[l] - base) >> shift;
        sum[slot] += operand[l];
        used |= 1u << slot;
    });
    uint64_t seen[ADDS_LINE_BYTES / 4];
    for (uint32_t u = used; u; u &= u - 1) {
        unsigned slot = (unsigned)__builtin_ctz(u);
        void *p = (void *)(uintptr_t)(base + slot * bytes);
        seen[slot] = bytes == 4
                         ? __atomic_fetch_add((uint32_t *)p, (uint32_t)sum[slot], __ATOMIC_SEQ_CST)
                         : __atomic_fetch_add((uint64_t *)p, sum[slot], __ATOMIC_SEQ_CST);
    }
    uint64_t keep = bytes == 4 ? 0xFFFFFFFFull : ~0ull;
    if (old)
        LANES(m, {
            unsigned slot = (unsigned)((at[l] - base) >> shift);
            old[l] = seen[slot];
            seen[slot] = (seen[slot] + operand[l]) & keep;
        });
    return true;
}

/* Whether global_adds_combined may do an atomic's lanes. */
static bool adds_combine(const struct ptx_insn *insn, bool shared)
{
    enum ptx_type type = (enum ptx_type)insn->type;
    return !shared && (enum ptx_atom_op)insn->cmp == PTX_ATOM_ADD && !ptx_type_is_float(type) &&
           !ptx_type_is_half(type);
}

/* The fast path of atom and red: every lane aligned, in the block's shared
 * memory or in one cached global allocation; the lanes update in ascending
 * order, as the careful path. False (nothing done) when it does not apply. */
static bool atomic_lanes_fast(struct warp *w, struct frame *f, const struct ptx_insn *insn,
                              enum ptx_space space, uint32_t m)
{
    bool red = insn->op == PTX_OP_RED;
    const struct ptx_operand *addr = &insn->o[red ? 0 : 1];
    const struct ptx_operand *b = &insn->o[red ? 1 : 2];
    const struct ptx_operand *c = &insn->o[red ? 2 : 3];
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    uint64_t address[WARP_SIZE], host[WARP_SIZE];
    bool shared = shared_lanes_fit(w, f, space, addr, m, bytes, address, host);
    if (!shared && !global_lanes_fit(w, f, space, addr, m, bytes, address))
        return false;
    const uint64_t *at = shared ? host : address;
    uint64_t *old = !red && insn->o[0].kind == PTX_OPD_REG ? f->regs[insn->o[0].reg] : NULL;
    uint64_t operand[WARP_SIZE];
    bool combined = false;
    if (adds_combine(insn, shared)) {
        LANES(m, operand[l] = mem_operand_lane(f, b, l));
        combined = global_adds_combined(insn, m, at, operand, old);
    }
    if (!combined)
        LANES(m, {
            uint64_t v = mem_atomic_apply((void *)(uintptr_t)at[l], insn, mem_operand_lane(f, b, l),
                                          mem_operand_lane(f, c, l), !shared);
            if (old)
                old[l] = v;
        });
    if (shared)
        mem_account_shared(w, insn, m, address, bytes, TIMING_ATOMIC);
    else
        account(w, f, insn, space, addr, m, bytes, TIMING_ATOMIC, address);
    return true;
}

void mem_flush_deferred(struct warp *w)
{
    struct deferred_adds *d = &w->deferred;
    for (uint32_t u = d->words; u; u &= u - 1) {
        unsigned word = (unsigned)__builtin_ctz(u);
        __atomic_fetch_add((uint32_t *)(uintptr_t)(d->line + 4 * word), d->sum[word],
                           __ATOMIC_SEQ_CST);
        d->sum[word] = 0;
    }
    d->line = 0;
    d->words = 0;
}

bool mem_add_deferred(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t m)
{
    if (m == 0)
        return true;
    bool red = insn->op == PTX_OP_RED;
    const struct ptx_operand *addr = &insn->o[red ? 0 : 1], *b = &insn->o[red ? 1 : 2];
    enum ptx_space space = access_space(f, insn, addr);
    uint64_t address[WARP_SIZE], line;
    struct deferred_adds *d = &w->deferred;
    if (!global_lanes_fit(w, f, space, addr, m, 4, address) || !in_one_line(m, address, &line)) {
        mem_flush_deferred(w);
        return mem_atomic(w, f, insn, m);
    }
    if (d->line != line)
        mem_flush_deferred(w);
    d->line = line;
    LANES(m, {
        unsigned word = (unsigned)(address[l] - line) / 4;
        d->sum[word] += (uint32_t)mem_operand_lane(f, b, l);
        d->words |= 1u << word;
    });
    account(w, f, insn, space, addr, m, 4, TIMING_ATOMIC, address);
    return true;
}

bool mem_atomic(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t m)
{
    bool red = insn->op == PTX_OP_RED;
    const struct ptx_operand *addr = &insn->o[red ? 0 : 1];
    const struct ptx_operand *b = &insn->o[red ? 1 : 2];
    const struct ptx_operand *c = &insn->o[red ? 2 : 3];
    unsigned bytes = ptx_type_bytes((enum ptx_type)insn->type);
    if (bytes != 4 && bytes != 8 && !(bytes == 2 && insn->cmp == PTX_ATOM_CAS) &&
        !ptx_type_is_half((enum ptx_type)insn->type)) {
        launch_fault(w, __builtin_ctz(m), insn, CUDA_ERROR_ILLEGAL_INSTRUCTION, 0,
                     "the virtual GPU supports 32- and 64-bit atomics, 16-bit compare-and-swap "
                     "and the addition of halves");
        return false;
    }
    enum ptx_space space = access_space(f, insn, addr);
    if (atomic_lanes_fast(w, f, insn, space, m))
        return true;
    for (uint32_t mm = m, l = 0; l < WARP_SIZE; l++) {
        if (!(mm >> l & 1))
            continue;
        void *p = mem_resolve(w, f, insn, (int)l, space, mem_lane_address(f, addr, l), bytes, true);
        if (!p)
            return false;
        uint64_t a = mem_lane_address(f, addr, l);
        bool global = space == PTX_SPACE_GLOBAL ||
                      (space == PTX_SPACE_GENERIC && a - SHARED_WINDOW >= WINDOW_SIZE &&
                       a - LOCAL_WINDOW >= WINDOW_SIZE);
        uint64_t old =
            mem_atomic_apply(p, insn, mem_operand_lane(f, b, l), mem_operand_lane(f, c, l), global);
        if (!red && insn->o[0].kind == PTX_OPD_REG)
            f->regs[insn->o[0].reg][l] = old;
    }
    account(w, f, insn, space, addr, m, bytes, TIMING_ATOMIC, NULL);
    return true;
}
