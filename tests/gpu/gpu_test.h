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
 * log when that fails.
 */
#ifndef KGRADE_TESTS_GPU_TEST_H
#define KGRADE_TESTS_GPU_TEST_H

#include <cuda.h>
#include <nvrtc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPU_TEST_ARCH      "-arch=compute_90"
#define GPU_TEST_LOG_BYTES 8192

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

/* The PTX of `source` (malloc'ed; the caller frees it), or NULL after
 * printing why. */
static inline char *gpu_test_compile(const char *source, const char *name)
{
    nvrtcProgram program;
    nvrtcResult r = nvrtcCreateProgram(&program, source, name, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS) {
        fprintf(stderr, "nvrtcCreateProgram(%s): %s\n", name, nvrtcGetErrorString(r));
        return NULL;
    }
    const char *options[] = {GPU_TEST_ARCH, "-lineinfo"};
    r = nvrtcCompileProgram(program, 2, options);
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

#endif
