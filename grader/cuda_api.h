/*
 * Internal to grader/: the CUDA driver, loaded at run time.
 *
 * The grader is written once against the driver API of cuda.h and never
 * links libcuda: it dlopens a driver and looks its entry points up by the
 * versioned names cuda.h maps them to (cuMemAlloc is cuMemAlloc_v2; a bare
 * dlsym("cuMemAlloc") on a real driver would return the legacy entry point
 * with 32-bit sizes). The driver is the system's libcuda.so.1 when it works
 * and has a device (or the one GRADER_CUDA_DRIVER names by its path),
 * otherwise kgrade's virtual GPU, found beside the kgrade binary (never
 * through the current directory). With the virtual GPU the kgemu.h
 * extensions are looked up too.
 */
#ifndef KGRADE_GRADER_CUDA_API_H
#define KGRADE_GRADER_CUDA_API_H

#include <cuda.h>
#include <stdbool.h>
#include <stddef.h>

#include "emulator/kgemu.h"

/* The driver functions the grader calls. */
#define CUDA_API_FUNCTIONS(X)                                                                      \
    X(cuInit)                                                                                      \
    X(cuDriverGetVersion)                                                                          \
    X(cuDeviceGetCount)                                                                            \
    X(cuDeviceGet)                                                                                 \
    X(cuDeviceGetName)                                                                             \
    X(cuDeviceGetAttribute)                                                                        \
    X(cuDeviceTotalMem)                                                                            \
    X(cuCtxCreate)                                                                                 \
    X(cuCtxDestroy)                                                                                \
    X(cuCtxSynchronize)                                                                            \
    X(cuCtxSetLimit)                                                                               \
    X(cuCtxResetPersistingL2Cache)                                                                 \
    X(cuModuleLoadDataEx)                                                                          \
    X(cuModuleUnload)                                                                              \
    X(cuModuleGetFunction)                                                                         \
    X(cuFuncSetAttribute)                                                                          \
    X(cuFuncGetParamInfo)                                                                          \
    X(cuLaunchKernel)                                                                              \
    X(cuMemAlloc)                                                                                  \
    X(cuMemFree)                                                                                   \
    X(cuMemcpyHtoD)                                                                                \
    X(cuMemcpyDtoH)                                                                                \
    X(cuMemcpyDtoD)                                                                                \
    X(cuMemsetD8)                                                                                  \
    X(cuEventCreate)                                                                               \
    X(cuEventRecord)                                                                               \
    X(cuEventSynchronize)                                                                          \
    X(cuEventQuery)                                                                                \
    X(cuEventElapsedTime)                                                                          \
    X(cuEventDestroy)                                                                              \
    X(cuGetErrorName)                                                                              \
    X(cuGetErrorString)

enum cuda_device_choice {
    CUDA_DEVICE_AUTO,     /* a real GPU when there is one, else the virtual GPU */
    CUDA_DEVICE_REAL,     /* a real GPU, or an error */
    CUDA_DEVICE_EMULATOR, /* the virtual GPU */
};

struct cuda_api {
    void *library; /* the dlopen handle */
    bool emulated; /* the virtual GPU */
    /* A real GPU's kernel outlived its deadline (it cannot be stopped but
     * by ending the process): no driver call may wait on the device any
     * more, so none is made; the memory goes back when the process ends. */
    bool stuck;
    double stuck_after_ms; /* how long it had run when it was left */
    char device_name[256];
    int cc_major, cc_minor;
    int driver_version; /* e.g. 13000 */
#define CUDA_API_MEMBER(function) __typeof__(&function) function;
    CUDA_API_FUNCTIONS(CUDA_API_MEMBER)
#undef CUDA_API_MEMBER
    /* kgemu.h, present only on the virtual GPU */
    int (*kgemu_last_fault)(struct kgemu_fault *fault);
    int (*kgemu_last_counters)(struct kgemu_counters *counters);
    int (*kgemu_set_registers)(void *function, int registers);
    int (*kgemu_compile_all)(void *const *functions, int count);
    int (*kgemu_set_time_budget)(double milliseconds);
    int (*kgemu_guard)(unsigned long long base, unsigned long long head, unsigned long long tail);
    /* the served sessions of the host form (grader/host_form.h) */
    __typeof__(&kgemu_serve_start) kgemu_serve_start;
    __typeof__(&kgemu_served_stats) kgemu_served_stats;
    __typeof__(&kgemu_served_copies) kgemu_served_copies;
    __typeof__(&kgemu_served_settle) kgemu_served_settle;
    __typeof__(&kgemu_serve_stop) kgemu_serve_stop;
    __typeof__(&kgemu_hash) kgemu_hash;
    __typeof__(&kgemu_served_uploaded_bytes) kgemu_served_uploaded_bytes;
    __typeof__(&kgemu_served_fault) kgemu_served_fault; /* may be NULL: no details */
};

/* Loads a driver as `choice` says and initializes it (cuInit, a device).
 * `emulator` is the path of the virtual GPU's libcuda.so.1 (see
 * cuda_api_emulator_path). On failure writes a sentence saying what is
 * missing and what to do, and returns false. */
bool cuda_api_load(struct cuda_api *api, enum cuda_device_choice choice, const char *emulator,
                   char *error, size_t error_size);
void cuda_api_unload(struct cuda_api *api);

/* The virtual GPU beside the running binary: <dir of /proc/self/exe>/emulator/libcuda.so.1.
 * False when the binary's path cannot be read. */
bool cuda_api_emulator_path(char *path, size_t size);

/* "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered". */
void cuda_api_describe(const struct cuda_api *api, CUresult result, char *text, size_t size);

#endif
