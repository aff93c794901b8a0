/*
 * Launches: a grid of blocks run on a pool of host threads.
 *
 * Blocks are handed out in index order from one atomic counter; each host
 * thread runs its block's warps to completion. A kernel without barriers
 * runs each warp straight through. With barriers, the warps of a block take
 * turns: each runs until it waits at a barrier or exits; when every warp
 * that has not exited waits, the barrier completes and they go on; when none
 * can go on, the launch ends with a deadlock fault instead of hanging.
 *
 * The first fault of any thread stops the launch and is what the driver
 * reports. Budgets of executed instructions and of wall-clock time end a
 * runaway kernel with CUDA_ERROR_LAUNCH_TIMEOUT.
 */
#include "exec.h"
#include "jit.h"

#include <fenv.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_HOST_THREADS      256
#define BUDGET_BLOCK_INTERVAL 64 /* blocks between checks of the modeled-time budget */

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---------------------------------------------------------------- faults */

static void where_of(const struct ptx_insn *insn, char *out, size_t size)
{
    if (!insn)
        snprintf(out, size, "%s", "");
    else if (insn->src_line)
        snprintf(out, size, " (line %u)", insn->src_line);
    else
        snprintf(out, size, " (PTX line %u)", insn->ptx_line);
}

/* Records the launch's first fault; `over_time_budget` belongs to that fault
 * only, so it is set under the same lock. */
static __attribute__((format(printf, 7, 0))) enum warp_state
record_fault(struct warp *w, int lane, const struct ptx_insn *insn, CUresult code, uint64_t address,
             double budget_bound_ms, const char *format, va_list ap)
{
    struct launch_state *ls = w->block->launch;
    pthread_mutex_lock(&ls->fault_lock);
    if (ls->fault.code == CUDA_SUCCESS) {
        struct kgemu_fault *f = &ls->fault;
        char what[KGEMU_MESSAGE_MAX], where[48];
        vsnprintf(what, sizeof what, format, ap);
        f->over_time_budget = budget_bound_ms > 0;
        f->bound_at_stop_ms = budget_bound_ms;
        where_of(insn, where, sizeof where);
        f->code = code;
        snprintf(f->kernel, sizeof f->kernel, "%s", ls->function->ptx->name);
        memcpy(f->block, w->block->ctaid, sizeof f->block);
        if (lane >= 0) {
            f->has_thread = 1;
            for (int k = 0; k < 3; k++)
                f->thread[k] = w->tid[k][lane];
            snprintf(f->message, sizeof f->message,
                     "thread (%u,%u,%u) of block (%u,%u,%u) %.380s%.40s", f->thread[0],
                     f->thread[1], f->thread[2], f->block[0], f->block[1], f->block[2], what,
                     where);
        } else {
            snprintf(f->message, sizeof f->message, "block (%u,%u,%u): %.380s%.40s", f->block[0],
                     f->block[1], f->block[2], what, where);
        }
        f->address = address;
        f->ptx_line = insn ? (int)insn->ptx_line : 0;
        f->source_line = insn ? (int)insn->src_line : 0;
    }
    atomic_store(&ls->stop, true);
    pthread_mutex_unlock(&ls->fault_lock);
    return WARP_FAULTED;
}

enum warp_state launch_fault(struct warp *w, int lane, const struct ptx_insn *insn, CUresult code,
                             uint64_t address, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    enum warp_state s = record_fault(w, lane, insn, code, address, 0.0, format, ap);
    va_end(ap);
    return s;
}

static __attribute__((format(printf, 4, 5))) void over_budget_fault(struct warp *w,
                                                                    const struct ptx_insn *insn,
                                                                    double bound_ms,
                                                                    const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    record_fault(w, -1, insn, CUDA_ERROR_LAUNCH_TIMEOUT, 0, bound_ms, format, ap);
    va_end(ap);
}

void launch_note_access(struct warp *w, uint64_t address, unsigned bytes, bool write,
                        uint64_t buffer)
{
    struct launch_state *ls = w->block->launch;
    pthread_mutex_lock(&ls->fault_lock);
    if (ls->fault.address == address && ls->fault.access_bytes == 0) {
        ls->fault.access_bytes = bytes;
        ls->fault.access_write = write;
        ls->fault.buffer = buffer;
    }
    pthread_mutex_unlock(&ls->fault_lock);
}

/* Stops the launch once the timing model is sure it needs more than its
 * modeled-time budget: a hopelessly slow kernel is judged in seconds. */
static bool check_time_budget(struct warp *w, const struct ptx_insn *insn)
{
    struct launch_state *ls = w->block->launch;
    if (ls->timing.budget_ms <= 0)
        return true;
    double bound = timing_lower_bound_ms(&ls->timing, &w->timing);
    if (bound <= ls->timing.budget_ms)
        return true;
    over_budget_fault(w, insn, bound,
                      "the kernel needs at least %.3f ms on the modeled GPU, over its budget of "
                      "%.3f ms, and was stopped",
                      bound, ls->timing.budget_ms);
    return false;
}

bool launch_check_budget(struct warp *w, const struct ptx_insn *insn)
{
    struct launch_state *ls = w->block->launch;
    uint64_t total = atomic_fetch_add(&ls->instructions, w->since_check) + w->since_check;
    w->since_check = 0;
    if (atomic_load(&ls->stop) || !check_time_budget(w, insn))
        return false;
    double elapsed = now_seconds() - ls->start_seconds;
    if (total <= ls->instruction_budget && elapsed <= ls->seconds_budget)
        return true;
    launch_fault(w, -1, insn, CUDA_ERROR_LAUNCH_TIMEOUT, 0,
                 "the kernel ran past its budget (%" PRIu64 " warp instructions, %.0f s) and was "
                 "stopped: an endless loop? (Under the virtual GPU's lockstep execution, a spin "
                 "lock between threads of one warp, or a block waiting for another block, can "
                 "also never finish.)",
                 total, elapsed);
    return false;
}

/* --------------------------------------------------------------- blocks */

/* What one host thread needs to run blocks, reused block after block. */
struct runner {
    struct launch_state *ls;
    struct block block;
    uint8_t *local;
    struct timing_warp *timing; /* the warps' counts, handed to the model */
};

static bool runner_init(struct runner *r, struct launch_state *ls)
{
    memset(r, 0, sizeof *r);
    r->ls = ls;
    r->block.launch = ls;
    r->block.n_warps = ls->warps_per_block;
    r->block.warps = calloc(ls->warps_per_block, sizeof *r->block.warps);
    r->block.shared = calloc(1, ls->shared_window ? ls->shared_window : 1);
    r->block.shared_bytes = ls->shared_window;
    size_t local = (size_t)ls->local_per_lane * WARP_SIZE * ls->warps_per_block;
    r->local = calloc(1, local ? local : 1);
    r->timing = calloc(ls->warps_per_block, sizeof *r->timing);
    if (!r->block.warps || !r->block.shared || !r->local || !r->timing)
        return false;
    for (unsigned i = 0; i < ls->warps_per_block; i++)
        r->block.warps[i].local = r->local + (size_t)i * ls->local_per_lane * WARP_SIZE;
    return true;
}

static void runner_free(struct runner *r)
{
    for (unsigned i = 0; r->block.warps && i < r->block.n_warps; i++)
        warp_release(&r->block.warps[i]);
    free(r->block.warps);
    free(r->block.shared);
    free(r->local);
    free(r->timing);
    timing_log_free(&r->block.log);
}

static void flush_instructions(struct launch_state *ls, struct warp *w)
{
    atomic_fetch_add(&ls->instructions, w->since_check);
    w->since_check = 0;
}

/* Releases the warps waiting at complete barriers; false when none was. */
static bool release_barriers(struct block *b)
{
    bool released = false;
    unsigned live = 0;
    for (unsigned i = 0; i < b->n_warps; i++)
        live += b->warps[i].state != WARP_DONE;
    for (unsigned id = 0; id < BARRIERS; id++) {
        struct barrier_state *bs = &b->barriers[id];
        unsigned waiting = 0;
        for (unsigned i = 0; i < b->n_warps; i++)
            waiting += b->warps[i].state == WARP_AT_BARRIER && b->warps[i].barrier == id;
        unsigned expected = bs->expected ? bs->expected : live;
        if (waiting == 0 || waiting + bs->arrived < expected)
            continue;
        for (unsigned i = 0; i < b->n_warps; i++) {
            struct warp *w = &b->warps[i];
            if (w->state == WARP_AT_BARRIER && w->barrier == id) {
                w->state = WARP_RUNNING;
                w->released = true;
            }
        }
        unsigned popc = bs->popc;
        bool all = bs->all, any = bs->any;
        memset(bs, 0, sizeof *bs);
        bs->all = true;
        bs->popc_result = popc;
        bs->all_result = all;
        bs->any_result = any;
        released = true;
    }
    return released;
}

static enum warp_state deadlock(struct block *b)
{
    for (unsigned i = 0; i < b->n_warps; i++) {
        struct warp *w = &b->warps[i];
        if (w->state != WARP_AT_BARRIER)
            continue;
        const struct frame *f = &w->frames[w->n_frames - 1];
        const struct ptx_insn *insn = &f->fn->code[w->stack[w->depth - 1].pc];
        return launch_fault(w, -1, insn, CUDA_ERROR_LAUNCH_FAILED, 0,
                            "barrier deadlock: warp %u waits at barrier %u, which the other "
                            "threads of the block never reach (a __syncthreads() that only some "
                            "threads execute?)",
                            w->index, w->barrier);
    }
    return WARP_FAULTED;
}

/* Warps take turns until all exit; false on a fault. */
static bool run_with_barriers(struct block *b)
{
    for (;;) {
        bool any_running = false;
        for (unsigned i = 0; i < b->n_warps; i++) {
            struct warp *w = &b->warps[i];
            if (w->state != WARP_RUNNING && w->state != WARP_YIELDED)
                continue;
            any_running = true;
            if (warp_run(w) == WARP_FAULTED)
                return false;
        }
        bool all_done = true;
        for (unsigned i = 0; i < b->n_warps; i++)
            all_done &= b->warps[i].state == WARP_DONE;
        if (all_done)
            return true;
        if (atomic_load(&b->launch->stop))
            return false;
        if (!release_barriers(b) && !any_running) {
            deadlock(b);
            return false;
        }
    }
}

/* Hands the block's counts and log to the timing model, whether it ran to
 * the end or was stopped (so a stopped launch still has the counters of
 * what ran, and every block the sequencer waits for arrives); checks the
 * budget after a complete block. */
static bool finish_block_timing(struct runner *r, uint64_t index, bool complete)
{
    struct launch_state *ls = r->ls;
    struct block *b = &r->block;
    if (!ls->timing.enabled)
        return complete;
    for (unsigned i = 0; i < b->n_warps; i++)
        r->timing[i] = b->warps[i].timing;
    timing_block_done(&ls->timing, index, r->timing, b->n_warps, &b->log, complete);
    return complete &&
           (index % BUDGET_BLOCK_INTERVAL != 0 || check_time_budget(&b->warps[0], NULL));
}

/* When a launch compiles its kernel: after jit_compile_after() warp
 * instructions in the interpreter (what the compile costs), or at its
 * first block when its warps, running each instruction once, would reach
 * that count anyway (a grid of 100M threads: the interpreter's warm-up
 * and the compile's overlap with it were 10-15 % of transpose's kernel
 * time). Its total blocks must be set. */
static uint64_t compile_after(const struct launch_state *ls)
{
    uint64_t after = jit_compile_after(ls->function->ptx), n = ls->function->ptx->n_code;
    uint64_t warps = n ? after / n + (after % n != 0) : UINT64_MAX;
    uint64_t blocks = warps / ls->warps_per_block + (warps % ls->warps_per_block != 0);
    return ls->total_blocks >= blocks ? 0 : after;
}

/* The compiled tier pays for its compile once the launch has run enough in
 * the interpreter, or once a block has run so much that the blocks still to
 * start, each alike, would (a grid-stride loop: the first block tells what
 * each costs): then one host thread compiles the kernel while the others go
 * on; blocks and warps switch tiers at their next instruction, which
 * changes nothing but the speed (both tiers are identical). Not after a
 * fault: the launch ends. */
static void compile_when_hot(struct launch_state *ls, uint64_t block_instructions, bool ok)
{
    if (!ok || atomic_load_explicit(&ls->stop, memory_order_relaxed) ||
        atomic_load_explicit(&ls->jit_tried, memory_order_relaxed))
        return;
    uint64_t started = atomic_load_explicit(&ls->next_block, memory_order_relaxed), projected;
    uint64_t to_start = started < ls->total_blocks ? ls->total_blocks - started : 0;
    if (__builtin_mul_overflow(block_instructions, to_start, &projected))
        projected = UINT64_MAX;
    if ((atomic_load_explicit(&ls->instructions, memory_order_relaxed) < ls->compile_after &&
         projected < ls->compile_after) ||
        atomic_exchange(&ls->jit_tried, true))
        return;
    atomic_store_explicit(&ls->jit, jit_kernel_with_calls(ls->module->ptx, ls->function->ptx, true),
                          memory_order_release);
}

static bool run_block(struct runner *r, uint64_t index)
{
    struct launch_state *ls = r->ls;
    struct block *b = &r->block;
    const unsigned *grid = ls->cfg->grid;
    b->ctaid[0] = (unsigned)(index % grid[0]);
    b->ctaid[1] = (unsigned)(index / grid[0] % grid[1]);
    b->ctaid[2] = (unsigned)(index / ((uint64_t)grid[0] * grid[1]));
    if (ls->shared_window)
        memset(b->shared, 0, ls->shared_window);
    memset(b->barriers, 0, sizeof b->barriers);
    for (unsigned i = 0; i < BARRIERS; i++)
        b->barriers[i].all = true;
    for (unsigned i = 0; i < b->n_warps; i++) {
        if (!warp_start(&b->warps[i], b, i)) {
            launch_fault(&b->warps[i], -1, NULL, CUDA_ERROR_OUT_OF_MEMORY, 0,
                         "out of host memory for the block's registers");
            return false;
        }
    }
    bool ok = true;
    if (ls->uses_barriers)
        ok = run_with_barriers(b);
    else
        for (unsigned i = 0; ok && i < b->n_warps; i++) {
            enum warp_state st;
            while ((st = warp_run(&b->warps[i])) == WARP_YIELDED) /* nothing else to run */
                ;
            ok = st != WARP_FAULTED;
        }
    uint64_t block_instructions = 0;
    for (unsigned i = 0; i < b->n_warps; i++) {
        block_instructions += b->warps[i].instructions;
        flush_instructions(ls, &b->warps[i]);
    }
    compile_when_hot(ls, block_instructions, ok);
    return finish_block_timing(r, index, ok);
}

struct worker_result {
    uint64_t warp_instructions;
    uint64_t compiled_instructions;
};

struct worker {
    pthread_t thread;
    struct launch_state *ls;
    struct worker_result result;
};

static void run_blocks(struct worker *wk)
{
    struct launch_state *ls = wk->ls;
    struct runner r;
    if (!runner_init(&r, ls)) {
        runner_free(&r);
        pthread_mutex_lock(&ls->fault_lock);
        if (ls->fault.code == CUDA_SUCCESS) {
            ls->fault.code = CUDA_ERROR_OUT_OF_MEMORY;
            snprintf(ls->fault.message, sizeof ls->fault.message,
                     "out of host memory for the blocks' shared and local memory");
        }
        atomic_store(&ls->stop, true);
        pthread_mutex_unlock(&ls->fault_lock);
        return;
    }
    while (!atomic_load(&ls->stop)) {
        uint64_t index = atomic_fetch_add(&ls->next_block, 1);
        if (index >= ls->total_blocks || !run_block(&r, index))
            break;
        for (unsigned i = 0; i < r.block.n_warps; i++) {
            wk->result.warp_instructions += r.block.warps[i].instructions;
            wk->result.compiled_instructions += r.block.warps[i].compiled;
            r.block.warps[i].instructions = 0;
            r.block.warps[i].compiled = 0;
        }
    }
    runner_free(&r);
}

/* Runs blocks until none are left; the floating-point environment is the
 * default one meanwhile (round to nearest, no flush to zero), whatever the
 * calling program set, so that results never depend on the host program. */
static void *worker_main(void *arg)
{
    fenv_t saved;
    fegetenv(&saved);
    fesetenv(FE_DFL_ENV);
    run_blocks(arg);
    fesetenv(&saved);
    return NULL;
}

/* ------------------------------------------------------------- the launch */

static uint64_t env_u64(const char *name, uint64_t fallback)
{
    const char *v = getenv(name);
    char *end;
    if (!v || !*v)
        return fallback;
    unsigned long long n = strtoull(v, &end, 10);
    return *end == '\0' && n > 0 ? n : fallback;
}

int emu_host_threads(void)
{
    uint64_t n = env_u64("KGEMU_THREADS", (uint64_t)sysconf(_SC_NPROCESSORS_ONLN));
    return n < 1 ? 1 : n > MAX_HOST_THREADS ? MAX_HOST_THREADS : (int)n;
}

static int host_threads(const struct emu_launch *cfg, uint64_t blocks)
{
    long n = cfg->host_threads > 0 ? cfg->host_threads : emu_host_threads();
    if (n > MAX_HOST_THREADS)
        n = MAX_HOST_THREADS;
    return (int)((uint64_t)n < blocks ? (uint64_t)n : blocks);
}

static CUresult refuse(struct emu_launch_result *result, CUresult code, const char *message)
{
    result->fault.code = code;
    snprintf(result->fault.message, sizeof result->fault.message, "%s", message);
    return code;
}

static CUresult check_config(const struct emu_launch *cfg, struct emu_launch_result *result)
{
    const struct emu_device_model *d = cfg->device;
    uint64_t threads = (uint64_t)cfg->block[0] * cfg->block[1] * cfg->block[2];
    const struct emu_function_info *info = &cfg->function->info;
    unsigned max_threads = info->max_threads_per_block > 0 ? (unsigned)info->max_threads_per_block
                                                           : (unsigned)d->max_threads_per_block;
    for (int k = 0; k < 3; k++) {
        if (cfg->block[k] == 0 || cfg->grid[k] == 0)
            return refuse(result, CUDA_ERROR_INVALID_VALUE, "a grid or block dimension is 0");
        if (cfg->block[k] > (unsigned)d->max_block_dim[k] ||
            cfg->grid[k] > (unsigned)d->max_grid_dim[k])
            return refuse(result, CUDA_ERROR_INVALID_VALUE,
                          "a grid or block dimension is over the device's limit");
    }
    if (threads > max_threads)
        return refuse(result, CUDA_ERROR_INVALID_VALUE, "too many threads per block");
    if ((uint64_t)info->static_shared_bytes + cfg->dynamic_shared_bytes > d->shared_per_block_optin)
        return refuse(result, CUDA_ERROR_INVALID_VALUE,
                      "more shared memory per block than the device has");
    return CUDA_SUCCESS;
}

static void init_state(struct launch_state *ls, const struct emu_launch *cfg, enum emu_tier tier)
{
    memset(ls, 0, sizeof *ls);
    ls->cfg = cfg;
    ls->function = cfg->function;
    ls->module = cfg->function->module;
    ls->threads_per_block = cfg->block[0] * cfg->block[1] * cfg->block[2];
    ls->warps_per_block = (ls->threads_per_block + WARP_SIZE - 1) / WARP_SIZE;
    const struct emu_function_info *info = &cfg->function->info;
    ls->shared_bytes = info->static_shared_bytes + cfg->dynamic_shared_bytes;
    ls->shared_window = cfg->dynamic_shared_bytes
                            ? info->dynamic_shared_offset + cfg->dynamic_shared_bytes
                            : info->static_shared_bytes;
    bool calls = false;
    for (int i = 0; i < ls->module->ptx->n_functions; i++) {
        calls |= ls->module->ptx->functions[i].calls;
        ls->uses_barriers |= ls->module->ptx->functions[i].uses_barrier;
    }
    uint64_t local = ls->function->ptx->local_bytes + (calls ? cfg->stack_bytes_per_thread : 0);
    ls->local_per_lane = (uint32_t)((local + 15) & ~15ull);
    bool jit = tier == EMU_TIER_JIT;
    atomic_init(&ls->jit, jit ? jit_kernel_with_calls(ls->module->ptx, ls->function->ptx,
                                                      jit_compile_after(ls->function->ptx) == 0)
                              : NULL);
    atomic_init(&ls->jit_tried, !jit);
    ls->total_blocks = (uint64_t)cfg->grid[0] * cfg->grid[1] * cfg->grid[2];
    ls->compile_after = compile_after(ls);
    atomic_init(&ls->next_block, 0);
    atomic_init(&ls->instructions, 0);
    atomic_init(&ls->stop, false);
    ls->instruction_budget = cfg->instruction_budget
                                 ? cfg->instruction_budget
                                 : env_u64("KGEMU_INSTRUCTION_BUDGET", DEFAULT_INSTRUCTION_BUDGET);
    ls->seconds_budget =
        cfg->seconds_budget > 0
            ? cfg->seconds_budget
            : (double)env_u64("KGEMU_SECONDS_BUDGET", (uint64_t)DEFAULT_SECONDS_BUDGET);
    pthread_mutex_init(&ls->fault_lock, NULL);
    printf_buffer_init(&ls->printf, cfg->printf_bytes);
}

CUresult launch_execute(const struct emu_launch *cfg, enum emu_tier tier,
                        struct emu_launch_result *result, struct printf_buffer *printf_out)
{
    memset(result, 0, sizeof *result);
    CUresult r = check_config(cfg, result);
    if (r != CUDA_SUCCESS)
        return r;
    struct launch_state *ls = malloc(sizeof *ls);
    if (!ls)
        return refuse(result, CUDA_ERROR_OUT_OF_MEMORY, "out of host memory");
    init_state(ls, cfg, tier);
    if (!timing_launch_init(&ls->timing, cfg, ls->threads_per_block, ls->shared_bytes)) {
        timing_launch_free(&ls->timing);
        printf_buffer_free(&ls->printf);
        pthread_mutex_destroy(&ls->fault_lock);
        free(ls);
        return refuse(result, CUDA_ERROR_OUT_OF_MEMORY, "out of host memory for the timing model");
    }
    ls->start_seconds = now_seconds();
    int n = host_threads(cfg, ls->total_blocks);
    struct worker *workers = calloc((size_t)n, sizeof *workers);
    if (!workers) {
        free(ls);
        return refuse(result, CUDA_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    for (int i = 0; i < n; i++)
        workers[i].ls = ls;
    int started = 1;
    for (int i = 1; i < n; i++, started++)
        if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) != 0)
            break;
    worker_main(&workers[0]);
    for (int i = 1; i < started; i++)
        pthread_join(workers[i].thread, NULL);
    for (int i = 0; i < n; i++) {
        result->warp_instructions += workers[i].result.warp_instructions;
        result->counters.compiled_instructions += workers[i].result.compiled_instructions;
    }
    double host_ms = (now_seconds() - ls->start_seconds) * 1e3;
    uint64_t compiled = result->counters.compiled_instructions;
    double modeled_ms = timing_finish(&ls->timing, &result->counters);
    result->counters.compiled_instructions = compiled;
    result->counters.interpreted_instructions = result->warp_instructions - compiled;
    result->elapsed_ms = ls->timing.enabled ? modeled_ms : host_ms;
    result->fault = ls->fault;
    timing_launch_free(&ls->timing);
    if (printf_out)
        printf_buffer_take(printf_out, &ls->printf);
    else
        printf_buffer_flush(&ls->printf);
    printf_buffer_free(&ls->printf);
    pthread_mutex_destroy(&ls->fault_lock);
    free(workers);
    free(ls);
    return CUDA_SUCCESS;
}

CUresult emu_launch_run(const struct emu_launch *cfg, struct emu_launch_result *result)
{
    enum emu_tier tier = emu_tier();
    if (tier == EMU_TIER_COMPARE)
        return tier_compare_run(cfg, result);
    return launch_execute(cfg, tier, result, NULL);
}
