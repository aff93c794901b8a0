/*
 * Streams and events.
 *
 * Every call runs to completion before it returns, so synchronizing and
 * querying find nothing pending and report just the sticky fault; what
 * they change is the modeled timeline (driver_timeline.c): the host has
 * now waited for the point they waited for, and work issued later starts
 * after it. An event records a point of its stream's timeline: where the
 * work issued to the stream before it ends. cuEventElapsedTime subtracts
 * two points; with no work between two events of one stream it is exactly
 * 0. cuStreamWaitEvent makes the stream's later work start after the
 * event's point.
 */
#include <stdlib.h>
#include <string.h>

#include "driver.h"

#define EVENT_FLAGS (CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS)

void driver_streams_events_release(struct CUctx_st *ctx)
{
    driver_handle_remove_if(DRIVER_STREAM, driver_handle_owned_by, ctx, driver_handle_free);
    driver_handle_remove_if(DRIVER_EVENT, driver_handle_owned_by, ctx, driver_handle_free);
}

/* ------------------------------------------------------------- handles */

/* cuStreamCreate and cuEventCreate: `*created` gets a copy of `initial`
 * (`size` bytes that begin with a driver_handle) owned by the current
 * context, once `flags_valid` says the caller's flags are. `created` is the
 * caller's CUstream * or CUevent * (object pointers share one
 * representation, and the build has -fno-strict-aliasing). */
static CUresult handle_create(enum driver_kind kind, const void *initial, size_t size,
                              bool flags_valid, void **created)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS && (created == NULL || !flags_valid))
        rc = CUDA_ERROR_INVALID_VALUE;
    struct driver_handle *handle = NULL;
    if (rc == CUDA_SUCCESS && (handle = malloc(size)) == NULL)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (rc == CUDA_SUCCESS) {
        memcpy(handle, initial, size);
        driver_handle_add(kind, handle, ctx);
        *created = handle;
    }
    return driver_leave(rc);
}

/* cuStreamDestroy and cuEventDestroy: `handle` must be a live stream or
 * event, of any context (driver_enter_owner). */
static CUresult handle_destroy(enum driver_kind kind, void *handle)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter_owner(kind, handle, &ctx);
    if (rc == CUDA_SUCCESS) {
        driver_handle_remove(kind, handle);
        free(handle);
    }
    return driver_leave(rc);
}

/* ---------------------------------------------------------------- streams */

CUresult driver_stream_check(struct CUctx_st *ctx, CUstream stream)
{
    if (stream == NULL || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD)
        return CUDA_SUCCESS;
    return driver_handle_check(DRIVER_STREAM, stream, ctx);
}

EMU_EXPORT CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    struct CUstream_st initial = {.flags = Flags};
    bool flags_valid = (Flags & ~CU_STREAM_NON_BLOCKING) == 0;
    return handle_create(DRIVER_STREAM, &initial, sizeof initial, flags_valid, (void **)phStream);
}

/* Only a stream that was created, not a default one. */
EMU_EXPORT CUresult cuStreamDestroy(CUstream hStream)
{
    return handle_destroy(DRIVER_STREAM, hStream);
}

/* The host waits for the point an event recorded on the stream now would
 * record. A query that finds the work done (always, here) has waited too. */
EMU_EXPORT CUresult cuStreamSynchronize(CUstream hStream)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS)
        rc = driver_stream_check(ctx, hStream);
    if (rc == CUDA_SUCCESS)
        driver_timeline_host_waits(ctx, driver_timeline_stream_point(ctx, hStream));
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuStreamQuery(CUstream hStream)
{
    return cuStreamSynchronize(hStream);
}

/* The stream's later work starts after the event's point (an event never
 * recorded is complete: nothing to wait for). */
EMU_EXPORT CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS)
        rc = driver_stream_check(ctx, hStream);
    if (rc == CUDA_SUCCESS)
        rc = driver_handle_check(DRIVER_EVENT, hEvent, ctx);
    if (rc == CUDA_SUCCESS && (Flags & ~CU_EVENT_WAIT_EXTERNAL) != 0)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS && hEvent->recorded)
        driver_timeline_place(ctx, hStream, DRIVER_ENGINE_NONE, 0, hEvent->point);
    return driver_leave(rc);
}

/* ----------------------------------------------------------------- events */

/* Known flags only, and an interprocess event must not time (cuda.h). */
static bool event_flags_valid(unsigned flags)
{
    if ((flags & ~EVENT_FLAGS) != 0)
        return false;
    return (flags & CU_EVENT_INTERPROCESS) == 0 || (flags & CU_EVENT_DISABLE_TIMING) != 0;
}

EMU_EXPORT CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    struct CUevent_st initial = {.flags = Flags};
    return handle_create(DRIVER_EVENT, &initial, sizeof initial, event_flags_valid(Flags),
                         (void **)phEvent);
}

EMU_EXPORT CUresult cuEventDestroy(CUevent hEvent)
{
    return handle_destroy(DRIVER_EVENT, hEvent);
}

EMU_EXPORT CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS)
        rc = driver_handle_check(DRIVER_EVENT, hEvent, ctx);
    if (rc == CUDA_SUCCESS)
        rc = driver_stream_check(ctx, hStream);
    if (rc == CUDA_SUCCESS) {
        hEvent->recorded = true;
        hEvent->point = driver_timeline_place(ctx, hStream, DRIVER_ENGINE_NONE, 0, 0);
    }
    return driver_leave(rc);
}

/* Complete as soon as recorded, and an event never recorded is complete
 * too; the host has then waited for its point. */
EMU_EXPORT CUresult cuEventQuery(CUevent hEvent)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS)
        rc = driver_handle_check(DRIVER_EVENT, hEvent, ctx);
    if (rc == CUDA_SUCCESS && hEvent->recorded)
        driver_timeline_host_waits(ctx, hEvent->point);
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
    CUresult rc = driver_handle_check(DRIVER_EVENT, event, ctx);
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
        *pMilliseconds = (float)driver_timeline_ms(hEnd->point - hStart->point);
    return driver_leave(rc);
}
