/*
 * The kgemu.h entry points: what a program asks the virtual GPU that CUDA
 * has no call for.
 */
#include "driver.h"
#include "jit.h"
#include "module.h"
#include "tier.h"

#include <pthread.h>
#include <stdbool.h>

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
    return kgemu_compile_all(&function, 1);
}

/* The largest kgemu_compile_all compiles at once (each thread has an LLJIT). */
#define COMPILE_THREADS_MAX 4

static void *compile_one(void *function)
{
    const struct emu_function *f = ((struct CUfunc_st *)function)->function;
    jit_kernel_with_calls(f->module->ptx, f->ptx, true);
    return NULL;
}

/* Compiles functions[0..count) with one host thread each, up to
 * COMPILE_THREADS_MAX at once, the caller's among them; the driver's lock
 * stays held, so no handle goes away meanwhile. A thread that cannot start
 * leaves its function to the caller. */
static void compile_at_once(void *const *functions, int count)
{
    for (int first = 0; first < count; first += COMPILE_THREADS_MAX) {
        int n = count - first < COMPILE_THREADS_MAX ? count - first : COMPILE_THREADS_MAX;
        pthread_t threads[COMPILE_THREADS_MAX];
        bool started[COMPILE_THREADS_MAX] = {false};
        for (int i = 1; i < n; i++)
            started[i] = pthread_create(&threads[i], NULL, compile_one, functions[first + i]) == 0;
        compile_one(functions[first]);
        for (int i = 1; i < n; i++) {
            if (started[i])
                pthread_join(threads[i], NULL);
            else
                compile_one(functions[first + i]);
        }
    }
}

EMU_EXPORT int kgemu_compile_all(void *const *functions, int count)
{
    struct CUctx_st *ctx;
    CUresult r = driver_enter(&ctx, DRIVER_IGNORE_STICKY);
    if (r == CUDA_SUCCESS && (count < 0 || (count > 0 && functions == NULL)))
        r = CUDA_ERROR_INVALID_VALUE;
    for (int i = 0; r == CUDA_SUCCESS && i < count; i++)
        r = driver_handle_check(DRIVER_FUNCTION, functions[i], ctx);
    if (r == CUDA_SUCCESS && emu_tier() != EMU_TIER_INTERP)
        compile_at_once(functions, count);
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
