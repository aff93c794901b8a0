/*
 * The kgemu.h entry points: what a program asks the virtual GPU that CUDA
 * has no call for.
 */
#include "driver.h"
#include "jit.h"
#include "module.h"
#include "tier.h"

EMU_EXPORT int kgemu_is_virtual(void)
{
    return 1;
}

/* The fault is kept until the context is destroyed or reset, so it can be
 * read after the sticky error has been seen. */
EMU_EXPORT int kgemu_last_fault(struct kgemu_fault *fault)
{
    struct CUctx_st *ctx;
    int found = 0;
    if (driver_enter(&ctx, DRIVER_IGNORE_STICKY) == CUDA_SUCCESS && ctx->has_fault) {
        found = 1;
        if (fault != NULL)
            *fault = ctx->fault;
    }
    driver_leave(CUDA_SUCCESS);
    return found;
}

EMU_EXPORT int kgemu_compile(void *function)
{
    struct CUctx_st *ctx;
    CUresult r = driver_enter(&ctx, DRIVER_IGNORE_STICKY);
    if (r == CUDA_SUCCESS)
        r = driver_handle_check(DRIVER_FUNCTION, function, ctx);
    if (r == CUDA_SUCCESS && emu_tier() != EMU_TIER_INTERP)
        jit_kernel_with_calls(((struct CUfunc_st *)function)->function->module->ptx,
                              ((struct CUfunc_st *)function)->function->ptx, true);
    return (int)driver_leave(r);
}

EMU_EXPORT int kgemu_set_registers(void *function, int registers)
{
    struct CUctx_st *ctx;
    CUresult r = driver_enter(&ctx, DRIVER_IGNORE_STICKY);
    if (r == CUDA_SUCCESS)
        r = driver_handle_check(DRIVER_FUNCTION, function, ctx);
    if (r == CUDA_SUCCESS && (registers < 1 || registers > 255))
        r = CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS)
        emu_function_set_registers(((struct CUfunc_st *)function)->function, registers);
    return (int)driver_leave(r);
}

EMU_EXPORT int kgemu_last_counters(struct kgemu_counters *counters)
{
    struct CUctx_st *ctx;
    int found = 0;
    if (driver_enter(&ctx, DRIVER_IGNORE_STICKY) == CUDA_SUCCESS && ctx->has_counters) {
        found = 1;
        if (counters != NULL)
            *counters = ctx->counters;
    }
    driver_leave(CUDA_SUCCESS);
    return found;
}

EMU_EXPORT int kgemu_device_time(double *milliseconds)
{
    struct CUctx_st *ctx;
    CUresult r = driver_enter(&ctx, DRIVER_IGNORE_STICKY);
    if (r == CUDA_SUCCESS && milliseconds == NULL)
        r = CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS)
        *milliseconds = driver_timeline_ms(ctx->timeline.queued_end);
    return (int)driver_leave(r);
}

EMU_EXPORT int kgemu_set_time_budget(double milliseconds)
{
    struct CUctx_st *ctx;
    CUresult r = driver_enter(&ctx, DRIVER_IGNORE_STICKY);
    if (r == CUDA_SUCCESS && !(milliseconds >= 0))
        r = CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS)
        ctx->time_budget_ms = milliseconds;
    return (int)driver_leave(r);
}

EMU_EXPORT int kgemu_guard(unsigned long long base, unsigned long long head,
                           unsigned long long tail)
{
    struct CUctx_st *ctx;
    CUresult r = driver_enter(&ctx, DRIVER_IGNORE_STICKY);
    if (r == CUDA_SUCCESS)
        r = emu_memory_set_window(ctx->memory, base, head, tail);
    return (int)driver_leave(r);
}
