/*
 * Internal to emulator/: the state of a running launch, shared by the
 * launcher (launch.c: blocks, host threads, barriers), the interpreter
 * (interp.c: one warp's instructions), memory access (interp_memory.c) and
 * the functions kgrade provides to kernels (builtins.c: printf, malloc).
 *
 * A warp is the unit of execution: its 32 lanes run in lockstep under an
 * active mask; each register is a row of 32 64-bit slots; predicates are
 * 32-bit masks. Divergence is a stack of (pc, mask, reconvergence pc)
 * entries; calls push frames with their own registers.
 */
#ifndef KGRADE_EMULATOR_EXEC_H
#define KGRADE_EMULATOR_EXEC_H

#include <pthread.h>
#include <stdatomic.h>

#include "module.h"
#include "tier.h"
#include "timing.h"

#define WARP_SIZE PTX_WARP_SZ
#define FULL_MASK 0xFFFFFFFFu

/* Generic addresses of the per-block shared and per-thread local windows:
 * above every address a Linux process maps (47 bits), so a generic address
 * tells its space by its range. */
#define SHARED_WINDOW 0x0001000000000000ull
#define LOCAL_WINDOW  0x0002000000000000ull
#define WINDOW_SIZE   0x0000000100000000ull

/* Limits of one warp's bookkeeping. */
#define CALL_DEPTH_MAX 512
#define SIMT_STACK_MAX (4 * CALL_DEPTH_MAX) /* a call and its divergence per level */
#define BARRIERS       16

/* Defaults when the launch and the environment say nothing. */
#define DEFAULT_INSTRUCTION_BUDGET 200000000000ull /* warp instructions */
#define DEFAULT_SECONDS_BUDGET     600.0
#define BUDGET_CHECK_INTERVAL      65536 /* warp instructions between checks */

typedef uint64_t lanes_t[WARP_SIZE];

#define WARP_CACHE        4  /* global allocations a warp remembers (struct warp) */
#define WARP_ACCESS_SLOTS 16 /* global accesses of a kernel a warp prefetches for */

/* Runs the statements for each lane of the mask m (as `l`). A full mask
 * takes a loop without a test, which the compiler can vectorize. */
#define LANES(m, ...)                                                                              \
    do {                                                                                           \
        uint32_t lanes_mask_ = (m);                                                                \
        if (lanes_mask_ == FULL_MASK) {                                                            \
            for (uint32_t l = 0; l < WARP_SIZE; l++) {                                             \
                __VA_ARGS__;                                                                       \
            }                                                                                      \
        } else {                                                                                   \
            for (uint32_t l = 0; l < WARP_SIZE; l++)                                               \
                if (lanes_mask_ >> l & 1) {                                                        \
                    __VA_ARGS__;                                                                   \
                }                                                                                  \
        }                                                                                          \
    } while (0)

/* Whether an f32 instruction rounds as the host does by default: to nearest,
 * no flush to zero, no saturation, no approximation. */
static inline bool insn_plain_rounding(const struct ptx_insn *insn)
{
    return !(insn->flags & (PTX_F_FTZ | PTX_F_SAT | PTX_F_APPROX | PTX_F_FULL)) &&
           (!(insn->flags & PTX_F_HAS_RND) || insn->rnd == ARITH_RN);
}

/* The f32 NaN a GPU produces (x86 produces 0xffc00000). */
#define CANONICAL_NAN_F32 0x7FFFFFFFu

struct simt_entry {
    uint32_t pc;
    uint32_t reconv; /* PTX_NO_PC: none (the paths end by exiting or returning) */
    uint32_t mask;
};

struct frame {
    const struct ptx_function *fn;
    lanes_t *regs;
    uint32_t *preds;
    uint64_t *ready;             /* the timing model's scoreboard: when each register, then
                                    each predicate, is ready (clocks) */
    uint8_t *params;             /* per lane: fn->call_param_bytes each, lane-major */
    uint32_t local_base;         /* offset of the frame's depot in each lane's local memory */
    int stack_base;              /* SIMT depth of the caller's entry */
    const struct ptx_insn *call; /* the caller's call instruction (NULL for the kernel) */
    uint32_t call_lanes;         /* the lanes that made the call: they get its return */
};

/* WARP_YIELDED: it waits for other warps (an mbarrier phase, nanosleep)
 * and runs again on the block's next turn. */
enum warp_state { WARP_RUNNING, WARP_AT_BARRIER, WARP_YIELDED, WARP_DONE, WARP_FAULTED };

struct block;

/* The span of global memory whose integer adds a warp sums per address
 * before memory sees them (mem_atomic, mem_add_deferred): a line of a GPU's
 * L2, where a histogram's bins or a counter lie. */
#define ADDS_LINE_BYTES 128

struct warp {
    struct block *block;
    unsigned index; /* within the block */
    uint32_t live;  /* lanes that exist and have not exited */
    enum warp_state state;
    unsigned barrier; /* the barrier waited at */
    bool released;    /* the barrier completed: finish the instruction */
    struct simt_entry stack[SIMT_STACK_MAX];
    int depth;
    struct frame frames[CALL_DEPTH_MAX];
    int n_frames;
    uint32_t carry;     /* the carry flag of each lane */
    uint8_t *local;     /* WARP_SIZE × local_per_lane bytes */
    uint32_t local_top; /* bytes of each lane's local memory in use by frames */
    uint64_t instructions;
    uint64_t compiled; /* of them, run as native code by the compiled tier (jit.h) */
    uint64_t since_check;
    /* the last global allocations hit (accessible ranges, outside guard
     * zones), replaced in turn: an elementwise kernel reads and writes a few */
    uint64_t cache_base[WARP_CACHE], cache_end[WARP_CACHE];
    unsigned cache_next;
    /* the lowest address of each compiled global access last time, by slot:
     * the compiled tier's prefetch hint (jit_emit.c) */
    uint64_t access_seen[WARP_ACCESS_SLOTS];
    /* the compiled tier's adds not yet in memory (mem_add_deferred) */
    struct deferred_adds {
        uint64_t line;                     /* the ADDS_LINE_BYTES global line they go to; 0: none */
        uint32_t words;                    /* bit i: sum[i] goes to the line's word i */
        uint32_t sum[ADDS_LINE_BYTES / 4]; /* 0 where words has no bit */
    } deferred;
    struct timing_warp timing;
    unsigned tid[3][WARP_SIZE]; /* per lane */
};

struct barrier_state {
    unsigned arrived;  /* warps */
    unsigned expected; /* warps, from the count operand; 0: all live warps */
    unsigned popc;     /* bar.red: accumulated over the arrivals */
    bool all, any;
    unsigned popc_result; /* bar.red: what the last completion gave */
    bool all_result, any_result;
};

struct launch_state;
struct jit_kernel;

struct block {
    struct launch_state *launch;
    unsigned ctaid[3];
    uint8_t *shared;
    uint32_t shared_bytes;
    struct warp *warps;
    unsigned n_warps;
    unsigned live_warps;
    struct barrier_state barriers[BARRIERS];
    struct timing_log log; /* its global accesses, in order, for the L2 model */
};

/* Output of printf, kept per launch and written at its end. */
struct printf_buffer {
    pthread_mutex_t lock;
    char *data;
    size_t used, capacity, limit;
    bool truncated;
};

struct launch_state {
    const struct emu_launch *cfg;
    const struct emu_function *function;
    const struct emu_module *module;
    unsigned threads_per_block;
    unsigned warps_per_block;
    uint32_t shared_bytes;   /* static + dynamic: what a GPU charges the block */
    uint32_t shared_window;  /* the block's shared memory here: up to the end of the
                                dynamic array, which may start past the static end */
    uint32_t local_per_lane; /* the kernel's depot + the stack for calls */
    bool uses_barriers;      /* some function of the module has bar/barrier */
    /* The kernel's compiled regions (jit.h), once compiled: at the launch's
     * start when they are in the cache, else once the launch has run
     * `compile_after` warp instructions in the interpreter. */
    _Atomic(const struct jit_kernel *) jit;
    atomic_bool jit_tried;
    uint64_t compile_after;
    uint64_t total_blocks;
    atomic_uint_fast64_t next_block;
    atomic_uint_fast64_t instructions; /* warp instructions, summed at checks */
    atomic_bool stop;                  /* a fault or a budget ended the launch */
    uint64_t instruction_budget;
    double seconds_budget;
    double start_seconds;
    pthread_mutex_t fault_lock;
    struct kgemu_fault fault;
    struct printf_buffer printf;
    struct timing_launch timing;
};

/* interp.c: executes one instruction that neither branches nor waits (no
 * bra, call, ret, exit, trap, barrier, cp.async, mbarrier, nanosleep) for
 * the lanes of m (not 0), as the interpreter does; false after recording a
 * fault. The compiled tier's fallback for what it does not compile. */
bool interp_execute(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t m);

/* interp.c: the branch at pc of the current frame for the lanes in `taken`
 * (of the top entry's mask): the interpreter's SIMT stack update; false
 * after recording a fault (divergence nested too deep). */
bool interp_branch(struct warp *w, uint32_t pc, uint32_t taken);

/* launch.c: emu_launch_run on one tier (EMU_TIER_JIT or EMU_TIER_INTERP).
 * Its printf output goes to `printf_out` when given (the caller writes it),
 * else to standard output. */
CUresult launch_execute(const struct emu_launch *cfg, enum emu_tier tier,
                        struct emu_launch_result *result, struct printf_buffer *printf_out);

/* interp.c: runs the warp until it exits, waits at a barrier, or faults. */
enum warp_state warp_run(struct warp *w);

/* Starts a warp: its lanes, fixed special registers and the kernel frame.
 * false when out of memory (a fault is recorded). */
bool warp_start(struct warp *w, struct block *b, unsigned index);
void warp_release(struct warp *w);

/* launch.c: records the launch's first fault (later ones are dropped) and
 * stops the launch. `lane` < 0 when no thread is to blame. Returns
 * WARP_FAULTED for convenience. */
enum warp_state launch_fault(struct warp *w, int lane, const struct ptx_insn *insn, CUresult code,
                             uint64_t address, const char *format, ...)
    __attribute__((format(printf, 6, 7)));

/* launch.c: adds the size and direction of the access, and the start of the
 * buffer its message names (mem_where; 0: none), to the recorded fault when
 * that fault is the one at `address` (a memory fault of this launch). */
void launch_note_access(struct warp *w, uint64_t address, unsigned bytes, bool write,
                        uint64_t buffer);

/* Checks the budgets every BUDGET_CHECK_INTERVAL instructions; false when
 * the launch must stop (a fault is recorded when a budget ran out). */
bool launch_check_budget(struct warp *w, const struct ptx_insn *insn);

/* Whether [lo, end) lies in one of the warp's cached allocations. */
static inline bool warp_cache_holds(const struct warp *w, uint64_t lo, uint64_t end)
{
    bool hit = false;
    for (unsigned i = 0; i < WARP_CACHE; i++)
        hit |= lo >= w->cache_base[i] && end <= w->cache_end[i];
    return hit;
}

/* interp_memory.c */
bool mem_load(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t mask);
bool mem_store(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t mask);
bool mem_atomic(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t mask);
/* A 32-bit integer atom.add whose result nothing reads, or red.add, on
 * global memory: when the lanes fall in one line of the warp's cached
 * allocation, their sums wait in w->deferred (the line the warp's adds
 * went to last, written to memory first when it is another) and the
 * request goes to the timing model now; else mem_atomic. A relaxed add
 * may reach memory later for other threads: the warp's own accesses to
 * the line, its interpreted instructions and its leaving warp_run write
 * them first (mem_flush_deferred). False after recording a fault. */
bool mem_add_deferred(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t mask);
/* Writes the warp's deferred adds to memory, one locked add a word. */
void mem_flush_deferred(struct warp *w);
/* Where an access of `bytes` at `address` of `space` lies, for a fault's
 * message (MEM_WHERE_MAX bytes are enough): an element of a buffer ("element
 * [1000] of the 1000-element buffer #3 (one past its end)", buffers named by
 * the order the context allocated them, from 1), a byte of one, an offset of
 * shared or local memory, a null pointer, or "an address outside every
 * buffer": never a host address, which a device pointer is. Returns the
 * start of the buffer named (its window, past a grader's guard zone), 0
 * when none is. */
#define MEM_WHERE_MAX 192
uint64_t mem_where(struct warp *w, enum ptx_space space, uint64_t address, unsigned bytes,
                   char *out, size_t size);
/* The host pointer of `bytes` bytes at `address` of `space` for `lane`, or
 * NULL after recording a fault. */
void *mem_resolve(struct warp *w, struct frame *f, const struct ptx_insn *insn, int lane,
                  enum ptx_space space, uint64_t address, unsigned bytes, bool write);
/* The read-modify-write of atom, red and sured (insn's cmp and type) on the
 * value at p with operands b and c; returns the old value. */
uint64_t mem_atomic_apply(void *p, const struct ptx_insn *insn, uint64_t b, uint64_t c,
                          bool global);

/* interp_texture.c: tex, tld4, txq, suld, sust, sured and suq for the
 * lanes of `mask`; false after recording a fault. */
bool texture_execute(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t mask);

/* The lane's address of an [address] operand, and the lane's value of a
 * register or immediate operand. */
uint64_t mem_lane_address(const struct frame *f, const struct ptx_operand *o, uint32_t lane);
uint64_t mem_operand_lane(const struct frame *f, const struct ptx_operand *o, uint32_t lane);
/* Hands the timing model a request of the lanes of `mask` at `address`, all
 * of them in global memory (what the fast path of a load or store found). */
void mem_account_global(struct warp *w, const struct ptx_insn *insn, uint32_t mask,
                        const uint64_t *address, unsigned bytes, enum timing_access kind);
/* Hands the timing model a request of the lanes of `mask` at `offset` in
 * the block's shared memory (what the fast path of an access found). */
void mem_account_shared(struct warp *w, const struct ptx_insn *insn, uint32_t mask,
                        const uint64_t *offset, unsigned bytes, enum timing_access kind);
/* Hands the timing model a request of the lanes of `mask` at operand o's
 * addresses in `space`. */
void mem_account(struct warp *w, const struct frame *f, const struct ptx_insn *insn,
                 enum ptx_space space, const struct ptx_operand *o, uint32_t mask, unsigned bytes,
                 enum timing_access kind);

/* interp_async.c: cp.async, mbarrier and nanosleep for the lanes of `mask`:
 * WARP_YIELDED when the warp waits (the others run first), WARP_FAULTED
 * after recording a fault, else WARP_RUNNING. */
enum warp_state async_execute(struct warp *w, struct frame *f, const struct ptx_insn *insn,
                              uint32_t mask);

/* interp_half.c: the half-precision arithmetic (half_executes says which
 * instructions), cvt to .tf32, to a pair and with .relu or .satfinite
 * (half_converts), and atom.add on a half type's value at p (the old value). */
bool half_executes(const struct ptx_insn *insn);
void half_execute(const struct ptx_insn *insn, uint64_t *d, const uint64_t *a, const uint64_t *b,
                  const uint64_t *c, uint32_t mask);
bool half_converts(const struct ptx_insn *insn);
void half_convert(const struct ptx_insn *insn, uint64_t *d, const uint64_t *a, const uint64_t *b,
                  uint32_t mask);
uint64_t half_atomic_add(void *p, uint64_t operand, enum ptx_type type);

/* wmma.c: wmma.load, wmma.store and wmma.mma for the warp (the lanes of
 * `mask` load, store and receive results); false after recording a fault. */
bool wmma_execute(struct warp *w, struct frame *f, const struct ptx_insn *insn, uint32_t mask);

/* builtins.c: vprintf, malloc, free, __assertfail for the lanes of `mask`. */
bool builtin_call(struct warp *w, struct frame *f, const struct ptx_insn *insn,
                  const struct ptx_function *callee, uint32_t mask);

void printf_buffer_init(struct printf_buffer *p, size_t limit);
void printf_buffer_flush(struct printf_buffer *p);
/* Moves `from`'s output into `to` (replacing what `to` held) and empties `from`. */
void printf_buffer_take(struct printf_buffer *to, struct printf_buffer *from);
void printf_buffer_free(struct printf_buffer *p);

/* Reading typed values from 64-bit slots. */
static inline float slot_f32(uint64_t v)
{
    uint32_t u = (uint32_t)v;
    float f;
    __builtin_memcpy(&f, &u, 4);
    return f;
}

static inline double slot_f64(uint64_t v)
{
    double d;
    __builtin_memcpy(&d, &v, 8);
    return d;
}

static inline uint64_t f32_slot(float f)
{
    uint32_t u;
    __builtin_memcpy(&u, &f, 4);
    return u;
}

/* An f32 result as a GPU writes it: NaN is the canonical one. */
static inline uint64_t f32_result(float z)
{
    return z != z ? CANONICAL_NAN_F32 : f32_slot(z);
}

static inline uint64_t f64_slot(double d)
{
    uint64_t u;
    __builtin_memcpy(&u, &d, 8);
    return u;
}

/* The quiet bit of an f64 NaN. */
#define F64_QUIET_BIT 0x0008000000000000ull

/* An f64 add, sub, mul, div or fma result `z` (to nearest) with its NaN
 * made definite: an operand's NaN, quieted, the first of x, y, w that is
 * one, as x86 gives it for the operands in that order (a compiler may
 * commute them, and the compiled tier computes on vectors: both tiers
 * write this); a NaN no operand brought (0 * inf) is the host's. */
static inline uint64_t f64_propagated(double z, double x, double y, double w)
{
    if (z == z)
        return f64_slot(z);
    if (x != x)
        return f64_slot(x) | F64_QUIET_BIT;
    if (y != y)
        return f64_slot(y) | F64_QUIET_BIT;
    if (w != w)
        return f64_slot(w) | F64_QUIET_BIT;
    return f64_slot(z);
}

#endif
