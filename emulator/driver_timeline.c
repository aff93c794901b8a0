/*
 * The modeled device timeline of a context: where each piece of stream
 * work would run on the modeled GPU, and so what events record.
 *
 * The virtual GPU does every piece of work inside the call that issues it
 * (driver.h); the timeline says when the modeled GPU would have done it. A
 * piece of work starts at the latest of: the end of its stream's earlier
 * work; for the legacy NULL stream, the end of all earlier work in blocking
 * streams, and for a blocking stream the end of the NULL stream's earlier
 * work (cuda.h's "stream synchronization behavior"; CU_STREAM_NON_BLOCKING
 * streams are free of both); the moment its engine is free; an event it
 * waits for (cuStreamWaitEvent); and the point the host has waited for,
 * since the host cannot issue work before it returns from a wait. It ends
 * its duration later. Engines: kernels run one at a time (each kernel's
 * modeled time assumes the whole GPU); copies run on three copy engines,
 * one each way over the link and one inside device memory, each one copy
 * at a time, and overlap kernels and each other.
 *
 * The host's own time is not modeled: between two waits it issues work in
 * no time. CU_STREAM_PER_THREAD is one stream per context here, shared by
 * the host threads (a GPU has one per host thread).
 */
#include <math.h>

#include "driver.h"

#define PS_PER_MS 1e9
#define PS_PER_S  1e12
#define PS_PER_US 1e6

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

double driver_timeline_ms(int64_t interval)
{
    return (double)interval / PS_PER_MS;
}

static int64_t timeline_ps(double seconds)
{
    return (int64_t)llround(seconds * PS_PER_S);
}

static bool stream_is_legacy(CUstream stream)
{
    return stream == NULL || stream == CU_STREAM_LEGACY;
}

/* Whether the legacy NULL stream orders `stream`'s work: every stream but
 * the non-blocking ones (the per-thread default stream is blocking). */
static bool stream_is_blocking(CUstream stream)
{
    return stream == CU_STREAM_PER_THREAD || (stream->flags & CU_STREAM_NON_BLOCKING) == 0;
}

static int64_t *stream_end(struct driver_timeline *t, CUstream stream)
{
    if (stream_is_legacy(stream))
        return &t->legacy_end;
    if (stream == CU_STREAM_PER_THREAD)
        return &t->per_thread_end;
    return &stream->end;
}

int64_t driver_timeline_stream_point(struct CUctx_st *ctx, CUstream stream)
{
    struct driver_timeline *t = &ctx->timeline;
    int64_t point = *stream_end(t, stream);
    if (stream_is_legacy(stream))
        return max64(point, t->blocking_end);
    return stream_is_blocking(stream) ? max64(point, t->legacy_end) : point;
}

int64_t driver_timeline_place(struct CUctx_st *ctx, CUstream stream, enum driver_engine engine,
                              int64_t duration, int64_t after)
{
    struct driver_timeline *t = &ctx->timeline;
    int64_t start = max64(max64(driver_timeline_stream_point(ctx, stream), t->host), after);
    if (engine != DRIVER_ENGINE_NONE)
        start = max64(start, t->engine_free[engine]);
    int64_t end = start + duration;
    if (engine != DRIVER_ENGINE_NONE)
        t->engine_free[engine] = end;
    *stream_end(t, stream) = end;
    if (stream_is_legacy(stream) || stream_is_blocking(stream))
        t->blocking_end = max64(t->blocking_end, end);
    t->queued_end = max64(t->queued_end, end);
    return end;
}

void driver_timeline_host_waits(struct CUctx_st *ctx, int64_t point)
{
    ctx->timeline.host = max64(ctx->timeline.host, point);
}

void driver_timeline_kernel(struct CUctx_st *ctx, CUstream stream, double elapsed_ms)
{
    int64_t duration = (int64_t)llround(elapsed_ms * PS_PER_MS);
    driver_timeline_place(ctx, stream, DRIVER_ENGINE_COMPUTE, duration, 0);
}

/* ----------------------------------------------------------- transfers */

/* What one end of a copy is, which sets its engine and rate. */
enum copy_end {
    END_DEVICE,   /* device memory: cuMemAlloc'ed, managed, an array, a module variable */
    END_PINNED,   /* page-locked host memory (driver_host_memory.c) */
    END_PAGEABLE, /* any other host memory */
};

/* Device memory or pinned host memory when the context's table holds the
 * byte at `address`, else pageable host memory. */
static enum copy_end copy_end_of(struct CUctx_st *ctx, uint64_t address)
{
    struct emu_range range;
    if (!emu_memory_find(ctx->memory, address, 1, &range))
        return END_PAGEABLE;
    return range.kind == EMU_ALLOC_HOST ? END_PINNED : END_DEVICE;
}

/* Bytes a second through device memory: a copy reaches the timing model's
 * fraction of the DRAM peak, as a kernel's copy does. */
static double memory_rate(const struct emu_device_model *d)
{
    return d->dram_bytes_per_second * d->timing.dram_efficiency;
}

/* The seconds a copy of `bytes` spends on the link, whose host end is
 * `host`: a pageable one is first copied into a pinned staging buffer. */
static double link_seconds(const struct emu_link_model *link, enum copy_end host, uint64_t bytes)
{
    double seconds = (double)bytes / link->pinned_bytes_per_second;
    if (host == END_PAGEABLE)
        seconds += (double)bytes / link->staging_bytes_per_second;
    return seconds;
}

static int64_t with_latency(const struct emu_device_model *d, double seconds)
{
    return timeline_ps(seconds) + (int64_t)llround(d->link.copy_latency_us * PS_PER_US);
}

void driver_timeline_copy(struct CUctx_st *ctx, CUstream stream, uint64_t dst_address,
                          uint64_t src_address, uint64_t bytes, bool synchronous)
{
    const struct emu_device_model *d = driver.device;
    enum copy_end dst = copy_end_of(ctx, dst_address), src = copy_end_of(ctx, src_address);
    bool to_device = dst == END_DEVICE, from_device = src == END_DEVICE;
    enum driver_engine engine = DRIVER_ENGINE_NONE; /* host to host: not the device's work */
    int64_t duration = 0;
    if (to_device && from_device) {
        engine = DRIVER_ENGINE_DEVICE;
        duration = with_latency(d, 2.0 * (double)bytes / memory_rate(d)); /* read and write */
    } else if (to_device || from_device) {
        engine = to_device ? DRIVER_ENGINE_HTOD : DRIVER_ENGINE_DTOH;
        duration = with_latency(d, link_seconds(&d->link, to_device ? src : dst, bytes));
    }
    int64_t end = driver_timeline_place(ctx, stream, engine, duration, 0);
    bool host_end = !to_device || !from_device;
    if (dst == END_PAGEABLE || src == END_PAGEABLE || (synchronous && host_end))
        driver_timeline_host_waits(ctx, end);
}

void driver_timeline_memset(struct CUctx_st *ctx, CUstream stream, uint64_t bytes)
{
    const struct emu_device_model *d = driver.device;
    int64_t duration = with_latency(d, (double)bytes / memory_rate(d));
    driver_timeline_place(ctx, stream, DRIVER_ENGINE_DEVICE, duration, 0);
}
