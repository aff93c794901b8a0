/*
 * Device memory calls: cuMemAlloc, cuMemAllocManaged, cuMemFree, cuMemGetInfo,
 * cuMemGetAddressRange, the copies cuMemcpyHtoD/DtoH/DtoD and cuMemcpy
 * (unified addressing), the memsets cuMemsetD8/D16/D32 and their 2D forms
 * cuMemsetD2D8/D16/D32, and the Async form of each.
 *
 * The virtual GPU is synchronous: an Async call has finished when it
 * returns, like the plain one, which is the same copy in the NULL stream.
 * Its stream is checked as a launch's is (a stream of the current context,
 * or a default stream).
 *
 * Device addresses are host addresses (memory.c), so a copy is a memcpy
 * once the device range has been found inside one live allocation of the
 * current context; a range that is not gets CUDA_ERROR_INVALID_VALUE, never
 * a host crash. Each copy and memset that is made takes its modeled time on
 * its stream's timeline (driver_timeline.c): the link's rate between host
 * and device, the memory's within the device.
 */
#include <string.h>

#include "driver.h"

/* CUDA_ERROR_INVALID_VALUE unless [address, address + bytes) lies inside
 * one allocation of `ctx`. */
static CUresult memory_range_check(struct CUctx_st *ctx, CUdeviceptr address, size_t bytes)
{
    return emu_memory_find(ctx->memory, address, bytes, NULL) ? CUDA_SUCCESS
                                                              : CUDA_ERROR_INVALID_VALUE;
}

static void *memory_host(CUdeviceptr address)
{
    return (void *)(uintptr_t)address;
}

/* cuMemAlloc and cuMemAllocManaged, once `valid` says the caller's flags are. */
static CUresult memory_alloc(CUdeviceptr *dptr, size_t bytesize, enum emu_allocation_kind kind,
                             bool valid)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS && (dptr == NULL || bytesize == 0 || !valid))
        rc = CUDA_ERROR_INVALID_VALUE;
    uint64_t address = 0;
    if (rc == CUDA_SUCCESS)
        rc = emu_memory_alloc(ctx->memory, bytesize, kind, &address);
    if (rc == CUDA_SUCCESS)
        *dptr = (CUdeviceptr)address;
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)
{
    return memory_alloc(dptr, bytesize, EMU_ALLOC_USER, true);
}

/* Managed memory: one pointer that the host and kernels both use. Device
 * memory is host memory here, so that is every allocation; a managed one
 * differs only in what cuPointerGetAttribute says of it and what a fault
 * calls it ("managed buffer"). Nothing migrates, and the attach flags, of
 * which cuda.h wants exactly one, change nothing: every stream's work is
 * done when it is issued. */
EMU_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    bool valid = flags == CU_MEM_ATTACH_GLOBAL || flags == CU_MEM_ATTACH_HOST;
    return memory_alloc(dptr, bytesize, EMU_ALLOC_MANAGED, valid);
}

struct CUctx_st *driver_memory_owner(uint64_t address, struct emu_range *range)
{
    struct CUctx_st *ctx = driver_current();
    if (ctx != NULL && emu_memory_find(ctx->memory, address, 1, range))
        return ctx;
    for (struct driver_handle *c = driver.live[DRIVER_CONTEXT]; c != NULL; c = c->next)
        if (emu_memory_find(((struct CUctx_st *)c)->memory, address, 1, range))
            return (struct CUctx_st *)c;
    return NULL;
}

/* Only what cuMemAlloc or cuMemAllocManaged returned can be freed: not a
 * module's variables, not the device heap, not an address inside an
 * allocation. Freeing 0 does nothing, like free(NULL). With unified
 * addressing the address names its context, which need not be current:
 * numba frees after popping its context (cuda.close()). */
EMU_EXPORT CUresult cuMemFree(CUdeviceptr dptr)
{
    CUresult rc = driver_begin();
    struct emu_range range = {.base = 0};
    struct CUctx_st *ctx = NULL;
    if (rc == CUDA_SUCCESS && dptr != 0)
        ctx = driver_memory_owner(dptr, &range);
    if (rc == CUDA_SUCCESS && ctx == NULL)
        ctx = driver_current(); /* none holds it: the current one answers */
    if (rc == CUDA_SUCCESS && ctx == NULL)
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (rc == CUDA_SUCCESS)
        rc = ctx->sticky;
    if (rc != CUDA_SUCCESS || dptr == 0)
        return driver_leave(rc);
    if (range.base != dptr || (range.kind != EMU_ALLOC_USER && range.kind != EMU_ALLOC_MANAGED))
        return driver_leave(CUDA_ERROR_INVALID_VALUE);
    return driver_leave(emu_memory_free(ctx->memory, dptr));
}

EMU_EXPORT CUresult cuMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS && (free_bytes == NULL || total_bytes == NULL))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS) {
        size_t used;
        emu_memory_usage(ctx->memory, &used, total_bytes);
        *free_bytes = *total_bytes - used;
    }
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    struct emu_range range;
    if (rc == CUDA_SUCCESS && !emu_memory_find(ctx->memory, dptr, 1, &range))
        rc = CUDA_ERROR_NOT_FOUND;
    if (rc == CUDA_SUCCESS && pbase != NULL)
        *pbase = (CUdeviceptr)range.base;
    if (rc == CUDA_SUCCESS && psize != NULL)
        *psize = (size_t)range.size;
    return driver_leave(rc);
}

/* ---------------------------------------------------------------- copies */

/* Begins a copy or a memset in `stream`: takes the lock (the caller ends
 * with driver_leave), finds the context, checks the stream. */
static CUresult memory_begin(CUstream stream, struct CUctx_st **ctx)
{
    CUresult rc = driver_enter(ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS)
        rc = driver_stream_check(*ctx, stream);
    return rc;
}

/* A copy the caller has checked, made and put on the timeline. */
static void memory_copy(struct CUctx_st *ctx, CUstream stream, uint64_t dst, uint64_t src,
                        size_t bytes, bool synchronous)
{
    emu_host_copy(memory_host(dst), memory_host(src), bytes);
    driver_timeline_copy(ctx, stream, dst, src, bytes, synchronous);
}

static CUresult memory_htod(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
                            CUstream stream, bool synchronous)
{
    struct CUctx_st *ctx;
    CUresult rc = memory_begin(stream, &ctx);
    if (rc != CUDA_SUCCESS || ByteCount == 0)
        return driver_leave(rc);
    if (srcHost == NULL)
        return driver_leave(CUDA_ERROR_INVALID_VALUE);
    rc = memory_range_check(ctx, dstDevice, ByteCount);
    if (rc == CUDA_SUCCESS)
        memory_copy(ctx, stream, dstDevice, (uintptr_t)srcHost, ByteCount, synchronous);
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
                                      CUstream hStream)
{
    return memory_htod(dstDevice, srcHost, ByteCount, hStream, false);
}

EMU_EXPORT CUresult cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    return memory_htod(dstDevice, srcHost, ByteCount, NULL, true);
}

static CUresult memory_dtoh(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream stream,
                            bool synchronous)
{
    struct CUctx_st *ctx;
    CUresult rc = memory_begin(stream, &ctx);
    if (rc != CUDA_SUCCESS || ByteCount == 0)
        return driver_leave(rc);
    if (dstHost == NULL)
        return driver_leave(CUDA_ERROR_INVALID_VALUE);
    rc = memory_range_check(ctx, srcDevice, ByteCount);
    if (rc == CUDA_SUCCESS)
        memory_copy(ctx, stream, (uintptr_t)dstHost, srcDevice, ByteCount, synchronous);
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                      CUstream hStream)
{
    return memory_dtoh(dstHost, srcDevice, ByteCount, hStream, false);
}

EMU_EXPORT CUresult cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    return memory_dtoh(dstHost, srcDevice, ByteCount, NULL, true);
}

/* Overlapping ranges are copied as memmove does (CUDA leaves them
 * undefined). The host never waits for a copy within device memory. */
EMU_EXPORT CUresult cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                      size_t ByteCount, CUstream hStream)
{
    struct CUctx_st *ctx;
    CUresult rc = memory_begin(hStream, &ctx);
    if (rc != CUDA_SUCCESS || ByteCount == 0)
        return driver_leave(rc);
    rc = memory_range_check(ctx, dstDevice, ByteCount);
    if (rc == CUDA_SUCCESS)
        rc = memory_range_check(ctx, srcDevice, ByteCount);
    if (rc == CUDA_SUCCESS) {
        memmove(memory_host(dstDevice), memory_host(srcDevice), ByteCount);
        driver_timeline_copy(ctx, hStream, dstDevice, srcDevice, ByteCount, false);
    }
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
    return cuMemcpyDtoDAsync(dstDevice, srcDevice, ByteCount, NULL);
}

/* Under unified addressing a pointer is device memory when it lies in an
 * allocation, else host memory. A range that begins or ends inside an
 * allocation must lie wholly in it; a null pointer is neither. */
static CUresult memory_unified_check(struct CUctx_st *ctx, CUdeviceptr address, size_t bytes)
{
    if (address == 0 || address + bytes < address)
        return CUDA_ERROR_INVALID_VALUE;
    if (emu_memory_find(ctx->memory, address, bytes, NULL))
        return CUDA_SUCCESS;
    bool touches_device = emu_memory_find(ctx->memory, address, 1, NULL) ||
                          emu_memory_find(ctx->memory, address + bytes - 1, 1, NULL);
    return touches_device ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

/* Device and host addresses are both host addresses here, so any pair is
 * one memmove once each side has been checked. */
static CUresult memory_unified(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream stream,
                               bool synchronous)
{
    struct CUctx_st *ctx;
    CUresult rc = memory_begin(stream, &ctx);
    if (rc != CUDA_SUCCESS || ByteCount == 0)
        return driver_leave(rc);
    rc = memory_unified_check(ctx, dst, ByteCount);
    if (rc == CUDA_SUCCESS)
        rc = memory_unified_check(ctx, src, ByteCount);
    if (rc == CUDA_SUCCESS) {
        memmove(memory_host(dst), memory_host(src), ByteCount);
        driver_timeline_copy(ctx, stream, dst, src, ByteCount, synchronous);
    }
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
                                  CUstream hStream)
{
    return memory_unified(dst, src, ByteCount, hStream, false);
}

EMU_EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
    return memory_unified(dst, src, ByteCount, NULL, true);
}

/* --------------------------------------------- copies made in parts */

CUresult driver_own_range(CUdeviceptr address, size_t bytes, struct emu_range *range)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_IGNORE_STICKY);
    if (rc == CUDA_SUCCESS && bytes > 0 &&
        (!emu_memory_find(ctx->memory, address, bytes, range) || range->kind == EMU_ALLOC_HOST))
        rc = CUDA_ERROR_INVALID_VALUE;
    return driver_leave(rc);
}

CUresult driver_own_allocations(struct emu_range **ranges, size_t *count)
{
    struct CUctx_st *ctx;
    *ranges = NULL;
    *count = 0;
    CUresult rc = driver_enter(&ctx, DRIVER_IGNORE_STICKY);
    if (rc == CUDA_SUCCESS && !emu_memory_list(ctx->memory, ranges, count))
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    return driver_leave(rc);
}

CUresult driver_own_range_check(CUdeviceptr address, size_t bytes)
{
    struct emu_range range;
    return driver_own_range(address, bytes, &range);
}

CUresult driver_copy_part(CUstream stream, CUdeviceptr device, void *host, size_t bytes,
                          bool to_device, struct emu_hash *hash, struct emu_chunker *chunks)
{
    struct CUctx_st *ctx;
    CUresult rc = memory_begin(stream, &ctx);
    if (rc == CUDA_SUCCESS)
        rc = memory_range_check(ctx, device, bytes);
    if (rc == CUDA_SUCCESS && to_device)
        emu_host_copy(memory_host(device), host, bytes);
    else if (rc == CUDA_SUCCESS)
        emu_host_copy(host, memory_host(device), bytes);
    if (rc == CUDA_SUCCESS && hash != NULL)
        emu_hash_add(hash, memory_host(device), bytes);
    if (rc == CUDA_SUCCESS && chunks != NULL)
        emu_chunker_add(chunks, memory_host(device), bytes);
    return driver_leave(rc);
}

CUresult driver_copy_charge(CUstream stream, CUdeviceptr device, const void *host, size_t bytes,
                            bool to_device, bool synchronous)
{
    struct CUctx_st *ctx;
    CUresult rc = memory_begin(stream, &ctx);
    uint64_t host_address = (uintptr_t)host;
    if (rc == CUDA_SUCCESS && bytes > 0)
        driver_timeline_copy(ctx, stream, to_device ? device : host_address,
                             to_device ? host_address : device, bytes, synchronous);
    return driver_leave(rc);
}

/* -------------------------------------------------------------- memsets */

/* Fills `bytes` at `dst` with copies of the `width`-byte `element`: with
 * memset when the element is one byte repeated (every byte equals the
 * next: cuMemsetD8, and zeroing), which is the fastest; otherwise by
 * copying what is filled onto what follows, doubling it each time. */
static void memory_fill(unsigned char *dst, const unsigned char *element, size_t width,
                        size_t bytes)
{
    if (memcmp(element, element + 1, width - 1) == 0) {
        emu_host_set(dst, element[0], bytes);
        return;
    }
    memcpy(dst, element, width);
    for (size_t filled = width; filled < bytes; filled *= 2)
        memcpy(dst + filled, dst, filled < bytes - filled ? filled : bytes - filled);
}

/* A memset of `height` rows of `count` elements of `width` bytes, `pitch`
 * bytes apart, at `dst` (one row: cuMemsetD8/D16/D32).
 * The rows, each element aligned, must lie inside one allocation. */
struct memory_set_shape {
    size_t width; /* of an element: 1, 2 or 4 bytes */
    size_t count; /* elements a row */
    size_t height;
    size_t pitch;
};

static CUresult memory_set_check(struct CUctx_st *ctx, CUdeviceptr dst,
                                 const struct memory_set_shape *s)
{
    if (dst % s->width != 0 || s->count > SIZE_MAX / s->width)
        return CUDA_ERROR_INVALID_VALUE;
    size_t row = s->count * s->width;
    if (s->height > 1 &&
        (s->pitch < row || s->pitch % s->width != 0 || s->height - 1 > (SIZE_MAX - row) / s->pitch))
        return CUDA_ERROR_INVALID_VALUE;
    return memory_range_check(ctx, dst, (s->height - 1) * s->pitch + row);
}

static CUresult memory_set(CUdeviceptr dst, const void *element, const struct memory_set_shape *s,
                           CUstream stream)
{
    struct CUctx_st *ctx;
    CUresult rc = memory_begin(stream, &ctx);
    if (rc != CUDA_SUCCESS || s->count == 0 || s->height == 0)
        return driver_leave(rc);
    rc = memory_set_check(ctx, dst, s);
    for (size_t y = 0; rc == CUDA_SUCCESS && y < s->height; y++)
        memory_fill(memory_host(dst + y * s->pitch), element, s->width, s->count * s->width);
    if (rc == CUDA_SUCCESS)
        driver_timeline_memset(ctx, stream, (uint64_t)s->height * s->count * s->width);
    return driver_leave(rc);
}

/* cuMemsetD8/D16/D32 and their Async forms: `count` elements. */
#define MEMSET_1D(width_bytes, count_)                                                             \
    (&(struct memory_set_shape){.width = (width_bytes), .count = (count_), .height = 1, .pitch = 0})
/* cuMemsetD2D8/D16/D32 and their Async forms: `height` rows of `count`. */
#define MEMSET_2D(width_bytes, pitch_, count_, height_)                                            \
    (&(struct memory_set_shape){                                                                   \
        .width = (width_bytes), .count = (count_), .height = (height_), .pitch = (pitch_)})

EMU_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N,
                                    CUstream hStream)
{
    return memory_set(dstDevice, &uc, MEMSET_1D(sizeof uc, N), hStream);
}

EMU_EXPORT CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N,
                                     CUstream hStream)
{
    return memory_set(dstDevice, &us, MEMSET_1D(sizeof us, N), hStream);
}

EMU_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N,
                                     CUstream hStream)
{
    return memory_set(dstDevice, &ui, MEMSET_1D(sizeof ui, N), hStream);
}

EMU_EXPORT CUresult cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    return cuMemsetD8Async(dstDevice, uc, N, NULL);
}

EMU_EXPORT CUresult cuMemsetD16(CUdeviceptr dstDevice, unsigned short us, size_t N)
{
    return cuMemsetD16Async(dstDevice, us, N, NULL);
}

EMU_EXPORT CUresult cuMemsetD32(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
    return cuMemsetD32Async(dstDevice, ui, N, NULL);
}

EMU_EXPORT CUresult cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
                                      size_t Width, size_t Height, CUstream hStream)
{
    return memory_set(dstDevice, &uc, MEMSET_2D(sizeof uc, dstPitch, Width, Height), hStream);
}

EMU_EXPORT CUresult cuMemsetD2D16Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
                                       size_t Width, size_t Height, CUstream hStream)
{
    return memory_set(dstDevice, &us, MEMSET_2D(sizeof us, dstPitch, Width, Height), hStream);
}

EMU_EXPORT CUresult cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
                                       size_t Width, size_t Height, CUstream hStream)
{
    return memory_set(dstDevice, &ui, MEMSET_2D(sizeof ui, dstPitch, Width, Height), hStream);
}

EMU_EXPORT CUresult cuMemsetD2D8(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
                                 size_t Width, size_t Height)
{
    return cuMemsetD2D8Async(dstDevice, dstPitch, uc, Width, Height, NULL);
}

EMU_EXPORT CUresult cuMemsetD2D16(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
                                  size_t Width, size_t Height)
{
    return cuMemsetD2D16Async(dstDevice, dstPitch, us, Width, Height, NULL);
}

EMU_EXPORT CUresult cuMemsetD2D32(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
                                  size_t Width, size_t Height)
{
    return cuMemsetD2D32Async(dstDevice, dstPitch, ui, Width, Height, NULL);
}
