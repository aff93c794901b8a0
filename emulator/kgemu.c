/*
 * The kgemu.h entry points: what a program asks the virtual GPU that CUDA
 * has no call for.
 */
#include "driver.h"

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
