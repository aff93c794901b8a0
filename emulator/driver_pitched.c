/*
 * Pitched memory and the copies that take pitches: cuMemAllocPitch,
 * cuMemcpy2D, cuMemcpy2DUnaligned, cuMemcpy2DAsync, cuMemcpy3D,
 * cuMemcpy3DAsync, and the copies to and from arrays by offset
 * (cuMemcpyHtoA, cuMemcpyAtoH, cuMemcpyDtoA, cuMemcpyAtoD, cuMemcpyAtoA,
 * cuMemcpyHtoAAsync, cuMemcpyAtoHAsync).
 *
 * Every copy is one engine: a box of WidthInBytes × Height × Depth bytes
 * from one end to the other, where an end is host memory, device memory or
 * a CUDA array, each with its own pitch (bytes between rows) and slice
 * height. An end is checked as the real driver checks it before a byte
 * moves: a pitch at least its x offset plus the width and at most
 * CU_DEVICE_ATTRIBUTE_MAX_PITCH, a slice height at least its y offset plus
 * the height, an array's x a whole number of texels and the box inside the
 * array, LODs zero; and device memory's whole box inside one live
 * allocation, so that no copy reaches outside device memory (host pointers
 * are the program's own, as on a GPU). Anything else is
 * CUDA_ERROR_INVALID_VALUE, or CUDA_ERROR_INVALID_HANDLE for an array that
 * is not a live array of the context. Rows are moved with memmove, so
 * overlapping device ranges copy as if through a buffer.
 *
 * The driver is synchronous: the Async forms check their stream and copy
 * at once. Each copy takes its modeled time on its stream's timeline
 * (driver_timeline.c), by what its ends' first bytes are (device or host
 * memory, pinned or not), for the box's bytes.
 */
#include <string.h>

#include "driver.h"

#define PITCH_ALIGNMENT 512 /* cuMemAllocPitch's rows, as a GPU's */

/* One end of a copy, as the program describes it. */
struct copy_side {
    CUmemorytype type;
    const void *host;
    CUdeviceptr device;
    CUarray array;
    size_t x, y, z, pitch, height;
    size_t lod;
};

/* The box to copy, in bytes, rows and slices. */
struct copy_box {
    size_t width, height, depth;
};

/* Where an end's first byte is, and how far apart its rows and slices are. */
struct copy_end {
    uint8_t *start;
    size_t pitch, slice;
};

static bool add_ok(size_t a, size_t b, size_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}

static bool mul_add_ok(size_t a, size_t b, size_t c, size_t *out)
{
    size_t product;
    return !__builtin_mul_overflow(a, b, &product) && add_ok(product, c, out);
}

/* An array end: x in whole texels, the box inside the array (z counts
 * slices of a 3D array or layers of a layered one). */
static CUresult resolve_array(struct CUctx_st *ctx, const struct copy_side *s,
                              const struct copy_box *box, struct copy_end *out)
{
    if (driver_handle_check(DRIVER_ARRAY, s->array, ctx) != CUDA_SUCCESS)
        return CUDA_ERROR_INVALID_HANDLE;
    const struct emu_image *a = &s->array->image;
    size_t row = (size_t)a->width * a->format.bytes, slices = (size_t)a->depth * a->layers, end;
    if (s->x % a->format.bytes != 0 || !add_ok(s->x, box->width, &end) || end > row ||
        !add_ok(s->y, box->height, &end) || end > a->height || !add_ok(s->z, box->depth, &end) ||
        end > slices)
        return CUDA_ERROR_INVALID_VALUE;
    out->pitch = a->pitch;
    out->slice = a->depth > 1 ? a->slice_bytes : a->layer_bytes;
    out->start = (uint8_t *)(uintptr_t)(a->base + s->z * out->slice + s->y * a->pitch + s->x);
    return CUDA_SUCCESS;
}

/* A host or device end: its pitch and slice height hold the box; device
 * memory's box lies inside one allocation. Pitches matter only when the
 * box has more than one row, slice heights when it has more than one
 * slice. A unified address (cudaMemcpyDefault) is device memory when an
 * allocation holds it and the host's otherwise, as on a GPU with unified
 * addressing. */
static CUresult resolve_linear(struct CUctx_st *ctx, const struct copy_side *s,
                               const struct copy_box *box, struct copy_end *out)
{
    bool rows = box->height > 1 || box->depth > 1, slices = box->depth > 1;
    size_t end, rows_before, offset, last_slice, extent;
    if (rows && (!add_ok(s->x, box->width, &end) || s->pitch < end ||
                 s->pitch > (size_t)driver_attribute(CU_DEVICE_ATTRIBUTE_MAX_PITCH)))
        return CUDA_ERROR_INVALID_VALUE;
    if (slices && (!add_ok(s->y, box->height, &end) || s->height < end))
        return CUDA_ERROR_INVALID_VALUE;
    out->pitch = s->pitch;
    if (!mul_add_ok(s->pitch, s->height, 0, &out->slice) ||
        !mul_add_ok(s->z, s->height, s->y, &rows_before) ||
        !mul_add_ok(rows_before, s->pitch, s->x, &offset) ||
        !mul_add_ok(box->depth - 1, out->slice, 0, &last_slice) ||
        !mul_add_ok(box->height - 1, s->pitch, last_slice, &extent) ||
        !add_ok(extent, box->width, &extent))
        return CUDA_ERROR_INVALID_VALUE;
    const void *host = s->type == CU_MEMORYTYPE_HOST ? s->host : NULL;
    size_t first;
    if (s->type == CU_MEMORYTYPE_UNIFIED && !emu_memory_find(ctx->memory, s->device, 1, NULL))
        host = (const void *)(uintptr_t)s->device; /* not device memory: the host's */
    if (host != NULL || s->type == CU_MEMORYTYPE_HOST) {
        out->start = (uint8_t *)(uintptr_t)host + offset;
        return host != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    }
    if (s->device == 0 || !add_ok(s->device, offset, &first) ||
        !emu_memory_find(ctx->memory, first, extent, NULL))
        return CUDA_ERROR_INVALID_VALUE;
    out->start = (uint8_t *)(uintptr_t)first;
    return CUDA_SUCCESS;
}

static CUresult copy_resolve(struct CUctx_st *ctx, const struct copy_side *s,
                             const struct copy_box *box, struct copy_end *out)
{
    if (s->lod != 0)
        return CUDA_ERROR_INVALID_VALUE;
    switch (s->type) {
    case CU_MEMORYTYPE_ARRAY:
        return resolve_array(ctx, s, box, out);
    case CU_MEMORYTYPE_HOST:
    case CU_MEMORYTYPE_DEVICE:
    case CU_MEMORYTYPE_UNIFIED:
        return resolve_linear(ctx, s, box, out);
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

static void copy_rows(const struct copy_end *dst, const struct copy_end *src,
                      const struct copy_box *box)
{
    for (size_t z = 0; z < box->depth; z++)
        for (size_t y = 0; y < box->height; y++)
            memmove(dst->start + z * dst->slice + y * dst->pitch,
                    src->start + z * src->slice + y * src->pitch, box->width);
}

/* Checks both ends, then copies, in `stream` (a synchronous copy's: NULL);
 * the caller holds the driver. */
static CUresult copy_box(struct CUctx_st *ctx, const struct copy_side *dst,
                         const struct copy_side *src, const struct copy_box *box, bool async,
                         CUstream stream)
{
    if (box->width == 0 || box->height == 0 || box->depth == 0)
        return CUDA_SUCCESS;
    struct copy_end from, to;
    CUresult rc = copy_resolve(ctx, src, box, &from);
    if (rc == CUDA_SUCCESS)
        rc = copy_resolve(ctx, dst, box, &to);
    if (rc != CUDA_SUCCESS)
        return rc;
    copy_rows(&to, &from, box);
    driver_timeline_copy(ctx, stream, (uintptr_t)to.start, (uintptr_t)from.start,
                         (uint64_t)box->width * box->height * box->depth, !async);
    return CUDA_SUCCESS;
}

/* Enters the driver, checks `stream` when `async`, copies. A NULL box is
 * a descriptor that is NULL or not as cuda.h wants it (reserved fields):
 * CUDA_ERROR_INVALID_VALUE. */
static CUresult copy_call(const struct copy_side *dst, const struct copy_side *src,
                          const struct copy_box *box, bool async, CUstream stream)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS && async)
        rc = driver_stream_check(ctx, stream);
    if (rc == CUDA_SUCCESS)
        rc = box != NULL ? copy_box(ctx, dst, src, box, async, stream) : CUDA_ERROR_INVALID_VALUE;
    return driver_leave(rc);
}

/* -------------------------------------------------------------- 2D and 3D */

static CUresult copy_3d(const CUDA_MEMCPY3D *c, bool async, CUstream stream)
{
    if (c == NULL || c->reserved0 != NULL || c->reserved1 != NULL)
        return copy_call(NULL, NULL, NULL, async, stream);
    struct copy_side src = {c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray,
                            c->srcXInBytes,   c->srcY,    c->srcZ,      c->srcPitch,
                            c->srcHeight,     c->srcLOD};
    struct copy_side dst = {c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray,
                            c->dstXInBytes,   c->dstY,    c->dstZ,      c->dstPitch,
                            c->dstHeight,     c->dstLOD};
    struct copy_box box = {c->WidthInBytes, c->Height, c->Depth};
    return copy_call(&dst, &src, &box, async, stream);
}

static CUresult copy_2d(const CUDA_MEMCPY2D *c, bool async, CUstream stream)
{
    if (c == NULL)
        return copy_3d(NULL, async, stream);
    CUDA_MEMCPY3D d = {
        .srcXInBytes = c->srcXInBytes,
        .srcY = c->srcY,
        .srcMemoryType = c->srcMemoryType,
        .srcHost = c->srcHost,
        .srcDevice = c->srcDevice,
        .srcArray = c->srcArray,
        .srcPitch = c->srcPitch,
        .dstXInBytes = c->dstXInBytes,
        .dstY = c->dstY,
        .dstMemoryType = c->dstMemoryType,
        .dstHost = c->dstHost,
        .dstDevice = c->dstDevice,
        .dstArray = c->dstArray,
        .dstPitch = c->dstPitch,
        .WidthInBytes = c->WidthInBytes,
        .Height = c->Height,
        .Depth = 1,
    };
    return copy_3d(&d, async, stream);
}

EMU_EXPORT CUresult cuMemcpy2D(const CUDA_MEMCPY2D *pCopy)
{
    return copy_2d(pCopy, false, NULL);
}

/* The virtual GPU has no alignment restrictions for cuMemcpy2D to lift. */
EMU_EXPORT CUresult cuMemcpy2DUnaligned(const CUDA_MEMCPY2D *pCopy)
{
    return copy_2d(pCopy, false, NULL);
}

EMU_EXPORT CUresult cuMemcpy2DAsync(const CUDA_MEMCPY2D *pCopy, CUstream hStream)
{
    return copy_2d(pCopy, true, hStream);
}

EMU_EXPORT CUresult cuMemcpy3D(const CUDA_MEMCPY3D *pCopy)
{
    return copy_3d(pCopy, false, NULL);
}

EMU_EXPORT CUresult cuMemcpy3DAsync(const CUDA_MEMCPY3D *pCopy, CUstream hStream)
{
    return copy_3d(pCopy, true, hStream);
}

/* ------------------------------------------------------- arrays by offset */

/* An end of a copy by offset: host or device memory, or an array's bytes
 * from `offset` (its texels row by row, as driver_array.c lays them out). */
struct offset_end {
    CUmemorytype type;
    const void *host;
    CUdeviceptr device;
    CUarray array;
    size_t offset;
};

/* The side of a one-row copy of `count` bytes: an array's bytes become the
 * device memory they are, after checking they lie inside the array. */
static CUresult offset_side(struct CUctx_st *ctx, const struct offset_end *e, size_t count,
                            struct copy_side *out)
{
    memset(out, 0, sizeof *out);
    out->type = e->type;
    out->host = e->host;
    out->device = e->device;
    if (e->type != CU_MEMORYTYPE_ARRAY)
        return CUDA_SUCCESS;
    if (driver_handle_check(DRIVER_ARRAY, e->array, ctx) != CUDA_SUCCESS)
        return CUDA_ERROR_INVALID_HANDLE;
    const struct emu_image *a = &e->array->image;
    size_t end;
    if (!add_ok(e->offset, count, &end) || end > a->span)
        return CUDA_ERROR_INVALID_VALUE;
    out->type = CU_MEMORYTYPE_DEVICE;
    out->device = a->base + e->offset;
    return CUDA_SUCCESS;
}

static CUresult copy_offsets(struct offset_end dst, struct offset_end src, size_t count, bool async,
                             CUstream stream)
{
    struct CUctx_st *ctx;
    struct copy_side to, from;
    struct copy_box box = {count, 1, 1};
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS && async)
        rc = driver_stream_check(ctx, stream);
    if (rc == CUDA_SUCCESS)
        rc = offset_side(ctx, &dst, count, &to);
    if (rc == CUDA_SUCCESS)
        rc = offset_side(ctx, &src, count, &from);
    if (rc == CUDA_SUCCESS)
        rc = copy_box(ctx, &to, &from, &box, async, stream);
    return driver_leave(rc);
}

#define HOST_END(pointer)   ((struct offset_end){.type = CU_MEMORYTYPE_HOST, .host = (pointer)})
#define DEVICE_END(address) ((struct offset_end){.type = CU_MEMORYTYPE_DEVICE, .device = (address)})
#define ARRAY_END(handle, at_byte)                                                                 \
    ((struct offset_end){.type = CU_MEMORYTYPE_ARRAY, .array = (handle), .offset = (at_byte)})

EMU_EXPORT CUresult cuMemcpyHtoA(CUarray dstArray, size_t dstOffset, const void *srcHost,
                                 size_t ByteCount)
{
    return copy_offsets(ARRAY_END(dstArray, dstOffset), HOST_END(srcHost), ByteCount, false, NULL);
}

EMU_EXPORT CUresult cuMemcpyAtoH(void *dstHost, CUarray srcArray, size_t srcOffset,
                                 size_t ByteCount)
{
    return copy_offsets(HOST_END(dstHost), ARRAY_END(srcArray, srcOffset), ByteCount, false, NULL);
}

EMU_EXPORT CUresult cuMemcpyHtoAAsync(CUarray dstArray, size_t dstOffset, const void *srcHost,
                                      size_t ByteCount, CUstream hStream)
{
    return copy_offsets(ARRAY_END(dstArray, dstOffset), HOST_END(srcHost), ByteCount, true,
                        hStream);
}

EMU_EXPORT CUresult cuMemcpyAtoHAsync(void *dstHost, CUarray srcArray, size_t srcOffset,
                                      size_t ByteCount, CUstream hStream)
{
    return copy_offsets(HOST_END(dstHost), ARRAY_END(srcArray, srcOffset), ByteCount, true,
                        hStream);
}

EMU_EXPORT CUresult cuMemcpyDtoA(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice,
                                 size_t ByteCount)
{
    return copy_offsets(ARRAY_END(dstArray, dstOffset), DEVICE_END(srcDevice), ByteCount, false,
                        NULL);
}

EMU_EXPORT CUresult cuMemcpyAtoD(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset,
                                 size_t ByteCount)
{
    return copy_offsets(DEVICE_END(dstDevice), ARRAY_END(srcArray, srcOffset), ByteCount, false,
                        NULL);
}

EMU_EXPORT CUresult cuMemcpyAtoA(CUarray dstArray, size_t dstOffset, CUarray srcArray,
                                 size_t srcOffset, size_t ByteCount)
{
    return copy_offsets(ARRAY_END(dstArray, dstOffset), ARRAY_END(srcArray, srcOffset), ByteCount,
                        false, NULL);
}

/* ---------------------------------------------------------- allocation */

/* Rows of WidthInBytes rounded up to PITCH_ALIGNMENT; freed by cuMemFree. */
EMU_EXPORT CUresult cuMemAllocPitch(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
                                    size_t Height, unsigned int ElementSizeBytes)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    bool element_ok = ElementSizeBytes == 4 || ElementSizeBytes == 8 || ElementSizeBytes == 16;
    if (rc == CUDA_SUCCESS &&
        (dptr == NULL || pPitch == NULL || WidthInBytes == 0 || Height == 0 || !element_ok ||
         WidthInBytes > (size_t)driver_attribute(CU_DEVICE_ATTRIBUTE_MAX_PITCH)))
        rc = CUDA_ERROR_INVALID_VALUE;
    size_t pitch = (WidthInBytes + PITCH_ALIGNMENT - 1) / PITCH_ALIGNMENT * PITCH_ALIGNMENT, bytes;
    if (rc == CUDA_SUCCESS && !mul_add_ok(pitch, Height, 0, &bytes))
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    uint64_t address = 0;
    if (rc == CUDA_SUCCESS)
        rc = emu_memory_alloc(ctx->memory, bytes, EMU_ALLOC_USER, &address);
    if (rc == CUDA_SUCCESS) {
        *dptr = (CUdeviceptr)address;
        *pPitch = pitch;
    }
    return driver_leave(rc);
}
