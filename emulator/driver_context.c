/*
 * Contexts: the primary context and created ones, each thread's stack of
 * current contexts, limits, synchronization.
 *
 * A context owns its device memory (an emu_memory with the model's total
 * memory as capacity; contexts do not share it, but every context's table
 * holds all page-locked host memory: driver_host_memory.c), the
 * page-locked host memory it allocated or registered, the device heap, modules,
 * streams and events, arrays, texture and surface objects, and its sticky
 * fault. Destroying it (or releasing the primary context for the last time)
 * frees all of that; resetting the primary context frees it and starts
 * afresh under the same handle, which is how a program recovers from a
 * sticky fault.
 *
 * Everything is synchronous, so synchronizing only reports the sticky fault.
 */
#include <stdlib.h>
#include <string.h>

#include "driver.h"

/* A context on a thread's stack, with the serial it had when pushed. */
struct stack_entry {
    struct CUctx_st *ctx;
    uint64_t serial;
};

/* The calling thread's stack of current contexts; the top is current. */
static _Thread_local struct {
    struct stack_entry items[DRIVER_CONTEXT_STACK_MAX];
    int depth;
} current;

static uint64_t last_serial; /* under driver.lock */

/* Whether the entry still names the context it was pushed for. */
static bool entry_live(struct stack_entry e)
{
    return driver_handle_live(DRIVER_CONTEXT, e.ctx) && e.ctx->serial == e.serial;
}

static struct stack_entry entry_of(struct CUctx_st *ctx)
{
    return (struct stack_entry){ctx, ctx->serial};
}

struct CUctx_st *driver_current(void)
{
    if (current.depth == 0)
        return NULL;
    struct stack_entry top = current.items[current.depth - 1];
    return entry_live(top) ? top.ctx : NULL;
}

CUresult driver_no_current(void)
{
    return current.depth > 0 ? CUDA_ERROR_CONTEXT_IS_DESTROYED : CUDA_ERROR_INVALID_CONTEXT;
}

/* A fresh state on `memory`: default limits, no fault, an empty timeline. */
static void context_start(struct CUctx_st *ctx, struct emu_memory *memory)
{
    ctx->memory = memory;
    ctx->heap = NULL;
    ctx->limits = (struct driver_limits){
        .stack_bytes = DRIVER_DEFAULT_STACK_BYTES,
        .printf_bytes = DRIVER_DEFAULT_PRINTF_BYTES,
        .malloc_heap_bytes = DRIVER_DEFAULT_MALLOC_HEAP_BYTES,
    };
    ctx->sticky = CUDA_SUCCESS;
    ctx->has_fault = false;
    memset(&ctx->fault, 0, sizeof ctx->fault);
    memset(&ctx->timeline, 0, sizeof ctx->timeline);
}

/* Frees what the context owns; modules go before the memory their
 * variables live in. */
static void context_stop(struct CUctx_st *ctx)
{
    driver_host_memory_release(ctx);
    driver_modules_release(ctx);
    driver_streams_events_release(ctx);
    driver_links_release(ctx);
    driver_texture_objects_release(ctx);
    driver_arrays_release(ctx);
    if (ctx->heap != NULL)
        emu_heap_destroy(ctx->heap, ctx->memory);
    emu_memory_destroy(ctx->memory);
    ctx->heap = NULL;
    ctx->memory = NULL;
}

static CUresult context_create(bool primary, unsigned flags, struct CUctx_st **out)
{
    struct CUctx_st *ctx = calloc(1, sizeof *ctx);
    struct emu_memory *memory = emu_memory_create(driver.device->total_memory);
    if (ctx == NULL || memory == NULL) {
        free(ctx);
        emu_memory_destroy(memory);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    ctx->serial = ++last_serial;
    ctx->primary = primary;
    ctx->flags = flags;
    context_start(ctx, memory);
    CUresult rc = driver_host_memory_adopt(ctx);
    if (rc != CUDA_SUCCESS) {
        emu_memory_destroy(memory);
        free(ctx);
        return rc;
    }
    driver_handle_add(DRIVER_CONTEXT, &ctx->handle, ctx);
    *out = ctx;
    return CUDA_SUCCESS;
}

static void context_destroy(struct CUctx_st *ctx)
{
    context_stop(ctx);
    driver_handle_remove(DRIVER_CONTEXT, &ctx->handle);
    if (current.depth > 0 && current.items[current.depth - 1].ctx == ctx)
        current.depth--;
    free(ctx);
}

static CUresult context_reset(struct CUctx_st *ctx)
{
    struct emu_memory *memory = emu_memory_create(driver.device->total_memory);
    if (memory == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    context_stop(ctx);
    context_start(ctx, memory);
    return driver_host_memory_adopt(ctx);
}

static CUresult context_push(struct CUctx_st *ctx)
{
    if (current.depth == DRIVER_CONTEXT_STACK_MAX)
        return CUDA_ERROR_OUT_OF_MEMORY;
    current.items[current.depth++] = entry_of(ctx);
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------ primary context */

EMU_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS && pctx == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        rc = driver_device_check(dev);
    if (rc == CUDA_SUCCESS && driver.primary == NULL)
        rc = context_create(true, driver.primary_flags, &driver.primary);
    if (rc == CUDA_SUCCESS) {
        driver.primary_refs++;
        *pctx = driver.primary;
    }
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS)
        rc = driver_device_check(dev);
    if (rc == CUDA_SUCCESS && driver.primary == NULL)
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (rc == CUDA_SUCCESS && --driver.primary_refs == 0) {
        context_destroy(driver.primary);
        driver.primary = NULL;
    }
    return driver_leave(rc);
}

/* Frees everything the primary context holds and clears its sticky fault;
 * the handle stays valid and retained. */
EMU_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice dev)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS)
        rc = driver_device_check(dev);
    if (rc == CUDA_SUCCESS && driver.primary != NULL)
        rc = context_reset(driver.primary);
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS && (flags == NULL || active == NULL))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        rc = driver_device_check(dev);
    if (rc == CUDA_SUCCESS) {
        *flags = driver.primary_flags;
        *active = driver.primary != NULL;
    }
    return driver_leave(rc);
}

/* The flags (scheduling policy and the like) change nothing here; they are
 * kept so that cuDevicePrimaryCtxGetState reports them. */
EMU_EXPORT CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS)
        rc = driver_device_check(dev);
    if (rc == CUDA_SUCCESS)
        driver.primary_flags = flags;
    return driver_leave(rc);
}

/* ----------------------------------------------------- created contexts */

static CUresult context_params_check(const CUctxCreateParams *params)
{
    if (params == NULL)
        return CUDA_SUCCESS;
    if (params->numExecAffinityParams != 0 || params->execAffinityParams != NULL)
        return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
    if (params->cigParams != NULL)
        return CUDA_ERROR_NOT_SUPPORTED;
    return CUDA_SUCCESS;
}

/* The new context becomes the calling thread's current one (pushed). */
EMU_EXPORT CUresult cuCtxCreate(CUcontext *pctx, CUctxCreateParams *ctxCreateParams,
                                unsigned int flags, CUdevice dev)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS && pctx == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        rc = driver_device_check(dev);
    if (rc == CUDA_SUCCESS)
        rc = context_params_check(ctxCreateParams);
    if (rc == CUDA_SUCCESS && current.depth == DRIVER_CONTEXT_STACK_MAX)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    struct CUctx_st *ctx = NULL;
    if (rc == CUDA_SUCCESS)
        rc = context_create(false, flags, &ctx);
    if (rc == CUDA_SUCCESS) {
        context_push(ctx);
        *pctx = ctx;
    }
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
                                   unsigned int flags, CUdevice dev)
{
    if (numParams < 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUctxCreateParams params = {.execAffinityParams = paramsArray,
                                .numExecAffinityParams = numParams};
    return cuCtxCreate(pctx, &params, flags, dev);
}

EMU_EXPORT CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return cuCtxCreate(pctx, NULL, flags, dev);
}

EMU_EXPORT CUresult cuCtxDestroy(CUcontext ctx)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS && (!driver_handle_live(DRIVER_CONTEXT, ctx) || ctx->primary))
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (rc == CUDA_SUCCESS)
        context_destroy(ctx);
    return driver_leave(rc);
}

/* ------------------------------------------------------ current context */

/* Replaces the top of the stack; NULL pops it. */
EMU_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS && ctx != NULL && !driver_handle_live(DRIVER_CONTEXT, ctx))
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (rc == CUDA_SUCCESS) {
        if (ctx == NULL) {
            if (current.depth > 0)
                current.depth--;
        } else if (current.depth == 0) {
            rc = context_push(ctx);
        } else {
            current.items[current.depth - 1] = entry_of(ctx);
        }
    }
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS && pctx == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        *pctx = driver_current();
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuCtxPushCurrent(CUcontext ctx)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS && !driver_handle_live(DRIVER_CONTEXT, ctx))
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (rc == CUDA_SUCCESS)
        rc = context_push(ctx);
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuCtxPopCurrent(CUcontext *pctx)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS && current.depth == 0)
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (rc == CUDA_SUCCESS) {
        struct CUctx_st *top = current.items[--current.depth].ctx;
        if (pctx != NULL)
            *pctx = top;
    }
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuCtxGetDevice(CUdevice *device)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_IGNORE_STICKY);
    if (rc == CUDA_SUCCESS && device == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        *device = 0;
    return driver_leave(rc);
}

/* Every call has finished when it returns: what is left is the sticky
 * fault to report, and the host's wait for all the work queued so far
 * (its modeled end). */
EMU_EXPORT CUresult cuCtxSynchronize(void)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS)
        driver_timeline_host_waits(ctx, ctx->timeline.queued_end);
    return driver_leave(rc);
}

/* There is no L2 to reset; the timing model starts every launch cold. */
EMU_EXPORT CUresult cuCtxResetPersistingL2Cache(void)
{
    struct CUctx_st *ctx;
    return driver_leave(driver_enter(&ctx, DRIVER_STICKY));
}

/* ---------------------------------------------------------------- limits */

static size_t *context_limit(struct CUctx_st *ctx, CUlimit limit)
{
    switch (limit) {
    case CU_LIMIT_STACK_SIZE:
        return &ctx->limits.stack_bytes;
    case CU_LIMIT_PRINTF_FIFO_SIZE:
        return &ctx->limits.printf_bytes;
    case CU_LIMIT_MALLOC_HEAP_SIZE:
        return &ctx->limits.malloc_heap_bytes;
    default:
        return NULL;
    }
}

/* The heap size is fixed once the heap exists (after the first launch),
 * as cuda.h says: CUDA_ERROR_INVALID_VALUE then. */
EMU_EXPORT CUresult cuCtxSetLimit(CUlimit limit, size_t value)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    size_t *slot = rc == CUDA_SUCCESS ? context_limit(ctx, limit) : NULL;
    if (rc == CUDA_SUCCESS && slot == NULL)
        rc = CUDA_ERROR_UNSUPPORTED_LIMIT;
    if (rc == CUDA_SUCCESS && limit == CU_LIMIT_MALLOC_HEAP_SIZE && ctx->heap != NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        *slot = value;
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuCtxGetLimit(size_t *pvalue, CUlimit limit)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_IGNORE_STICKY);
    if (rc == CUDA_SUCCESS && pvalue == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    size_t *slot = rc == CUDA_SUCCESS ? context_limit(ctx, limit) : NULL;
    if (rc == CUDA_SUCCESS && slot == NULL)
        rc = CUDA_ERROR_UNSUPPORTED_LIMIT;
    if (rc == CUDA_SUCCESS)
        *pvalue = *slot;
    return driver_leave(rc);
}
