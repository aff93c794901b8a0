/*
 * KGEMU_TIER=compare: differential testing of the compiled tier against the
 * interpreter, which is the oracle (JIT.md).
 *
 * Each launch runs twice from the same state: first in the interpreter,
 * then in the compiled tier. Before the first run every allocation of the
 * context's device memory (module variables, CUDA arrays and the
 * device-side malloc heap included) is copied, with the heap's table of
 * blocks; after it, the interpreter's memory is copied and the first copy
 * put back. After the second run everything a program can observe must be
 * the same bit for bit: the bytes of every allocation, the heap's blocks,
 * the fault (every field of struct kgemu_fault), the timing model's
 * counters (every field of struct kgemu_counters, the modeled time
 * included, doubles compared as bits), the warp instructions, and the
 * printf output (captured from both runs and written once). A difference
 * is a bug of the compiled tier: the process aborts with a message naming
 * the kernel and the first difference, so a test under compare mode fails
 * loudly.
 *
 * Both runs use one host thread: blocks that race (float atomics from many
 * blocks, a block reading what another writes) give results that depend on
 * how host threads interleave, a difference of the schedule and not of the
 * tiers. The compiled run compiles the kernel before it starts (unless
 * KGEMU_JIT_AFTER says when), so that it runs all it can in native code; a
 * kernel of which nothing compiles runs once, in the interpreter: both runs
 * would be the same code. The counts of compiled and interpreted
 * instructions are the one thing that differs by design.
 *
 * The cost: two runs on one thread and two copies of device memory per
 * launch. It is for tests, never for grading.
 */
#include "exec.h"
#include "jit.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WHAT_MAX 2048 /* the description of a difference */

/* ------------------------------------------------------- fields compared */

enum field_kind { FIELD_INT, FIELD_UINT, FIELD_U64, FIELD_DOUBLE, FIELD_TEXT };

struct field {
    const char *name;
    size_t offset, size;
    enum field_kind kind;
};

#define FIELD(type, member, kind)                                                                  \
    {                                                                                              \
#member, offsetof(type, member), sizeof(((type *)0)->member), kind                         \
    }
#define FAULT(member, kind)   FIELD(struct kgemu_fault, member, kind)
#define COUNTER(member, kind) FIELD(struct kgemu_counters, member, kind)

static const struct field fault_fields[] = {
    FAULT(code, FIELD_INT),
    FAULT(message, FIELD_TEXT),
    FAULT(kernel, FIELD_TEXT),
    FAULT(block[0], FIELD_UINT),
    FAULT(block[1], FIELD_UINT),
    FAULT(block[2], FIELD_UINT),
    FAULT(thread[0], FIELD_UINT),
    FAULT(thread[1], FIELD_UINT),
    FAULT(thread[2], FIELD_UINT),
    FAULT(has_thread, FIELD_INT),
    FAULT(address, FIELD_U64),
    FAULT(ptx_line, FIELD_INT),
    FAULT(over_time_budget, FIELD_INT),
    FAULT(source_line, FIELD_INT),
    FAULT(access_bytes, FIELD_UINT),
    FAULT(access_write, FIELD_INT),
    FAULT(bound_at_stop_ms, FIELD_DOUBLE),
    FAULT(buffer, FIELD_U64),
};

/* The warp_instructions classes are fp32, fp64, int, sfu, memory, control, tensor. */
static const struct field counter_fields[] = {
    COUNTER(modeled_ms, FIELD_DOUBLE),
    COUNTER(issue_ms, FIELD_DOUBLE),
    COUNTER(lsu_ms, FIELD_DOUBLE),
    COUNTER(shared_ms, FIELD_DOUBLE),
    COUNTER(latency_ms, FIELD_DOUBLE),
    COUNTER(l2_ms, FIELD_DOUBLE),
    COUNTER(dram_ms, FIELD_DOUBLE),
    COUNTER(atomic_ms, FIELD_DOUBLE),
    COUNTER(overhead_ms, FIELD_DOUBLE),
    COUNTER(limiter, FIELD_TEXT),
    COUNTER(warp_instructions[0], FIELD_U64),
    COUNTER(warp_instructions[1], FIELD_U64),
    COUNTER(warp_instructions[2], FIELD_U64),
    COUNTER(warp_instructions[3], FIELD_U64),
    COUNTER(warp_instructions[4], FIELD_U64),
    COUNTER(warp_instructions[5], FIELD_U64),
    COUNTER(warp_instructions[6], FIELD_U64),
    COUNTER(global_requests, FIELD_U64),
    COUNTER(global_sectors, FIELD_U64),
    COUNTER(dram_read_bytes, FIELD_U64),
    COUNTER(dram_write_bytes, FIELD_U64),
    COUNTER(shared_requests, FIELD_U64),
    COUNTER(shared_wavefronts, FIELD_U64),
    COUNTER(global_atomics, FIELD_U64),
    COUNTER(max_same_address_atomics, FIELD_U64),
    COUNTER(blocks_per_sm, FIELD_INT),
    COUNTER(registers_per_thread, FIELD_INT),
    COUNTER(registers_exact, FIELD_INT),
    COUNTER(worst_bank_conflict_ways, FIELD_UINT),
    COUNTER(worst_bank_conflict_line, FIELD_INT),
    COUNTER(worst_sectors_per_request, FIELD_UINT),
    COUNTER(worst_sectors_line, FIELD_INT),
    COUNTER(lines_are_source, FIELD_INT),
    COUNTER(blocks_total, FIELD_U64),
    COUNTER(blocks_complete, FIELD_U64),
    COUNTER(l1_hit_sectors, FIELD_U64),
    /* not compiled_instructions and interpreted_instructions: how each tier
     * ran the instructions, which differs by design */
};

/* A field added to either struct must be added to its table (or said why
 * not, as the instruction counts above): these sizes are their sizes with
 * the fields the tables know. */
_Static_assert(sizeof(struct kgemu_fault) == 720, "a new field of kgemu_fault: compare it");
_Static_assert(sizeof(struct kgemu_counters) == 280, "a new field of kgemu_counters: compare it");

/* A runaway kernel's fault says how long it ran ("(N warp instructions,
 * 3 s)", launch_check_budget): that figure is how fast a tier is, not what
 * the kernel did, so it is left out of the comparison. */
static bool messages_agree(const char *a, const char *b)
{
    static const char mark[] = " warp instructions, ";
    const char *ma = strstr(a, mark), *mb = strstr(b, mark);
    if (!ma || !mb || ma - a != mb - b || strncmp(a, b, (size_t)(ma - a)) != 0)
        return strcmp(a, b) == 0;
    ma += strlen(mark);
    mb += strlen(mark);
    return strcmp(ma + strspn(ma, "0123456789"), mb + strspn(mb, "0123456789")) == 0;
}

static bool field_agrees(const struct field *f, const void *a, const void *b)
{
    const char *pa = (const char *)a + f->offset, *pb = (const char *)b + f->offset;
    if (f->kind == FIELD_TEXT)
        return messages_agree(pa, pb); /* NUL-terminated within the field */
    return memcmp(pa, pb, f->size) == 0;
}

static int field_format(const struct field *f, const void *record, char *out, size_t size)
{
    const char *p = (const char *)record + f->offset;
    int i;
    unsigned u;
    uint64_t v;
    double d;
    switch (f->kind) {
    case FIELD_INT:
        memcpy(&i, p, sizeof i);
        return snprintf(out, size, "%d", i);
    case FIELD_UINT:
        memcpy(&u, p, sizeof u);
        return snprintf(out, size, "%u", u);
    case FIELD_U64:
        memcpy(&v, p, sizeof v);
        return snprintf(out, size, "%" PRIu64, v);
    case FIELD_DOUBLE:
        memcpy(&d, p, sizeof d);
        memcpy(&v, p, sizeof v);
        return snprintf(out, size, "%.17g (bits 0x%016" PRIx64 ")", d, v);
    case FIELD_TEXT:
        return snprintf(out, size, "\"%.*s\"", (int)f->size, p);
    }
    return 0;
}

/* The first field of `fields` where the records differ, said in `what`. */
static bool records_agree(const char *record_name, const struct field *fields, size_t n,
                          const void *interp, const void *compiled, char *what, size_t size)
{
    for (size_t i = 0; i < n; i++) {
        if (field_agrees(&fields[i], interp, compiled))
            continue;
        char a[600], b[600];
        field_format(&fields[i], interp, a, sizeof a);
        field_format(&fields[i], compiled, b, sizeof b);
        snprintf(what, size, "%s %s: %s in the interpreter, %s in the compiled tier", record_name,
                 fields[i].name, a, b);
        return false;
    }
    return true;
}

bool tier_results_agree(const struct emu_launch_result *interp,
                        const struct emu_launch_result *compiled, char *what, size_t size)
{
    if (!records_agree("the fault's", fault_fields, sizeof fault_fields / sizeof *fault_fields,
                       &interp->fault, &compiled->fault, what, size)) {
        size_t used = strlen(what);
        snprintf(what + used, size - used,
                 " (the interpreter's fault: \"%s\"; the compiled tier's: \"%s\")",
                 interp->fault.message, compiled->fault.message);
        return false;
    }
    if (!records_agree("the counter", counter_fields,
                       sizeof counter_fields / sizeof *counter_fields, &interp->counters,
                       &compiled->counters, what, size))
        return false;
    if (interp->warp_instructions != compiled->warp_instructions) {
        snprintf(what, size,
                 "the warp instructions executed: %" PRIu64 " in the interpreter, %" PRIu64
                 " in the compiled tier",
                 interp->warp_instructions, compiled->warp_instructions);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------ the launch */

static bool printf_agrees(const struct printf_buffer *interp, const struct printf_buffer *compiled,
                          char *what, size_t size)
{
    if (interp->used == compiled->used && interp->truncated == compiled->truncated &&
        (interp->used == 0 || memcmp(interp->data, compiled->data, interp->used) == 0))
        return true;
    size_t first = 0;
    while (first < interp->used && first < compiled->used &&
           interp->data[first] == compiled->data[first])
        first++;
    snprintf(what, size,
             "the printf output: %zu bytes%s in the interpreter, %zu bytes%s in the compiled "
             "tier, first different at byte %zu (\"%.60s\" and \"%.60s\")",
             interp->used, interp->truncated ? " (truncated)" : "", compiled->used,
             compiled->truncated ? " (truncated)" : "", first,
             first < interp->used ? interp->data + first : "",
             first < compiled->used ? compiled->data + first : "");
    return false;
}

static _Noreturn void differ(const struct emu_launch *cfg, const char *what)
{
    fflush(stdout);
    fprintf(stderr,
            "kgemu: KGEMU_TIER=compare: kernel %s (grid %ux%ux%u, block %ux%ux%u): the compiled "
            "tier differs from the interpreter in %s.\n"
            "kgemu: this is a bug of the compiled tier (emulator/jit*.c): the interpreter is the "
            "oracle. KGEMU_TIER=interp runs without it.\n",
            cfg->function->ptx->name, cfg->grid[0], cfg->grid[1], cfg->grid[2], cfg->block[0],
            cfg->block[1], cfg->block[2], what);
    abort();
}

/* The compiled tier's run, from the memory of `before`, against the
 * interpreter's (its result, memory and printf output); aborts when they
 * differ. */
static void run_compiled(const struct emu_launch *one, const struct tier_image *before,
                         CUresult rc_interp, const struct emu_launch_result *interp,
                         const struct printf_buffer *out_interp)
{
    struct tier_image after_interp;
    if (!tier_image_take(&after_interp, one->memory, one->heap)) {
        fprintf(stderr,
                "kgemu: KGEMU_TIER=compare: out of host memory for a copy of device "
                "memory; kernel %s ran in the interpreter only\n",
                one->function->ptx->name);
        return;
    }
    char what[WHAT_MAX];
    if (!tier_image_put(before, one->memory, one->heap)) {
        fprintf(stderr,
                "kgemu: KGEMU_TIER=compare: kernel %s: the device memory to run it "
                "from again is gone (a bug of tier_compare.c)\n",
                one->function->ptx->name);
        abort();
    }
    struct printf_buffer out_compiled;
    printf_buffer_init(&out_compiled, one->printf_bytes);
    struct emu_launch_result compiled;
    CUresult rc_compiled = launch_execute(one, EMU_TIER_JIT, &compiled, &out_compiled);
    bool agree;
    if (rc_interp != rc_compiled) {
        snprintf(what, sizeof what,
                 "what the launch returned: %d in the interpreter, %d in the compiled tier",
                 (int)rc_interp, (int)rc_compiled);
        agree = false;
    } else {
        agree = tier_results_agree(interp, &compiled, what, sizeof what) &&
                tier_image_agrees(&after_interp, one->memory, one->heap, what, sizeof what) &&
                printf_agrees(out_interp, &out_compiled, what, sizeof what);
    }
    printf_buffer_free(&out_compiled);
    tier_image_free(&after_interp);
    if (!agree)
        differ(one, what);
}

/* Compiles the kernel now, so that the compiled tier's run is native code
 * from its start; false when nothing of it compiles (both runs would be
 * the interpreter's). With KGEMU_JIT_AFTER set, the run compiles when that
 * says instead, switching tiers in the middle of the launch, which is then
 * compared too. */
static bool worth_comparing(const struct ptx_function *fn)
{
    const char *after = getenv("KGEMU_JIT_AFTER");
    return (after && *after) || jit_kernel_find(fn, true);
}

CUresult tier_compare_run(const struct emu_launch *cfg, struct emu_launch_result *result)
{
    struct emu_launch one = *cfg;
    one.host_threads = 1;
    if (!worth_comparing(cfg->function->ptx))
        return launch_execute(&one, EMU_TIER_INTERP, result, NULL);
    struct tier_image before;
    if (!tier_image_take(&before, cfg->memory, cfg->heap)) {
        memset(result, 0, sizeof *result);
        result->fault.code = CUDA_ERROR_OUT_OF_MEMORY;
        snprintf(result->fault.message, sizeof result->fault.message,
                 "out of host memory for KGEMU_TIER=compare's copy of device memory");
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    struct printf_buffer out_interp;
    printf_buffer_init(&out_interp, cfg->printf_bytes);
    CUresult rc = launch_execute(&one, EMU_TIER_INTERP, result, &out_interp);
    run_compiled(&one, &before, rc, result, &out_interp);
    printf_buffer_flush(&out_interp);
    printf_buffer_free(&out_interp);
    tier_image_free(&before);
    return rc;
}
