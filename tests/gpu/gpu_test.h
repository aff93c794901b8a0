/*
 * A small harness for the GPU test programs (tests/gpu/test_*.c).
 *
 * Those programs are written against cuda.h and NVRTC only, the way the
 * CUDA samples are: they link with the toolkit's stub libcuda.so and run
 * with LD_LIBRARY_PATH=build/emulator, so the driver that loads is the
 * virtual GPU (and on a machine with a GPU they would run on it unchanged).
 *
 * The CHECK macros count passes and failures and print file:line, the call
 * and the CUresult's name on a failure, then carry on; gpu_test_summary()
 * prints "N passed, N failed" and gives the exit status.
 * gpu_test_load_source() compiles CUDA C with NVRTC to PTX for compute_90
 * and loads it with cuModuleLoadDataEx, printing NVRTC's or the loader's
 * log when that fails; the *_options forms add NVRTC options of the
 * caller's (--use_fast_math, -I...).
 *
 * For the programs that check what kernels compute: gpu_test_start()
 * makes a context, gpu_test_upload()/gpu_test_download() move arrays,
 * gpu_test_run() launches and waits, and CHECK_SAME() compares every
 * element of an array bit for bit against a host reference, printing the
 * first mismatches (index, got, expected) and counting one check. When a
 * launch fails, gpu_test_run() prints the virtual GPU's account of the
 * fault (kgemu_last_fault from kgemu.h, looked up with dlsym as a grader
 * does; nothing on another driver).
 *
 * Two shapes of test have their whole loop here: tables of expressions of
 * one float type, one kernel computing them all (gpu_test_table_run, for
 * test_float.c and test_double.c), and blocks of C that are both a
 * kernel's body and the host's reference (gpu_test_bodies_run, for
 * test_divergence.c and test_local.c).
 */
#ifndef KGRADE_TESTS_GPU_TEST_H
#define KGRADE_TESTS_GPU_TEST_H

#include <cuda.h>
#include <dlfcn.h>
#include <nvrtc.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emulator/kgemu.h"

#define GPU_TEST_ARCH          "-arch=compute_90"
#define GPU_TEST_LOG_BYTES     8192
#define GPU_TEST_MAX_OPTIONS   16 /* NVRTC options: ours and the caller's */
#define GPU_TEST_SHOW_MISMATCH 8  /* mismatching elements printed per array */
/* A host address, which a device pointer is on the virtual GPU: a hexadecimal
 * number, or a decimal one of 10 digits or more (above 4 GB). */
#define GPU_TEST_HOST_ADDRESS "0[xX][0-9a-fA-F]+|[0-9]{10,}"

static struct {
    int passed;
    int failed;
} gpu_test;

static inline const char *gpu_test_error_name(CUresult rc)
{
    const char *name = NULL;
    if (cuGetErrorName(rc, &name) != CUDA_SUCCESS || name == NULL)
        return "an unknown CUresult";
    return name;
}

static inline int gpu_test_pass(void)
{
    gpu_test.passed++;
    return 1;
}

static inline int gpu_test_check(int ok, const char *what, const char *file, int line)
{
    if (ok)
        return gpu_test_pass();
    gpu_test.failed++;
    fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, what);
    return 0;
}

static inline int gpu_test_cu(CUresult got, CUresult want, CUresult or_want, const char *call,
                              const char *file, int line)
{
    if (got == want || got == or_want)
        return gpu_test_pass();
    gpu_test.failed++;
    fprintf(stderr, "%s:%d: FAILED: %s returned %s (%d), expected %s", file, line, call,
            gpu_test_error_name(got), (int)got, gpu_test_error_name(want));
    if (or_want != want)
        fprintf(stderr, " or %s", gpu_test_error_name(or_want));
    fputc('\n', stderr);
    return 0;
}

static inline int gpu_test_long(long long got, long long want, const char *what, const char *file,
                                int line)
{
    if (got == want)
        return gpu_test_pass();
    gpu_test.failed++;
    fprintf(stderr, "%s:%d: FAILED: %s is %lld, expected %lld\n", file, line, what, got, want);
    return 0;
}

/* CHECK_CU(call): the call succeeds. CHECK_CU_IS(call, code): it returns
 * `code`. CHECK_CU_EITHER(call, a, b): it returns a or b. Each evaluates to
 * 1 when it passed, so a test can stop early: if (!CHECK_CU(...)) return; */
#define CHECK_CU(call)              gpu_test_cu((call), CUDA_SUCCESS, CUDA_SUCCESS, #call, __FILE__, __LINE__)
#define CHECK_CU_IS(call, code)     gpu_test_cu((call), (code), (code), #call, __FILE__, __LINE__)
#define CHECK_CU_EITHER(call, a, b) gpu_test_cu((call), (a), (b), #call, __FILE__, __LINE__)
#define CHECK(cond)                 gpu_test_check((cond) ? 1 : 0, #cond, __FILE__, __LINE__)
#define CHECK_EQ(got, want)                                                                        \
    gpu_test_long((long long)(got), (long long)(want), #got, __FILE__, __LINE__)

/* The tests' data generator (xorshift64): the same numbers on every run. */
static uint64_t gpu_test_rng_state = 0x9e3779b97f4a7c15ull;

static inline uint64_t gpu_test_rng(void)
{
    gpu_test_rng_state ^= gpu_test_rng_state << 13;
    gpu_test_rng_state ^= gpu_test_rng_state >> 7;
    gpu_test_rng_state ^= gpu_test_rng_state << 17;
    return gpu_test_rng_state;
}

/* Uniform in [lo, hi). */
static inline double gpu_test_uniform(double lo, double hi)
{
    return lo + (hi - lo) * (double)(gpu_test_rng() >> 11) / 9007199254740992.0;
}

/* The bits of a float or a double, and back: gpu_test_float_bits(f),
 * gpu_test_float_of(u), gpu_test_double_bits(d), gpu_test_double_of(u). */
#define GPU_TEST_BIT_VIEWS(T, U)                                                                   \
    static inline U gpu_test_##T##_bits(T x)                                                       \
    {                                                                                              \
        U u;                                                                                       \
        memcpy(&u, &x, sizeof u);                                                                  \
        return u;                                                                                  \
    }                                                                                              \
    static inline T gpu_test_##T##_of(U u)                                                         \
    {                                                                                              \
        T x;                                                                                       \
        memcpy(&x, &u, sizeof x);                                                                  \
        return x;                                                                                  \
    }
GPU_TEST_BIT_VIEWS(float, uint32_t)
GPU_TEST_BIT_VIEWS(double, uint64_t)

/* 1 when the driver is kgrade's virtual GPU (it exports kgemu_is_virtual). */
static inline int gpu_test_is_virtual(void)
{
    return dlsym(RTLD_DEFAULT, "kgemu_is_virtual") != NULL;
}

/* Runs `body` in a child process whose KGEMU_DEVICE is `device` (cuInit
 * picks the model once per process); one check passes when every check of
 * the child did. Must run before this process's cuInit. */
static inline void gpu_test_in_child(const char *device, void (*body)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        gpu_test.passed = gpu_test.failed = 0;
        setenv("KGEMU_DEVICE", device, 1);
        body();
        fflush(NULL);
        _exit(gpu_test.failed == 0 ? 0 : 1);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    if (!CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        fprintf(stderr, "  (the child with KGEMU_DEVICE=%s failed)\n", device);
}

/* Prints the summary line; returns the exit status. */
static inline int gpu_test_summary(void)
{
    printf("%d passed, %d failed\n", gpu_test.passed, gpu_test.failed);
    return gpu_test.failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* ------------------------------------------------------ cuGetProcAddress */

/* What cuGetProcAddress finds for `name` at CUDA `version`; one check that
 * it found it (NULL when not, with the name printed). */
static inline void *gpu_test_proc(const char *name, int version)
{
    void *p = NULL;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult rc = cuGetProcAddress(name, &p, version, CU_GET_PROC_ADDRESS_DEFAULT, &status);
    if (!CHECK(rc == CUDA_SUCCESS && status == CU_GET_PROC_ADDRESS_SUCCESS))
        fprintf(stderr, "  (cuGetProcAddress(\"%s\", %d): %s)\n", name, version,
                gpu_test_error_name(rc));
    return p;
}

/* An entry point under the name cuda.h gives it, and the function. */
struct gpu_test_entry {
    const char *name;
    void *function;
};

/* Each of `n` entries is what cuGetProcAddress finds for its name at CUDA
 * 13.0, the version cuda.h maps the name to: one check each. */
static inline void gpu_test_procs_found(const struct gpu_test_entry *entries, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!CHECK(gpu_test_proc(entries[i].name, 13000) == entries[i].function))
            fprintf(stderr, "  (%s)\n", entries[i].name);
}

static inline void gpu_test_nvrtc_log(nvrtcProgram program, const char *name)
{
    size_t size = 0;
    if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size == 0)
        return;
    char *log = malloc(size);
    if (log != NULL && nvrtcGetProgramLog(program, log) == NVRTC_SUCCESS)
        fprintf(stderr, "NVRTC log of %s:\n%s\n", name, log);
    free(log);
}

/* The NVRTC option that finds the toolkit's own headers (cuda_fp16.h,
 * cuda_bf16.h, mma.h): -I$CUDA_HOME/include, /usr/local/cuda by default. */
static inline const char *gpu_test_toolkit_include(void)
{
    static char option[4096];
    const char *home = getenv("CUDA_HOME");
    snprintf(option, sizeof option, "-I%s/include", home && *home ? home : "/usr/local/cuda");
    return option;
}

/* The PTX of `source` compiled with our options and then the `n_extra`
 * of `extra` (malloc'ed; the caller frees it), or NULL after printing why. */
static inline char *gpu_test_compile_options(const char *source, const char *name, int n_extra,
                                             const char *const *extra)
{
    const char *options[GPU_TEST_MAX_OPTIONS] = {GPU_TEST_ARCH, "-lineinfo"};
    int n_options = 2;
    if (n_extra < 0 || n_extra > GPU_TEST_MAX_OPTIONS - n_options) {
        fprintf(stderr, "gpu_test_compile_options(%s): too many options\n", name);
        return NULL;
    }
    for (int i = 0; i < n_extra; i++)
        options[n_options++] = extra[i];
    nvrtcProgram program;
    nvrtcResult r = nvrtcCreateProgram(&program, source, name, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS) {
        fprintf(stderr, "nvrtcCreateProgram(%s): %s\n", name, nvrtcGetErrorString(r));
        return NULL;
    }
    r = nvrtcCompileProgram(program, n_options, options);
    char *ptx = NULL;
    size_t size = 0;
    if (r != NVRTC_SUCCESS) {
        fprintf(stderr, "nvrtcCompileProgram(%s): %s\n", name, nvrtcGetErrorString(r));
        gpu_test_nvrtc_log(program, name);
    } else if (nvrtcGetPTXSize(program, &size) == NVRTC_SUCCESS && (ptx = malloc(size)) != NULL &&
               nvrtcGetPTX(program, ptx) != NVRTC_SUCCESS) {
        free(ptx);
        ptx = NULL;
    }
    nvrtcDestroyProgram(&program);
    return ptx;
}

/* The PTX of `source` (malloc'ed; the caller frees it), or NULL after
 * printing why. */
static inline char *gpu_test_compile(const char *source, const char *name)
{
    return gpu_test_compile_options(source, name, 0, NULL);
}

/* Loads PTX text; `error_log` (of `size` bytes) gets what the loader says. */
static inline CUresult gpu_test_load_ptx_log(CUmodule *module, const char *ptx, char *error_log,
                                             size_t size)
{
    char info_log[GPU_TEST_LOG_BYTES] = "";
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                              CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {error_log, (void *)(uintptr_t)size, info_log,
                      (void *)(uintptr_t)sizeof info_log};
    return cuModuleLoadDataEx(module, ptx, 4, options, values);
}

/* Loads PTX text, printing the loader's error log when it fails. */
static inline CUresult gpu_test_load_ptx(CUmodule *module, const char *ptx, const char *name)
{
    char error_log[GPU_TEST_LOG_BYTES] = "";
    CUresult rc = gpu_test_load_ptx_log(module, ptx, error_log, sizeof error_log);
    if (rc != CUDA_SUCCESS)
        fprintf(stderr, "cuModuleLoadDataEx(%s): %s\n%s\n", name, gpu_test_error_name(rc),
                error_log);
    return rc;
}

/* gpu_test_load_source with the `n_extra` NVRTC options of `extra`. */
static inline CUresult gpu_test_load_source_options(CUmodule *module, const char *source,
                                                    const char *name, int n_extra,
                                                    const char *const *extra)
{
    char *ptx = gpu_test_compile_options(source, name, n_extra, extra);
    if (ptx == NULL)
        return CUDA_ERROR_INVALID_SOURCE;
    CUresult rc = gpu_test_load_ptx(module, ptx, name);
    free(ptx);
    return rc;
}

/* Compiles CUDA C with NVRTC and loads the PTX into the current context.
 * CUDA_ERROR_INVALID_SOURCE when NVRTC refused it. */
static inline CUresult gpu_test_load_source(CUmodule *module, const char *source, const char *name)
{
    return gpu_test_load_source_options(module, source, name, 0, NULL);
}

/* ------------------------------------------- running and checking kernels */

/* cuInit and a new context on device 0, current; 0 after counting a failure. */
static inline int gpu_test_start(CUcontext *context)
{
    CUdevice device;
    return CHECK_CU(cuInit(0)) && CHECK_CU(cuDeviceGet(&device, 0)) &&
           CHECK_CU(cuCtxCreate(context, NULL, 0, device));
}

/* A new device buffer holding `bytes` of `host` (zeroed when `host` is
 * NULL); 0 after counting a failure. */
static inline CUdeviceptr gpu_test_upload(const void *host, size_t bytes)
{
    CUdeviceptr d = 0;
    if (!CHECK_CU(cuMemAlloc(&d, bytes)))
        return 0;
    if (host != NULL ? !CHECK_CU(cuMemcpyHtoD(d, host, bytes))
                     : !CHECK_CU(cuMemsetD8(d, 0, bytes))) {
        cuMemFree(d);
        return 0;
    }
    return d;
}

/* Copies `bytes` of `d` to `host` and frees `d`; 0 after counting a failure. */
static inline int gpu_test_download(void *host, CUdeviceptr d, size_t bytes)
{
    int ok = CHECK_CU(cuMemcpyDtoH(host, d, bytes));
    CHECK_CU(cuMemFree(d));
    return ok;
}

/* Whether a message of the virtual GPU shows no host address (DESIGN.md:
 * diagnostics name buffers and elements, never host addresses); prints the
 * message when it does. */
static inline int gpu_test_no_host_address(const char *message)
{
    regex_t address;
    if (regcomp(&address, GPU_TEST_HOST_ADDRESS, REG_EXTENDED | REG_NOSUB) != 0)
        return 0;
    int found = regexec(&address, message, 0, NULL, 0) == 0;
    regfree(&address);
    if (found)
        fprintf(stderr, "  a host address in: %s\n", message);
    return !found;
}

/* The virtual GPU's account of the last fault, or an empty message on
 * another driver. */
static inline struct kgemu_fault gpu_test_last_fault(void)
{
    int (*fault_of)(struct kgemu_fault *);
    *(void **)&fault_of = dlsym(RTLD_DEFAULT, "kgemu_last_fault");
    struct kgemu_fault fault;
    memset(&fault, 0, sizeof fault);
    if (fault_of != NULL)
        fault_of(&fault);
    return fault;
}

/* Prints what the virtual GPU says about the last fault (kgemu_last_fault,
 * looked up as a grader would); nothing on another driver. */
static inline void gpu_test_print_fault(void)
{
    struct kgemu_fault fault = gpu_test_last_fault();
    if (fault.code != 0)
        fprintf(stderr, "  the virtual GPU says: %s\n", fault.message);
}

/* Launches `f` on a grid × block (1-D when the y and z are 1) and waits. */
static inline int gpu_test_run3(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                unsigned by, unsigned bz, unsigned shared, void **args)
{
    if (CHECK_CU(cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, NULL, args, NULL)) &&
        CHECK_CU(cuCtxSynchronize()))
        return 1;
    gpu_test_print_fault();
    return 0;
}

static inline int gpu_test_run(CUfunction f, unsigned blocks, unsigned threads, void **args)
{
    return gpu_test_run3(f, blocks, 1, 1, threads, 1, 1, 0, args);
}

/* Launches on the default stream between two events and returns what they
 * measured (ms; the modeled time on the virtual GPU), or -1. */
static inline float gpu_test_timed(CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned by,
                                   unsigned shared, void **args)
{
    CUevent start, stop;
    float ms = -1;
    CHECK_CU(cuEventCreate(&start, 0));
    CHECK_CU(cuEventCreate(&stop, 0));
    CHECK_CU(cuEventRecord(start, NULL));
    CHECK_CU(cuLaunchKernel(f, gx, gy, 1, bx, by, 1, shared, NULL, args, NULL));
    CHECK_CU(cuEventRecord(stop, NULL));
    CHECK_CU(cuEventSynchronize(stop));
    CHECK_CU(cuEventElapsedTime(&ms, start, stop));
    cuEventDestroy(start);
    cuEventDestroy(stop);
    return ms;
}

static inline void gpu_test_hex(const unsigned char *p, size_t size, char *out)
{
    out += sprintf(out, "0x");
    for (size_t k = size; k-- > 0;) /* little-endian: most significant byte last */
        out += sprintf(out, "%02x", p[k]);
}

/* Every one of `n` elements of `size` bytes of `got` equals `want`, bit for
 * bit. One check; prints the first mismatches and how many there were. */
static inline int gpu_test_same(const void *got, const void *want, size_t n, size_t size,
                                const char *what, const char *file, int line)
{
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *g = (const unsigned char *)got + i * size;
        const unsigned char *w = (const unsigned char *)want + i * size;
        if (memcmp(g, w, size) == 0)
            continue;
        if (wrong++ < GPU_TEST_SHOW_MISMATCH && size <= 16) {
            char gs[40], ws[40];
            gpu_test_hex(g, size, gs);
            gpu_test_hex(w, size, ws);
            fprintf(stderr, "%s:%d: %s[%zu] is %s, expected %s\n", file, line, what, i, gs, ws);
        }
    }
    if (wrong == 0)
        return gpu_test_pass();
    gpu_test.failed++;
    fprintf(stderr, "%s:%d: FAILED: %zu of %zu elements of %s differ\n", file, line, wrong, n,
            what);
    return 0;
}

#define CHECK_SAME(got, want, n)                                                                   \
    gpu_test_same((got), (want), (n), sizeof *(got), #got, __FILE__, __LINE__)

/* ------------------------------------------------ tables of expressions */

/* A table test: one kernel computes, for each of `count` CUDA expressions
 * of x, y and z (of the element type), out[k * n + i] = expression_k(a[i],
 * b[i], c[i]) for the n inputs; `inputs` fills a, b and c (at most
 * `capacity` each) and returns n, and `check` compares every result with
 * the host's reference. GPU_TEST_TABLE() makes one from an array of
 * operations that have a member `expression`. */
#define GPU_TEST_TABLE_THREADS      128
#define GPU_TEST_TABLE_SOURCE_BYTES 65536

struct gpu_test_table {
    const char *name;              /* the kernel's */
    const char *type;              /* the element type: "float" or "double" */
    size_t size;                   /* of an element */
    const char *const *expression; /* the first of `count`, each `stride` bytes after the last */
    size_t stride;
    int count;
    int capacity;
    int (*inputs)(const struct gpu_test_table *t);
    void (*check)(const struct gpu_test_table *t, int n);
    int n_options; /* NVRTC options besides ours */
    const char *const *options;
    void *a, *b, *c; /* the inputs, while gpu_test_table_run runs */
    void *out;       /* the results, expression after expression */
};

#define GPU_TEST_TABLE(kernel, element, ops, max_inputs, fill, compare)                            \
    ((struct gpu_test_table){.name = (kernel),                                                     \
                             .type = #element,                                                     \
                             .size = sizeof(element),                                              \
                             .expression = &(ops)[0].expression,                                   \
                             .stride = sizeof(ops)[0],                                             \
                             .count = (int)(sizeof(ops) / sizeof(ops)[0]),                         \
                             .capacity = (max_inputs),                                             \
                             .inputs = (fill),                                                     \
                             .check = (compare)})

/* The table's kernel in CUDA C (malloc'ed; the caller frees it), or NULL. */
static inline char *gpu_test_table_source(const struct gpu_test_table *t)
{
    const size_t limit = GPU_TEST_TABLE_SOURCE_BYTES;
    const char *type = t->type;
    char *s = malloc(limit);
    if (s == NULL)
        return NULL;
    int used = snprintf(s, limit,
                        "extern \"C\" __global__ void %s(const %s *a, const %s *b,\n"
                        "    const %s *c, %s *out, int n)\n"
                        "{\n"
                        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                        "    if (i >= n) return;\n"
                        "    %s x = a[i], y = b[i], z = c[i];\n"
                        "    (void)x; (void)y; (void)z;\n",
                        t->name, type, type, type, type, type);
    for (int k = 0; k < t->count; k++) {
        const char *at = (const char *)t->expression + (size_t)k * t->stride;
        used += snprintf(s + used, limit - (size_t)used, "    out[(size_t)%d * n + i] = %s;\n", k,
                         *(const char *const *)at);
    }
    snprintf(s + used, limit - (size_t)used, "}\n");
    return s;
}

/* Compiles `source` and runs its kernel on the first n inputs; 0 after
 * counting a failure. */
static inline int gpu_test_table_kernel(const struct gpu_test_table *t, const char *source, int n)
{
    CUmodule module;
    CUfunction f;
    if (!CHECK_CU(gpu_test_load_source_options(&module, source, t->name, t->n_options, t->options)))
        return 0;
    int ok = CHECK_CU(cuModuleGetFunction(&f, module, t->name));
    size_t bytes = (size_t)n * t->size, out_bytes = bytes * (size_t)t->count;
    CUdeviceptr da = gpu_test_upload(t->a, bytes), db = gpu_test_upload(t->b, bytes);
    CUdeviceptr dc = gpu_test_upload(t->c, bytes), dout = gpu_test_upload(NULL, out_bytes);
    ok = ok && da && db && dc && dout;
    void *args[] = {&da, &db, &dc, &dout, &n};
    unsigned blocks = (unsigned)((n + GPU_TEST_TABLE_THREADS - 1) / GPU_TEST_TABLE_THREADS);
    ok = ok && gpu_test_run(f, blocks, GPU_TEST_TABLE_THREADS, args);
    ok = gpu_test_download(t->out, dout, out_bytes) && ok;
    cuMemFree(da);
    cuMemFree(db);
    cuMemFree(dc);
    CHECK_CU(cuModuleUnload(module));
    return ok;
}

/* Fills the first count² inputs with every pair of the `count` special
 * values `specials` (the bits of elements of the table's type) as x and
 * y, and another one as z; returns count². */
static inline int gpu_test_table_special_pairs(const struct gpu_test_table *t, const void *specials,
                                               size_t count)
{
    const unsigned char *special = specials;
    unsigned char *a = t->a, *b = t->b, *c = t->c;
    size_t n = 0, size = t->size;
    for (size_t i = 0; i < count; i++)
        for (size_t j = 0; j < count; j++, n++) {
            memcpy(a + n * size, special + i * size, size);
            memcpy(b + n * size, special + j * size, size);
            memcpy(c + n * size, special + (i * 7 + j * 3) % count * size, size);
        }
    return (int)n;
}

/* The whole table test: inputs, the kernel, the host's check. */
static inline void gpu_test_table_run(struct gpu_test_table t)
{
    size_t bytes = (size_t)t.capacity * t.size;
    t.a = malloc(bytes);
    t.b = malloc(bytes);
    t.c = malloc(bytes);
    t.out = malloc(bytes * (size_t)t.count);
    char *source = gpu_test_table_source(&t);
    if (CHECK(t.a && t.b && t.c && t.out && source)) {
        int n = t.inputs(&t);
        if (gpu_test_table_kernel(&t, source, n))
            t.check(&t, n);
    }
    free(source);
    free(t.a);
    free(t.b);
    free(t.c);
    free(t.out);
}

/* ------------------------------------ kernels whose body is host code too */

/* A body test: C that is both the body of a kernel and the body of the
 * host's reference, so the two cannot drift. It reads v = in[i] and writes
 * out[i] (and may return early). GPU_TEST_HOST_BODY(name, ...) defines the
 * reference host_NAME; GPU_TEST_BODY(name, ...) is the test's entry in a
 * table of struct gpu_test_body. */
struct gpu_test_body {
    const char *name;
    const char *body; /* the C, as text */
    void (*host)(const int *in, int *out, int i);
};

#define GPU_TEST_HOST_BODY(name, ...)                                                              \
    static void host_##name(const int *in, int *out, int i)                                        \
    {                                                                                              \
        int v = in[i];                                                                             \
        __VA_ARGS__                                                                                \
    }
#define GPU_TEST_BODY(name, ...) {#name, #__VA_ARGS__, host_##name},

#define GPU_TEST_BODY_SHOW 5 /* mismatching elements printed per test */

/* Prints the elements where `got` differs from `want`, the first few one
 * by one; one check. */
static inline void gpu_test_body_compare(const struct gpu_test_body *t, const int *in,
                                         const int *got, const int *want, int n)
{
    int wrong = 0;
    for (int i = 0; i < n; i++)
        if (got[i] != want[i] && wrong++ < GPU_TEST_BODY_SHOW)
            fprintf(stderr, "  %s: in[%d] = %d gave %d, expected %d\n", t->name, i, in[i], got[i],
                    want[i]);
    if (wrong)
        fprintf(stderr, "  %s: %d of %d wrong\n", t->name, wrong, n);
    CHECK(wrong == 0);
}

/* Runs the kernel t->name of `source` (which may be NULL: a failure) over
 * the n inputs `in`, blocks of `threads`, and compares every out[i] with
 * the host's. out starts as the same pattern on both sides, so a path that
 * writes nothing must leave it. */
static inline void gpu_test_body_run(const struct gpu_test_body *t, const char *source,
                                     const int *in, int n, unsigned threads)
{
    size_t bytes = (size_t)n * sizeof(int);
    int *out = malloc(bytes), *want = malloc(bytes);
    CUmodule module;
    CUfunction f;
    if (!CHECK(source != NULL && out != NULL && want != NULL) ||
        !CHECK_CU(gpu_test_load_source(&module, source, t->name))) {
        free(out);
        free(want);
        return;
    }
    for (int i = 0; i < n; i++)
        want[i] = out[i] = i * -3 + 17;
    for (int i = 0; i < n; i++)
        t->host(in, want, i);
    CUdeviceptr din = gpu_test_upload(in, bytes), dout = gpu_test_upload(out, bytes);
    void *args[] = {&din, &dout, &n};
    if (CHECK_CU(cuModuleGetFunction(&f, module, t->name)) &&
        gpu_test_run(f, ((unsigned)n + threads - 1) / threads, threads, args) &&
        gpu_test_download(out, dout, bytes))
        gpu_test_body_compare(t, in, out, want, n);
    cuMemFree(din);
    CHECK_CU(cuModuleUnload(module));
    free(out);
    free(want);
}

/* The kernel of body test `t` in CUDA C (malloc'ed; the caller frees it),
 * or NULL: `prelude` (what the bodies call; may be empty), then the body
 * in a kernel NAME(const int *in, int *out, int count). */
static inline char *gpu_test_body_source(const struct gpu_test_body *t, const char *prelude)
{
    size_t size = strlen(prelude) + strlen(t->body) + 512;
    char *s = malloc(size);
    if (s != NULL)
        snprintf(s, size,
                 "%s"
                 "extern \"C\" __global__ void %s(const int *in, int *out, int count)\n"
                 "{\n"
                 "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "    if (i >= count) return;\n"
                 "    int v = in[i];\n"
                 "    %s\n"
                 "}\n",
                 prelude, t->name, t->body);
    return s;
}

/* Runs each of the `count` tests over the n inputs `in`, with `prelude`
 * before each kernel (gpu_test_body_source). */
static inline void gpu_test_bodies_run(const struct gpu_test_body *tests, int count,
                                       const char *prelude, const int *in, int n, unsigned threads)
{
    for (int k = 0; k < count; k++) {
        char *source = gpu_test_body_source(&tests[k], prelude);
        gpu_test_body_run(&tests[k], source, in, n, threads);
        free(source);
    }
}

#endif
