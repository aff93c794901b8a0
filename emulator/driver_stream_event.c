/*
 * Streams and events.
 *
 * Every call runs to completion before it returns, so a stream is only a
 * name for an order that is already kept: synchronizing and querying find
 * nothing pending and report just the sticky fault. An event records the
 * context's device clock (the launches' modeled time, summed), and
 * cuEventElapsedTime subtracts two such readings; with no launch between
 * two events it is exactly 0.
 */
#include <stdlib.h>

#include "driver.h"

#define EVENT_FLAGS (CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS)

static bool owned_by(const struct driver_handle *handle, const void *context)
{
    return handle->context == context;
}

static void handle_free(struct driver_handle *handle)
{
    free(handle);
}

void driver_streams_events_release(struct CUctx_st *ctx)
{
    driver_handle_remove_if(DRIVER_STREAM, owned_by, ctx, handle_free);
    driver_handle_remove_if(DRIVER_EVENT, owned_by, ctx, handle_free);
}

/* ---------------------------------------------------------------- streams */

/* A stream that was created, not a default one. */
static CUresult stream_created_check(struct CUctx_st *ctx, CUstream stream)
{
    return driver_handle_live(DRIVER_STREAM, stream) && stream->handle.context == ctx
               ? CUDA_SUCCESS
               : CUDA_ERROR_INVALID_HANDLE;
}

CUresult driver_stream_check(struct CUctx_st *ctx, CUstream stream)
{
    if (stream == NULL || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD)
        return CUDA_SUCCESS;
    return stream_created_check(ctx, stream);
}

EMU_EXPORT CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS && (phStream == NULL || (Flags & ~CU_STREAM_NON_BLOCKING) != 0))
        rc = CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *stream = NULL;
    if (rc == CUDA_SUCCESS && (stream = calloc(1, sizeof *stream)) == NULL)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (rc == CUDA_SUCCESS) {
        stream->flags = Flags;
        driver_handle_add(DRIVER_STREAM, &stream->handle, ctx);
        *phStream = stream;
    }
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuStreamDestroy(CUstream hStream)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS)
        rc = stream_created_check(ctx, hStream);
    if (rc == CUDA_SUCCESS) {
        driver_handle_remove(DRIVER_STREAM, &hStream->handle);
        free(hStream);
    }
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuStreamSynchronize(CUstream hStream)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS)
        rc = driver_stream_check(ctx, hStream);
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuStreamQuery(CUstream hStream)
{
    return cuStreamSynchronize(hStream);
}

static CUresult event_check(struct CUctx_st *ctx, CUevent event)
{
    return driver_handle_live(DRIVER_EVENT, event) && event->handle.context == ctx
               ? CUDA_SUCCESS
               : CUDA_ERROR_INVALID_HANDLE;
}

/* The event has happened already, so there is nothing to wait for. */
EMU_EXPORT CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS)
        rc = driver_stream_check(ctx, hStream);
    if (rc == CUDA_SUCCESS)
        rc = event_check(ctx, hEvent);
    if (rc == CUDA_SUCCESS && (Flags & ~CU_EVENT_WAIT_EXTERNAL) != 0)
        rc = CUDA_ERROR_INVALID_VALUE;
    return driver_leave(rc);
}

/* ----------------------------------------------------------------- events */

EMU_EXPORT CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS && (phEvent == NULL || (Flags & ~EVENT_FLAGS) != 0))
        rc = CUDA_ERROR_INVALID_VALUE;
    /* An interprocess event must not time (cuda.h). */
    if (rc == CUDA_SUCCESS && (Flags & CU_EVENT_INTERPROCESS) != 0 &&
        (Flags & CU_EVENT_DISABLE_TIMING) == 0)
        rc = CUDA_ERROR_INVALID_VALUE;
    struct CUevent_st *event = NULL;
    if (rc == CUDA_SUCCESS && (event = calloc(1, sizeof *event)) == NULL)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (rc == CUDA_SUCCESS) {
        event->flags = Flags;
        driver_handle_add(DRIVER_EVENT, &event->handle, ctx);
        *phEvent = event;
    }
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuEventDestroy(CUevent hEvent)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS)
        rc = event_check(ctx, hEvent);
    if (rc == CUDA_SUCCESS) {
        driver_handle_remove(DRIVER_EVENT, &hEvent->handle);
        free(hEvent);
    }
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS)
        rc = event_check(ctx, hEvent);
    if (rc == CUDA_SUCCESS)
        rc = driver_stream_check(ctx, hStream);
    if (rc == CUDA_SUCCESS) {
        hEvent->recorded = true;
        hEvent->clock_ms = ctx->clock_ms;
    }
    return driver_leave(rc);
}

/* Complete as soon as recorded, and an event never recorded is complete too. */
EMU_EXPORT CUresult cuEventQuery(CUevent hEvent)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS)
        rc = event_check(ctx, hEvent);
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuEventSynchronize(CUevent hEvent)
{
    return cuEventQuery(hEvent);
}

/* As cuda.h says: CUDA_ERROR_INVALID_HANDLE when either event was never
 * recorded or was created with CU_EVENT_DISABLE_TIMING. */
static CUresult event_timing_check(struct CUctx_st *ctx, CUevent event)
{
    CUresult rc = event_check(ctx, event);
    if (rc == CUDA_SUCCESS && (!event->recorded || (event->flags & CU_EVENT_DISABLE_TIMING)))
        rc = CUDA_ERROR_INVALID_HANDLE;
    return rc;
}

EMU_EXPORT CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS && pMilliseconds == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        rc = event_timing_check(ctx, hStart);
    if (rc == CUDA_SUCCESS)
        rc = event_timing_check(ctx, hEnd);
    if (rc == CUDA_SUCCESS)
        *pMilliseconds = (float)(hEnd->clock_ms - hStart->clock_ms);
    return driver_leave(rc);
}
