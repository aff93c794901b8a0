/*
 * The calibration's side of the driver: kernels compiled by the grader's own
 * compile step (grader_compile: NVRTC, ptxas's register counts) and loaded with
 * the GPU tests' loader (tests/gpu/gpu_test.h), buffers, launches and events.
 * Linked with the toolkit's stub libcuda.so like the GPU tests, so the driver is
 * whichever libcuda.so.1 loads: the virtual GPU with LD_LIBRARY_PATH=build/emulator.
 */
#include "lit_gpu.h"

#include <stdio.h>
#include <string.h>

#include "grader/grader.h"
#include "server/source_file.h"
#include "tests/gpu/gpu_test.h"

#define LIT_ARCH "sm_90"

/* Prints a failed call; returns whether it succeeded. */
static bool ok(CUresult rc, const char *call)
{
    if (rc == CUDA_SUCCESS)
        return true;
    fprintf(stderr, "calibrate: %s: %s\n", call, gpu_test_error_name(rc));
    gpu_test_print_fault();
    return false;
}

bool lit_gpu_start(struct lit_gpu *gpu)
{
    memset(gpu, 0, sizeof *gpu);
    CUdevice device;
    if (!ok(cuInit(0), "cuInit") || !ok(cuDeviceGet(&device, 0), "cuDeviceGet") ||
        !ok(cuCtxCreate(&gpu->context, NULL, 0, device), "cuCtxCreate"))
        return false;
    *(void **)&gpu->set_registers = dlsym(RTLD_DEFAULT, "kgemu_set_registers");
    *(void **)&gpu->last_counters = dlsym(RTLD_DEFAULT, "kgemu_last_counters");
    return true;
}

void lit_gpu_stop(struct lit_gpu *gpu)
{
    if (gpu->context)
        cuCtxDestroy(gpu->context);
    gpu->context = NULL;
}

/* grader_compile of the kernel's file, as `kgrade grade` compiles a source. */
static bool compile(const struct lit_kernel *k, struct grader_compile_result *result)
{
    char path[256], why[256];
    snprintf(path, sizeof path, "%s%s", LIT_KERNEL_DIR, k->file);
    struct source_file file;
    memset(result, 0, sizeof *result);
    if (!source_file_read(path, &file, why, sizeof why)) {
        fprintf(stderr, "calibrate: %s (run from the repository's root)\n", why);
        return false;
    }
    const char *extra[] = {"-lineinfo", "-std=c++17"};
    const char *names[] = {k->entry};
    struct grader_compile_options options = {
        .arch = LIT_ARCH,
        .file_name = k->file,
        .extra = extra,
        .n_extra = 2,
        .kernel_names = names,
        .n_kernel_names = 1,
    };
    enum grader_compile_status status = grader_compile(file.data, file.size, &options, result);
    source_file_free(&file);
    if (status == GRADER_COMPILE_OK)
        return true;
    fprintf(stderr, "calibrate: %s: %s\n%s\n", k->file, result->message, result->log);
    return false;
}

/* ptxas's registers for `entry`, or 0 when it did not say. */
static int registers_of(const struct grader_compile_result *r, const char *entry)
{
    for (size_t i = 0; i < r->n_kernels; i++)
        if (strcmp(r->kernels[i].name, entry) == 0 && r->kernels[i].registers > 0)
            return r->kernels[i].registers;
    return 0;
}

bool lit_load(struct lit_gpu *gpu, const struct lit_kernel *k, struct lit_loaded *out)
{
    struct grader_compile_result r;
    memset(out, 0, sizeof *out);
    bool loaded = compile(k, &r) && gpu_test_load_ptx(&out->module, r.ptx, k->file) == 0 &&
                  ok(cuModuleGetFunction(&out->function, out->module, r.lowered_names[0]),
                     "cuModuleGetFunction");
    int registers = loaded ? registers_of(&r, r.lowered_names[0]) : 0;
    if (registers > 0 && gpu->set_registers)
        gpu->set_registers(out->function, registers);
    grader_compile_result_free(&r);
    return loaded;
}

void lit_unload(struct lit_loaded *loaded)
{
    if (loaded->module)
        cuModuleUnload(loaded->module);
    memset(loaded, 0, sizeof *loaded);
}

CUdeviceptr lit_upload(const void *host, size_t bytes)
{
    CUdeviceptr d = 0;
    if (!ok(cuMemAlloc(&d, bytes), "cuMemAlloc"))
        return 0;
    if (ok(cuMemcpyHtoD(d, host, bytes), "cuMemcpyHtoD"))
        return d;
    cuMemFree(d);
    return 0;
}

bool lit_download(void *host, CUdeviceptr d, size_t bytes)
{
    return ok(cuMemcpyDtoH(host, d, bytes), "cuMemcpyDtoH");
}

bool lit_launch(CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned by, void **args)
{
    return ok(cuLaunchKernel(f, gx, gy, 1, bx, by, 1, 0, NULL, args, NULL), "cuLaunchKernel") &&
           ok(cuCtxSynchronize(), "cuCtxSynchronize");
}

bool lit_timer_start(struct lit_timer *t)
{
    memset(t, 0, sizeof *t);
    return ok(cuEventCreate(&t->start, 0), "cuEventCreate") &&
           ok(cuEventCreate(&t->stop, 0), "cuEventCreate") &&
           ok(cuEventRecord(t->start, NULL), "cuEventRecord");
}

bool lit_timer_stop(struct lit_timer *t, double *ms)
{
    float elapsed = 0;
    bool timed = ok(cuEventRecord(t->stop, NULL), "cuEventRecord") &&
                 ok(cuEventSynchronize(t->stop), "cuEventSynchronize") &&
                 ok(cuEventElapsedTime(&elapsed, t->start, t->stop), "cuEventElapsedTime");
    cuEventDestroy(t->start);
    cuEventDestroy(t->stop);
    *ms = elapsed;
    return timed;
}

bool lit_timed_launch(const struct lit_gpu *gpu, CUfunction f, unsigned gx, unsigned gy,
                      unsigned bx, unsigned by, void **args, struct lit_outcome *out)
{
    struct lit_timer t;
    bool launched = lit_timer_start(&t) && lit_launch(f, gx, gy, bx, by, args);
    if (launched)
        lit_note_counters(gpu, out);
    return lit_timer_stop(&t, &out->ms) && launched;
}

int lit_small_int(unsigned long i, unsigned stream)
{
    unsigned long h = (i + 1) * 0x9E3779B97F4A7C15ul ^ (unsigned long)stream * 0xBF58476D1CE4E5B9ul;
    h ^= h >> 29;
    return (int)(h % 5) - 2;
}

void lit_note_counters(const struct lit_gpu *gpu, struct lit_outcome *out)
{
    memset(&out->counters, 0, sizeof out->counters);
    if (gpu->last_counters)
        gpu->last_counters(&out->counters);
}
