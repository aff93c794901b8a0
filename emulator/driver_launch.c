/*
 * cuLaunchKernel: checks a launch against the device and the kernel, packs
 * its parameters, and runs it to completion (emu_launch_run).
 *
 * Two kinds of failure, as on a real GPU:
 * - a configuration the device cannot run (a block too large, too much
 *   shared memory, bad parameters) is returned by cuLaunchKernel at once
 *   and leaves the context usable;
 * - a fault while the kernel runs (illegal address, timeout, trap, ...) is
 *   not: cuLaunchKernel returns CUDA_SUCCESS, and the fault becomes the
 *   context's sticky error, returned by every later call that uses the
 *   device until the context is destroyed or reset.
 * Either way the context keeps a description of it for kgemu_last_fault().
 *
 * A launch's elapsed_ms goes on its stream's modeled timeline
 * (driver_timeline.c), which events record. Cooperative launches
 * (cuLaunchCooperativeKernel) are refused: see there.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

struct launch_config {
    unsigned grid[3];
    unsigned block[3];
    unsigned shared_bytes;
    CUstream stream; /* whose timeline the kernel's modeled time goes on */
};

/* Records a refused launch; returns `code`. */
__attribute__((format(printf, 4, 5))) static CUresult
launch_refuse(struct CUctx_st *ctx, const char *kernel, CUresult code, const char *format, ...)
{
    struct kgemu_fault *fault = &ctx->fault;
    memset(fault, 0, sizeof *fault);
    fault->code = code;
    snprintf(fault->kernel, sizeof fault->kernel, "%s", kernel);
    va_list args;
    va_start(args, format);
    vsnprintf(fault->message, sizeof fault->message, format, args);
    va_end(args);
    ctx->has_fault = true;
    return code;
}

static CUresult launch_check_dims(struct CUctx_st *ctx, const char *kernel,
                                  const struct launch_config *c)
{
    const struct emu_device_model *m = driver.device;
    static const char axis[] = "xyz";
    for (int i = 0; i < 3; i++) {
        if (c->grid[i] == 0 || c->grid[i] > (unsigned)m->max_grid_dim[i])
            return launch_refuse(ctx, kernel, CUDA_ERROR_INVALID_VALUE,
                                 "gridDim.%c = %u is outside the device's range 1..%d", axis[i],
                                 c->grid[i], m->max_grid_dim[i]);
        if (c->block[i] == 0 || c->block[i] > (unsigned)m->max_block_dim[i])
            return launch_refuse(ctx, kernel, CUDA_ERROR_INVALID_VALUE,
                                 "blockDim.%c = %u is outside the device's range 1..%d", axis[i],
                                 c->block[i], m->max_block_dim[i]);
    }
    return CUDA_SUCCESS;
}

static CUresult launch_check_block(struct CUctx_st *ctx, const struct CUfunc_st *f,
                                   const char *kernel, const struct launch_config *c)
{
    const struct emu_device_model *m = driver.device;
    uint64_t threads = (uint64_t)c->block[0] * c->block[1] * c->block[2];
    if (threads > (uint64_t)m->max_threads_per_block)
        return launch_refuse(ctx, kernel, CUDA_ERROR_INVALID_VALUE,
                             "a block of %u x %u x %u = %llu threads exceeds the device's limit "
                             "of %d threads per block",
                             c->block[0], c->block[1], c->block[2], (unsigned long long)threads,
                             m->max_threads_per_block);
    int max = driver_function_max_threads(f, m);
    if (threads > (uint64_t)max)
        return launch_refuse(ctx, kernel, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
                             "a block of %llu threads exceeds this kernel's limit of %d threads "
                             "per block (its __launch_bounds__, .maxntid in the PTX)",
                             (unsigned long long)threads, max);
    const struct emu_function_info *info = emu_function_info(f->function);
    if (c->shared_bytes > f->max_dynamic_shared)
        return launch_refuse(ctx, kernel, CUDA_ERROR_INVALID_VALUE,
                             "%u bytes of dynamic shared memory exceed this kernel's limit of "
                             "%zu bytes (%u bytes of static shared memory); raise it with "
                             "cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)",
                             c->shared_bytes, f->max_dynamic_shared, info->static_shared_bytes);
    return CUDA_SUCCESS;
}

/* Copies each kernelParams[i] to its offset in the packed buffer. */
static CUresult launch_pack_params(const struct emu_function_info *info, void **params,
                                   unsigned char *buffer)
{
    for (int i = 0; i < info->n_params; i++) {
        const struct emu_param_info *p = &info->params[i];
        if (params[i] == NULL || (uint64_t)p->offset + p->size > info->param_bytes)
            return CUDA_ERROR_INVALID_VALUE;
        memcpy(buffer + p->offset, params[i], p->size);
    }
    return CUDA_SUCCESS;
}

/* The parameter space rounded up to its largest parameter's alignment: the
 * sizeof of a C struct laid out as the parameters are (its tail padding). */
static uint32_t launch_padded_param_bytes(const struct emu_function_info *info)
{
    uint32_t align = 1;
    for (int i = 0; i < info->n_params; i++)
        align = info->params[i].align > align ? info->params[i].align : align;
    return (info->param_bytes + align - 1) / align * align;
}

/* The `extra` form: CU_LAUNCH_PARAM_BUFFER_POINTER and _SIZE pairs, ended
 * by CU_LAUNCH_PARAM_END; the buffer is already packed. Its size must be
 * the kernel's parameter space (or that as a struct's sizeof): a buffer of
 * another size was packed for another kernel, and copying the kernel's
 * size from it would read past what the caller meant to hand over. */
static CUresult launch_copy_extra(const struct emu_function_info *info, void **extra,
                                  unsigned char *buffer)
{
    const void *pointer = NULL;
    const size_t *size = NULL;
    for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
            pointer = extra[i + 1];
        else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
            size = extra[i + 1];
        else
            return CUDA_ERROR_INVALID_VALUE;
    }
    if (info->param_bytes == 0)
        return CUDA_SUCCESS;
    if (pointer == NULL || size == NULL ||
        (*size != info->param_bytes && *size != launch_padded_param_bytes(info)))
        return CUDA_ERROR_INVALID_VALUE;
    memcpy(buffer, pointer, info->param_bytes);
    return CUDA_SUCCESS;
}

static CUresult launch_params(struct CUctx_st *ctx, const struct emu_function_info *info,
                              void **kernel_params, void **extra, unsigned char *buffer)
{
    CUresult rc = CUDA_SUCCESS;
    if (kernel_params != NULL && extra != NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    else if (kernel_params != NULL)
        rc = launch_pack_params(info, kernel_params, buffer);
    else if (extra != NULL)
        rc = launch_copy_extra(info, extra, buffer);
    else if (info->n_params > 0)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc != CUDA_SUCCESS)
        return launch_refuse(ctx, info->name, rc,
                             "the parameters of %s (%d, %u bytes) were not given as one pointer "
                             "per parameter in kernelParams, nor as one buffer of %u bytes in "
                             "extra",
                             info->name, info->n_params, info->param_bytes, info->param_bytes);
    return CUDA_SUCCESS;
}

/* The faults after which a real GPU's context is unusable. */
static bool launch_fault_is_sticky(CUresult code)
{
    switch (code) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTAINED:
        return true;
    default:
        return false;
    }
}

/* Turns what emu_launch_run said into the context's state and the value
 * cuLaunchKernel returns. */
static CUresult launch_finish(struct CUctx_st *ctx, const char *kernel, CUstream stream,
                              CUresult rc, struct emu_launch_result *result)
{
    driver_timeline_kernel(ctx, stream, result->elapsed_ms);
    if (rc == CUDA_SUCCESS) {
        ctx->counters = result->counters;
        ctx->has_counters = true;
    }
    CUresult code = rc != CUDA_SUCCESS ? rc : (CUresult)result->fault.code;
    if (code == CUDA_SUCCESS)
        return CUDA_SUCCESS;
    result->fault.code = code;
    if (result->fault.kernel[0] == '\0')
        snprintf(result->fault.kernel, sizeof result->fault.kernel, "%s", kernel);
    if (result->fault.message[0] == '\0') {
        const char *text = "an unknown error";
        cuGetErrorString(code, &text);
        snprintf(result->fault.message, sizeof result->fault.message, "%s failed: %s", kernel,
                 text);
    }
    ctx->fault = result->fault;
    ctx->has_fault = true;
    if (!launch_fault_is_sticky(code))
        return code;
    ctx->sticky = code;
    return CUDA_SUCCESS;
}

/* The heap is made at the first launch, with the heap limit of that moment;
 * if it cannot be made, kernels' malloc returns NULL. */
static void launch_heap(struct CUctx_st *ctx)
{
    if (ctx->heap == NULL)
        ctx->heap = emu_heap_create(ctx->memory, ctx->limits.malloc_heap_bytes);
}

static CUresult launch_run(struct CUctx_st *ctx, const struct CUfunc_st *f,
                           const struct launch_config *c, const void *params)
{
    launch_heap(ctx);
    struct emu_launch launch = {
        .function = f->function,
        .grid = {c->grid[0], c->grid[1], c->grid[2]},
        .block = {c->block[0], c->block[1], c->block[2]},
        .dynamic_shared_bytes = c->shared_bytes,
        .shared_carveout = f->carveout,
        .params = params,
        .memory = ctx->memory,
        .heap = ctx->heap,
        .textures = ctx->textures,
        .device = driver.device,
        .stack_bytes_per_thread = ctx->limits.stack_bytes,
        .printf_bytes = ctx->limits.printf_bytes,
        .time_budget_ms = ctx->time_budget_ms,
    };
    struct emu_launch_result result;
    memset(&result, 0, sizeof result);
    CUresult rc = emu_launch_run(&launch, &result);
    return launch_finish(ctx, emu_function_info(f->function)->name, c->stream, rc, &result);
}

static CUresult launch(struct CUctx_st *ctx, const struct CUfunc_st *f,
                       const struct launch_config *c, void **kernel_params, void **extra)
{
    const struct emu_function_info *info = emu_function_info(f->function);
    CUresult rc = launch_check_dims(ctx, info->name, c);
    if (rc == CUDA_SUCCESS)
        rc = launch_check_block(ctx, f, info->name, c);
    if (rc != CUDA_SUCCESS)
        return rc;
    unsigned char *params = calloc(1, info->param_bytes > 0 ? info->param_bytes : 1);
    if (params == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    rc = launch_params(ctx, info, kernel_params, extra, params);
    if (rc == CUDA_SUCCESS)
        rc = launch_run(ctx, f, c, params);
    free(params);
    return rc;
}

/* Takes the lock (the caller ends with driver_leave) and checks that `f`
 * and `stream` belong to the current context. */
static CUresult launch_enter(CUfunction f, CUstream stream, struct CUctx_st **ctx)
{
    CUresult rc = driver_enter(ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS)
        rc = driver_handle_check(DRIVER_FUNCTION, f, *ctx);
    if (rc == CUDA_SUCCESS)
        rc = driver_stream_check(*ctx, stream);
    return rc;
}

EMU_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                   unsigned int gridDimZ, unsigned int blockDimX,
                                   unsigned int blockDimY, unsigned int blockDimZ,
                                   unsigned int sharedMemBytes, CUstream hStream,
                                   void **kernelParams, void **extra)
{
    struct CUctx_st *ctx;
    CUresult rc = launch_enter(f, hStream, &ctx);
    if (rc != CUDA_SUCCESS)
        return driver_leave(rc);
    struct launch_config config = {
        .grid = {gridDimX, gridDimY, gridDimZ},
        .block = {blockDimX, blockDimY, blockDimZ},
        .shared_bytes = sharedMemBytes,
        .stream = hStream,
    };
    return driver_leave(launch(ctx, f, &config, kernelParams, extra));
}

/* A cooperative launch promises that every block of the grid is resident
 * at once, so that they may wait for each other (a grid barrier). The
 * virtual GPU runs a grid's blocks on a few host threads, each block to
 * its end, and cannot keep that promise: a grid barrier would wait
 * forever. The launch is refused, once its function and stream are
 * checked, with CUDA_ERROR_NOT_SUPPORTED. */
EMU_EXPORT CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX,
                                              unsigned int gridDimY, unsigned int gridDimZ,
                                              unsigned int blockDimX, unsigned int blockDimY,
                                              unsigned int blockDimZ, unsigned int sharedMemBytes,
                                              CUstream hStream, void **kernelParams)
{
    (void)gridDimX, (void)gridDimY, (void)gridDimZ, (void)blockDimX, (void)blockDimY;
    (void)blockDimZ, (void)sharedMemBytes, (void)kernelParams;
    struct CUctx_st *ctx;
    CUresult rc = launch_enter(f, hStream, &ctx);
    return driver_leave(rc == CUDA_SUCCESS ? CUDA_ERROR_NOT_SUPPORTED : rc);
}
