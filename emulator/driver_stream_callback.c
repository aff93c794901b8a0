/*
 * Stream callbacks: cuStreamAddCallback.
 *
 * cuda.h runs a callback on the host once all the work its stream held has
 * completed, and before the work issued after it. On the virtual GPU every
 * call has finished when it returns (driver.h), so that point is now: the
 * callback runs at once, on the calling thread, before cuStreamAddCallback
 * returns. Its status is the context's sticky fault (CUDA_SUCCESS when
 * there is none), as callbacks after a device error get one. On the
 * modeled timeline (driver_timeline.c) it is a point of its stream, which
 * orders the stream's later work after the earlier; the host's time it
 * takes is not modeled.
 *
 * It runs outside the driver lock. A callback must not call the driver
 * (cuda.h); one that does gets CUDA_ERROR_NOT_PERMITTED, as on a GPU
 * (driver_begin reads the flag set here).
 */
#include "driver.h"

static _Thread_local bool in_callback;

bool driver_in_callback(void)
{
    return in_callback;
}

EMU_EXPORT CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData,
                                        unsigned int flags)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_IGNORE_STICKY);
    if (rc == CUDA_SUCCESS && (callback == NULL || flags != 0))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        rc = driver_stream_check(ctx, hStream);
    if (rc == CUDA_SUCCESS)
        driver_timeline_place(ctx, hStream, DRIVER_ENGINE_NONE, 0, 0);
    CUresult status = rc == CUDA_SUCCESS ? ctx->sticky : CUDA_SUCCESS;
    driver_leave(rc);
    if (rc != CUDA_SUCCESS)
        return rc;
    in_callback = true;
    callback(hStream, status, userData);
    in_callback = false;
    return CUDA_SUCCESS;
}
