/*
 * The compiled tier (JIT.md): finding a function's regions, compiling them
 * once with ORC LLJIT (jit_emit.c writes their IR), and the process's cache
 * of compiled functions, keyed by a hash of the decoded code.
 */
#include "jit.h"

#include "exec.h"
#include "jit_emit.h"

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/ExecutionEngine.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/OrcEE.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------ regions, cache */

/* A longer run is cut into regions of this many instructions: LLVM's time
 * grows faster than a function's size. */
#define REGION_MAX 128

/* What a launch runs in the interpreter before its kernel is compiled, per
 * instruction of the kernel: LLVM takes about a millisecond an instruction,
 * the interpreter 20 to 40 ns a warp instruction, so the compile costs about
 * what it saves by then. */
#define DEFAULT_COMPILE_AFTER_PER_INSTRUCTION 40000

/* Marks the pcs where a region must start: leaders and reconvergence points. */
static uint8_t *region_starts(const struct ptx_function *fn)
{
    uint8_t *s = calloc(fn->n_code + 1, 1);
    if (!s)
        return NULL;
    for (uint32_t pc = 0; pc < fn->n_code; pc++) {
        const struct ptx_insn *insn = &fn->code[pc];
        if (insn->flags & PTX_F_BLOCK_START)
            s[pc] = 1;
        if (insn->op == PTX_OP_BRA) {
            if (insn->target < fn->n_code)
                s[insn->target] = 1;
            if (insn->reconv < fn->n_code)
                s[insn->reconv] = 1;
            s[pc + 1] = 1;
        }
    }
    return s;
}

/* A kernel's key: the bytes its compiled code depends on (kernel_key). */
struct kernel_key {
    uint8_t *bytes;
    size_t size;
    uint64_t hash;
};

struct jit_entry {
    struct kernel_key key;
    struct jit_kernel *kernel; /* NULL: nothing compiles (a fallback) */
    bool compiling;            /* a thread compiles it now: the others wait */
    struct jit_entry *next;
};

/* Compiles run at once on the threads that ask for different kernels
 * (kgemu_compile_all), each with an LLJIT of its own from this pool: an
 * LLJIT's compiler shares one TargetMachine, which two threads cannot use
 * at once. */
#define JIT_INSTANCES_MAX 4

/* The process's compilers and cache (JIT.md "The cache"): code lives until
 * exit. The lock guards all of it but the compiles themselves. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a compile ended, or an LLJIT was handed back */
    LLVMOrcLLJITRef jits[JIT_INSTANCES_MAX];
    bool busy[JIT_INSTANCES_MAX];
    int n_jits;
    bool failed;
    struct jit_entry *entries;
    unsigned serial;
    unsigned compiled, fallbacks;
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* Appends n bytes at p to the key being built (`at` its end). */
static uint8_t *put(uint8_t *at, const void *p, size_t n)
{
    memcpy(at, p, n);
    return at + n;
}

/* Everything the compiled code depends on: the instructions and the
 * dependency rows the timing model's issue reads. Not the instructions'
 * PTX and source lines: the code never reads them (a fault's message and
 * the model's hot spots take them from the running function's own
 * instructions), so a kernel loaded again from another file, as a
 * reference and a student's copy of it, finds the same code; nor the
 * addresses of global and constant variables, which each load of a module
 * places anew (numba's kernels write their error globals): the code reads
 * them from the running function's instructions (jit_placed). The cache
 * compares whole keys, not only their hashes: a kernel crafted to collide
 * with another's 64-bit hash must not run the other's code. False when out
 * of memory. */
static bool kernel_key(const struct ptx_function *fn, struct kernel_key *key)
{
    size_t n_deps = fn->dep_start[fn->n_code];
    key->size = sizeof fn->n_code + sizeof fn->n_regs + sizeof fn->param_bytes +
                sizeof fn->call_param_bytes + sizeof fn->is_entry +
                (size_t)fn->n_code * sizeof *fn->code +
                ((size_t)fn->n_code + 1) * sizeof *fn->dep_start + n_deps * sizeof *fn->deps;
    uint8_t *at = key->bytes = malloc(key->size);
    if (!at)
        return false;
    at = put(at, &fn->n_code, sizeof fn->n_code);
    at = put(at, &fn->n_regs, sizeof fn->n_regs);
    at = put(at, &fn->param_bytes, sizeof fn->param_bytes);           /* native_param_load's test */
    at = put(at, &fn->call_param_bytes, sizeof fn->call_param_bytes); /* jit_call_param's */
    at = put(at, &fn->is_entry, sizeof fn->is_entry);
    for (uint32_t pc = 0; pc < fn->n_code; pc++) {
        struct ptx_insn insn;
        memcpy(&insn, &fn->code[pc], sizeof insn); /* with its padding, as decoded */
        insn.ptx_line = insn.src_line = 0;
        for (int k = 0; k < PTX_MAX_OPERANDS; k++)
            if (insn.o[k].var == PTX_VAR_PLACED) /* read where the code runs (jit_placed) */
                insn.o[k].imm = 0;
        at = put(at, &insn, sizeof insn);
    }
    at = put(at, fn->dep_start, ((size_t)fn->n_code + 1) * sizeof *fn->dep_start);
    put(at, fn->deps, n_deps * sizeof *fn->deps);
    key->hash = fnv(0xcbf29ce484222325ull, key->bytes, key->size);
    return true;
}

static bool same_key(const struct kernel_key *a, const struct kernel_key *b)
{
    return a->hash == b->hash && a->size == b->size && memcmp(a->bytes, b->bytes, a->size) == 0;
}

static bool report(LLVMErrorRef err, const char *what)
{
    if (!err)
        return true;
    char *msg = LLVMGetErrorMessage(err);
    if (getenv("KGEMU_JIT_STATS"))
        fprintf(stderr, "kgemu jit: %s: %s\n", what, msg);
    LLVMDisposeErrorMessage(msg);
    return false;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* KGEMU_JIT_PERF=1: the object layer tells perf where the regions' code
 * is (a jitdump file for `perf inject --jit`; record with `perf record -k 1`). */
static LLVMOrcObjectLayerRef perf_object_layer(void *unused, LLVMOrcExecutionSessionRef session,
                                               const char *triple)
{
    (void)unused;
    (void)triple;
    LLVMOrcObjectLayerRef layer =
        LLVMOrcCreateRTDyldObjectLinkingLayerWithSectionMemoryManager(session);
    LLVMJITEventListenerRef perf = LLVMCreatePerfJITEventListener();
    if (perf)
        LLVMOrcRTDyldObjectLinkingLayerRegisterJITEventListener(layer, perf);
    return layer;
}

/* The host's target at LLVM's "less" code generation level: the regions'
 * long blocks of vector operations take the default level's instruction
 * scheduler seconds, for no measurable speed. */
static LLVMOrcLLJITBuilderRef jit_builder(void)
{
    char *triple = LLVMGetDefaultTargetTriple(), *message = NULL;
    char *cpu = LLVMGetHostCPUName(), *features = LLVMGetHostCPUFeatures();
    LLVMTargetRef target;
    LLVMOrcLLJITBuilderRef builder = NULL;
    if (LLVMGetTargetFromTriple(triple, &target, &message) == 0) {
        LLVMTargetMachineRef tm =
            LLVMCreateTargetMachine(target, triple, cpu, features, LLVMCodeGenLevelLess,
                                    LLVMRelocDefault, LLVMCodeModelJITDefault);
        builder = LLVMOrcCreateLLJITBuilder();
        LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(
            builder, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
        const char *perf = getenv("KGEMU_JIT_PERF");
        if (perf && strcmp(perf, "1") == 0)
            LLVMOrcLLJITBuilderSetObjectLinkingLayerCreator(builder, perf_object_layer, NULL);
    }
    LLVMDisposeMessage(message);
    LLVMDisposeMessage(triple);
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(features);
    return builder;
}

/* An LLJIT no other thread compiles with, started if none is free and the
 * pool has room, else waited for; -1 if LLJIT cannot start. Under the lock. */
static int take_jit(void)
{
    for (;;) {
        if (cache.failed)
            return -1;
        for (int i = 0; i < cache.n_jits; i++) {
            if (!cache.busy[i]) {
                cache.busy[i] = true;
                return i;
            }
        }
        if (cache.n_jits < JIT_INSTANCES_MAX) {
            LLVMInitializeNativeTarget();
            LLVMInitializeNativeAsmPrinter();
            int i = cache.n_jits;
            cache.failed =
                !report(LLVMOrcCreateLLJIT(&cache.jits[i], jit_builder()), "starting LLJIT");
            if (!cache.failed) {
                cache.n_jits++;
                cache.busy[i] = true;
                return i;
            }
        } else {
            pthread_cond_wait(&cache.changed, &cache.lock);
        }
    }
}

/* Emits the function's regions into the module; their start pcs get a
 * region_end. Returns how many. */
static unsigned emit_regions(struct jit_emit *e, struct jit_kernel *k, const uint8_t *starts,
                             unsigned serial)
{
    const struct ptx_function *fn = e->fn;
    char name[64];
    for (uint32_t pc = 0; pc < fn->n_code;) {
        uint32_t end = pc, native = 0;
        while (end < fn->n_code && end - pc < REGION_MAX && (end == pc || !starts[end]) &&
               jit_in_region(&fn->code[end]))
            native += jit_native(&fn->code[end++], fn);
        if (end < fn->n_code && (end == pc || !starts[end]) && jit_branch(&fn->code[end])) {
            end++; /* a region may end with its branch */
            native++;
        }
        if (native == 0) { /* nothing to compile: the interpreter runs it as it is */
            pc = end > pc ? end : pc + 1;
            continue;
        }
        snprintf(name, sizeof name, "k%u_r%u", serial, pc);
        jit_emit_region(e, pc, end, name);
        k->region_end[pc] = end;
        k->n_regions++;
        pc = end;
    }
    return k->n_regions;
}

/* A kernel this long is optimized at O1, which takes LLVM half the time of
 * O2 (O2's code is about 15 % faster): its compile is what costs. */
#define LONG_KERNEL 500

/* KGEMU_JIT_PASSES overrides the pipeline (for measuring). */
static const char *optimization_passes(const struct ptx_function *fn)
{
    const char *passes = getenv("KGEMU_JIT_PASSES");
    if (passes && *passes)
        return passes;
    return fn->n_code > LONG_KERNEL ? "default<O1>" : "default<O2>";
}

/* Optimizes the module and hands it to LLJIT (which takes it and its context). */
static bool add_module(LLVMOrcLLJITRef jit, const struct ptx_function *fn, LLVMModuleRef mod,
                       LLVMOrcThreadSafeContextRef tsc)
{
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    bool ok = report(LLVMRunPasses(mod, optimization_passes(fn), NULL, opts), "optimizing");
    LLVMDisposePassBuilderOptions(opts);
    if (!ok) {
        LLVMDisposeModule(mod);
        return false;
    }
    const char *dump = getenv("KGEMU_JIT_DUMP"); /* the optimized IR, for reading */
    if (dump && *dump)
        LLVMPrintModuleToFile(mod, dump, NULL);
    LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(mod, tsc);
    ok = report(LLVMOrcLLJITAddLLVMIRModule(jit, LLVMOrcLLJITGetMainJITDylib(jit), tsm),
                "adding the module");
    if (!ok)
        LLVMOrcDisposeThreadSafeModule(tsm);
    return ok;
}

static bool look_up_regions(LLVMOrcLLJITRef jit, struct jit_kernel *k, unsigned serial)
{
    char name[64];
    for (uint32_t pc = 0; pc < k->n_code; pc++) {
        if (!k->region_end[pc])
            continue;
        LLVMOrcExecutorAddress address = 0;
        snprintf(name, sizeof name, "k%u_r%u", serial, pc);
        if (!report(LLVMOrcLLJITLookup(jit, &address, name), "looking up a region"))
            return false;
        k->region[pc] = (jit_region_fn)(uintptr_t)address;
    }
    return true;
}

static void kernel_free(struct jit_kernel *k)
{
    if (k) {
        free(k->region);
        free(k->region_end);
        free(k);
    }
}

/* For KGEMU_JIT_STATS: the instructions inside regions that the compiled
 * code hands to the interpreter, by operation and PTX line. */
static void print_interpreted(const struct jit_kernel *k, const struct ptx_function *fn)
{
    for (uint32_t pc = 0; pc < fn->n_code; pc++) {
        if (!k->region_end[pc])
            continue;
        for (uint32_t i = pc; i < k->region_end[pc]; i++) {
            const struct ptx_insn *insn = &fn->code[i];
            if (!jit_native(insn, fn) && !jit_branch(insn))
                fprintf(stderr, "kgemu jit:   interpreted: %s at PTX line %u\n",
                        ptx_op_name((enum ptx_op)insn->op), insn->ptx_line);
        }
    }
}

/* Compiles fn with `jit`, its regions named after `serial`; NULL if it
 * cannot. Outside the lock: other threads compile other kernels meanwhile. */
static struct jit_kernel *compile_kernel(LLVMOrcLLJITRef jit, const struct ptx_function *fn,
                                         unsigned serial)
{
    double t0 = now_seconds();
    uint8_t *starts = region_starts(fn);
    struct jit_kernel *k = calloc(1, sizeof *k);
    if (k) {
        k->n_code = fn->n_code;
        k->region = calloc(fn->n_code + 1, sizeof *k->region);
        k->region_end = calloc(fn->n_code + 1, sizeof *k->region_end);
    }
    if (!starts || !k || !k->region || !k->region_end) {
        free(starts);
        kernel_free(k);
        return NULL;
    }
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    LLVMContextRef ctx = LLVMOrcThreadSafeContextGetContext(tsc);
    LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("kgemu", ctx);
    LLVMSetDataLayout(mod, LLVMOrcLLJITGetDataLayoutStr(jit));
    LLVMSetTarget(mod, LLVMOrcLLJITGetTripleString(jit));
    struct jit_emit e;
    jit_emit_init(&e, ctx, mod, fn);
    bool ok = emit_regions(&e, k, starts, serial) > 0;
    jit_emit_done(&e);
    free(starts);
    if (ok)
        ok = add_module(jit, fn, mod, tsc) && look_up_regions(jit, k, serial);
    else
        LLVMDisposeModule(mod);
    LLVMOrcDisposeThreadSafeContext(tsc);
    if (!ok) {
        kernel_free(k);
        return NULL;
    }
    k->compile_seconds = now_seconds() - t0;
    if (getenv("KGEMU_JIT_STATS")) {
        fprintf(stderr, "kgemu jit: %s: %u regions of its %u instructions compiled in %.1f ms\n",
                fn->name, k->n_regions, fn->n_code, k->compile_seconds * 1e3);
        print_interpreted(k, fn);
    }
    return k;
}

/* Finds or compiles the functions fn calls directly, `depth` calls down, and
 * publishes their code (a recursive function is met with its code already
 * there). */
static void link_calls(const struct ptx_module *pm, const struct ptx_function *fn, bool compile,
                       int depth)
{
    if (!fn->calls || depth >= CALL_DEPTH_MAX)
        return;
    for (uint32_t pc = 0; pc < fn->n_code; pc++) {
        const struct ptx_insn *insn = &fn->code[pc];
        if (insn->op != PTX_OP_CALL || (insn->flags & PTX_F_INDIRECT))
            continue;
        struct ptx_function *callee = (struct ptx_function *)&pm->functions[insn->target];
        if (callee->n_code == 0 || atomic_load_explicit(&callee->jit, memory_order_acquire))
            continue;
        const struct jit_kernel *k = jit_kernel_find(callee, compile);
        if (!k)
            continue;
        atomic_store_explicit(&callee->jit, k, memory_order_release);
        link_calls(pm, callee, compile, depth + 1);
    }
}

const struct jit_kernel *jit_kernel_with_calls(const struct ptx_module *pm,
                                               const struct ptx_function *fn, bool compile)
{
    const struct jit_kernel *k = jit_kernel_find(fn, compile);
    if (k)
        link_calls(pm, fn, compile, 0);
    return k;
}

uint64_t jit_compile_after(const struct ptx_function *fn)
{
    static _Atomic int64_t after = -1; /* KGEMU_JIT_AFTER, read once; -2: not set */
    int64_t n = atomic_load_explicit(&after, memory_order_relaxed);
    if (n == -1) {
        const char *v = getenv("KGEMU_JIT_AFTER");
        char *end;
        unsigned long long parsed = v && *v ? strtoull(v, &end, 10) : 0;
        n = v && *v && *end == '\0' ? (int64_t)parsed : -2;
        atomic_store_explicit(&after, n, memory_order_relaxed);
    }
    return n >= 0 ? (uint64_t)n : (uint64_t)fn->n_code * DEFAULT_COMPILE_AFTER_PER_INSTRUCTION;
}

/* Adds fn's entry, compiles it with the lock released and publishes it;
 * the entry, or NULL when out of memory or LLJIT cannot start. Takes the
 * key's bytes (`key->bytes` becomes NULL). Under the lock. */
static struct jit_entry *compile_entry(const struct ptx_function *fn, struct kernel_key *key)
{
    int slot = take_jit();
    struct jit_entry *e = slot >= 0 ? calloc(1, sizeof *e) : NULL;
    if (!e) {
        if (slot >= 0)
            cache.busy[slot] = false;
        return NULL;
    }
    e->key = *key;
    key->bytes = NULL; /* the entry keeps it */
    e->compiling = true;
    e->next = cache.entries;
    cache.entries = e;
    unsigned serial = cache.serial++;
    pthread_mutex_unlock(&cache.lock);
    struct jit_kernel *k = compile_kernel(cache.jits[slot], fn, serial);
    pthread_mutex_lock(&cache.lock);
    e->kernel = k;
    e->compiling = false;
    cache.busy[slot] = false;
    if (k)
        cache.compiled++;
    else
        cache.fallbacks++;
    if (getenv("KGEMU_JIT_STATS"))
        fprintf(stderr, "kgemu jit: %u kernels compiled, %u fell back to the interpreter\n",
                cache.compiled, cache.fallbacks);
    pthread_cond_broadcast(&cache.changed);
    return e;
}

const struct jit_kernel *jit_kernel_find(const struct ptx_function *fn, bool compile)
{
    struct kernel_key key;
    if (!kernel_key(fn, &key))
        return NULL; /* out of memory: the interpreter runs it */
    pthread_mutex_lock(&cache.lock);
    struct jit_entry *e = cache.entries;
    while (e && !same_key(&e->key, &key))
        e = e->next;
    if (!e && compile)
        e = compile_entry(fn, &key);
    while (e && e->compiling) /* another thread compiles the same code */
        pthread_cond_wait(&cache.changed, &cache.lock);
    const struct jit_kernel *k = e ? e->kernel : NULL;
    pthread_mutex_unlock(&cache.lock);
    free(key.bytes);
    return k;
}
