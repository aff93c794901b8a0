/*
 * Loading a CUDA driver at run time (see cuda_api.h).
 *
 * A real driver is tried first (for auto and real): dlopen("libcuda.so.1")
 * finds the system's, or KGRADE_CUDA_DRIVER names it by its path (how a
 * sandboxed job gets the driver its parent found, CUDA's forward-compatible
 * one through LD_LIBRARY_PATH included, since the job's environment has no
 * LD_LIBRARY_PATH). It counts only if cuInit succeeds, a device exists,
 * and it is not kgrade's own virtual GPU (which a LD_LIBRARY_PATH could put
 * first). The virtual GPU is then loaded by its absolute path.
 */
#include "cuda_api.h"
#include "grader.h"

#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SYSTEM_DRIVER          "libcuda.so.1"
#define EMULATOR_BESIDE_BINARY "emulator/libcuda.so.1"
#define STRINGIFY(x)           #x
#define VERSIONED_NAME(f)      STRINGIFY(f) /* cuMemAlloc → "cuMemAlloc_v2" through cuda.h */

static bool look_up(struct cuda_api *api, char *error, size_t size)
{
#define CUDA_API_LOOK_UP(function)                                                                 \
    api->function = (__typeof__(&function))dlsym(api->library, VERSIONED_NAME(function));          \
    if (!api->function) {                                                                          \
        snprintf(error, size,                                                                      \
                 "the CUDA driver has no %s: kgrade needs a driver for CUDA 12.4 or later "        \
                 "(update the NVIDIA driver)",                                                     \
                 VERSIONED_NAME(function));                                                        \
        return false;                                                                              \
    }
    CUDA_API_FUNCTIONS(CUDA_API_LOOK_UP)
#undef CUDA_API_LOOK_UP
    api->kgemu_last_fault = (int (*)(struct kgemu_fault *))dlsym(api->library, "kgemu_last_fault");
    api->kgemu_last_counters =
        (int (*)(struct kgemu_counters *))dlsym(api->library, "kgemu_last_counters");
    api->kgemu_set_registers = (int (*)(void *, int))dlsym(api->library, "kgemu_set_registers");
    api->kgemu_compile_all = (int (*)(void *const *, int))dlsym(api->library, "kgemu_compile_all");
    api->kgemu_set_time_budget = (int (*)(double))dlsym(api->library, "kgemu_set_time_budget");
    api->kgemu_guard = (int (*)(unsigned long long, unsigned long long, unsigned long long))dlsym(
        api->library, "kgemu_guard");
    api->kgemu_serve_start =
        (__typeof__(&kgemu_serve_start))dlsym(api->library, "kgemu_serve_start");
    api->kgemu_served_stats =
        (__typeof__(&kgemu_served_stats))dlsym(api->library, "kgemu_served_stats");
    api->kgemu_served_copies =
        (__typeof__(&kgemu_served_copies))dlsym(api->library, "kgemu_served_copies");
    api->kgemu_served_settle =
        (__typeof__(&kgemu_served_settle))dlsym(api->library, "kgemu_served_settle");
    api->kgemu_serve_stop = (__typeof__(&kgemu_serve_stop))dlsym(api->library, "kgemu_serve_stop");
    api->kgemu_hash = (__typeof__(&kgemu_hash))dlsym(api->library, "kgemu_hash");
    api->kgemu_served_uploaded_bytes = (__typeof__(&kgemu_served_uploaded_bytes))dlsym(
        api->library, "kgemu_served_uploaded_bytes");
    api->kgemu_served_fault =
        (__typeof__(&kgemu_served_fault))dlsym(api->library, "kgemu_served_fault");
    api->emulated = dlsym(api->library, "kgemu_is_virtual") != NULL;
    return true;
}

/* cuInit and the first device; fills the device's name and capability. */
static bool start(struct cuda_api *api, char *error, size_t size)
{
    int count = 0;
    CUdevice device;
    CUresult rc = api->cuInit(0);
    if (rc == CUDA_SUCCESS)
        rc = api->cuDeviceGetCount(&count);
    if (rc == CUDA_SUCCESS && count < 1)
        rc = CUDA_ERROR_NO_DEVICE;
    if (rc == CUDA_SUCCESS)
        rc = api->cuDeviceGet(&device, 0);
    if (rc != CUDA_SUCCESS) {
        const char *name = NULL;
        if (api->cuGetErrorName(rc, &name) != CUDA_SUCCESS || !name)
            name = "an unknown error";
        snprintf(error, size, "the CUDA driver found no GPU: %s (%d)", name, (int)rc);
        return false;
    }
    api->cuDeviceGetName(api->device_name, sizeof api->device_name, device);
    api->cuDeviceGetAttribute(&api->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    api->cuDeviceGetAttribute(&api->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    api->cuDriverGetVersion(&api->driver_version);
    return true;
}

static bool open_driver(struct cuda_api *api, const char *path, char *error, size_t size)
{
    memset(api, 0, sizeof *api);
    api->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!api->library) {
        snprintf(error, size, "cannot load %s: %s", path, dlerror());
        return false;
    }
    if (look_up(api, error, size) && start(api, error, size))
        return true;
    dlclose(api->library);
    api->library = NULL;
    return false;
}

static bool load_real(struct cuda_api *api, char *error, size_t size)
{
    char why[256];
    const char *named = getenv(GRADER_CUDA_DRIVER);
    if (!open_driver(api, named && named[0] ? named : SYSTEM_DRIVER, why, sizeof why)) {
        snprintf(error, size, "no CUDA GPU is usable here (%s); use --device emulator or auto",
                 why);
        return false;
    }
    if (api->emulated) {
        cuda_api_unload(api);
        snprintf(error, size,
                 "the libcuda.so.1 found first is kgrade's virtual GPU, not a GPU driver (check "
                 "LD_LIBRARY_PATH); use --device emulator or auto");
        return false;
    }
    return true;
}

static bool load_emulator(struct cuda_api *api, const char *emulator, char *error, size_t size)
{
    char why[512];
    if (!emulator || !open_driver(api, emulator, why, sizeof why)) {
        snprintf(error, size, "cannot use kgrade's virtual GPU (%s); run make to build it",
                 emulator ? why : "its path is unknown");
        return false;
    }
    if (!api->emulated) {
        cuda_api_unload(api);
        snprintf(error, size, "%s is not kgrade's virtual GPU", emulator);
        return false;
    }
    return true;
}

bool cuda_api_load(struct cuda_api *api, enum cuda_device_choice choice, const char *emulator,
                   char *error, size_t error_size)
{
    switch (choice) {
    case CUDA_DEVICE_REAL:
        return load_real(api, error, error_size);
    case CUDA_DEVICE_EMULATOR:
        return load_emulator(api, emulator, error, error_size);
    default:
        if (load_real(api, error, error_size))
            return true;
        return load_emulator(api, emulator, error, error_size);
    }
}

void cuda_api_unload(struct cuda_api *api)
{
    if (api->library && !api->stuck)
        dlclose(api->library);
    memset(api, 0, sizeof *api);
}

bool cuda_api_emulator_path(char *path, size_t size)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return false;
    self[n] = '\0';
    int written = snprintf(path, size, "%s/%s", dirname(self), EMULATOR_BESIDE_BINARY);
    return written > 0 && (size_t)written < size;
}

void cuda_api_describe(const struct cuda_api *api, CUresult result, char *text, size_t size)
{
    const char *name = NULL, *what = NULL;
    if (api->cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
        name = "an unknown CUresult";
    if (api->cuGetErrorString(result, &what) != CUDA_SUCCESS || !what)
        what = "";
    snprintf(text, size, "%s: %s", name, what);
}
