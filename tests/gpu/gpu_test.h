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
 */
#ifndef KGRADE_TESTS_GPU_TEST_H
#define KGRADE_TESTS_GPU_TEST_H

#include <cuda.h>
#include <dlfcn.h>
#include <nvrtc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulator/kgemu.h"

#define GPU_TEST_ARCH          "-arch=compute_90"
#define GPU_TEST_LOG_BYTES     8192
#define GPU_TEST_MAX_OPTIONS   16 /* NVRTC options: ours and the caller's */
#define GPU_TEST_SHOW_MISMATCH 8  /* mismatching elements printed per array */

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

/* Prints the summary line; returns the exit status. */
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

/* 1 when the driver is kgrade's virtual GPU (it exports kgemu_is_virtual). */
static inline int gpu_test_is_virtual(void)
{
    return dlsym(RTLD_DEFAULT, "kgemu_is_virtual") != NULL;
}

static inline int gpu_test_summary(void)
{
    printf("%d passed, %d failed\n", gpu_test.passed, gpu_test.failed);
    return gpu_test.failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
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

/* Loads PTX text, printing the loader's error log when it fails. */
static inline CUresult gpu_test_load_ptx(CUmodule *module, const char *ptx, const char *name)
{
    char error_log[GPU_TEST_LOG_BYTES] = "";
    char info_log[GPU_TEST_LOG_BYTES] = "";
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                              CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {error_log, (void *)(uintptr_t)sizeof error_log, info_log,
                      (void *)(uintptr_t)sizeof info_log};
    CUresult rc = cuModuleLoadDataEx(module, ptx, 4, options, values);
    if (rc != CUDA_SUCCESS)
        fprintf(stderr, "cuModuleLoadDataEx(%s): %s\n%s\n", name, gpu_test_error_name(rc),
                error_log);
    return rc;
}

/* Compiles CUDA C with NVRTC and loads the PTX into the current context.
 * CUDA_ERROR_INVALID_SOURCE when NVRTC refused it. */
static inline CUresult gpu_test_load_source(CUmodule *module, const char *source, const char *name)
{
    char *ptx = gpu_test_compile(source, name);
    if (ptx == NULL)
        return CUDA_ERROR_INVALID_SOURCE;
    CUresult rc = gpu_test_load_ptx(module, ptx, name);
    free(ptx);
    return rc;
}

/* gpu_test_load_source with extra NVRTC options. */
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

/* Prints what the virtual GPU says about the last fault (kgemu_last_fault,
 * looked up as a grader would); nothing on another driver. */
static inline void gpu_test_print_fault(void)
{
    int (*fault_of)(struct kgemu_fault *);
    *(void **)&fault_of = dlsym(RTLD_DEFAULT, "kgemu_last_fault");
    struct kgemu_fault fault;
    memset(&fault, 0, sizeof fault);
    if (fault_of != NULL && fault_of(&fault) == 1)
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

#endif
