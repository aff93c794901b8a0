/*
 * Device memory calls: cuMemAlloc, cuMemFree, cuMemGetInfo,
 * cuMemGetAddressRange, cuMemcpyHtoD/DtoH/DtoD, cuMemsetD8/D16/D32.
 *
 * Device addresses are host addresses (memory.c), so a copy is a memcpy
 * once the device range has been found inside one live allocation of the
 * current context; a range that is not gets CUDA_ERROR_INVALID_VALUE, never
 * a host crash. Copies and memsets do not advance the device clock: the
 * timing model accounts kernels only, and a grader times kernels between
 * events, so host-side data movement has no modeled cost.
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

EMU_EXPORT CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS && (dptr == NULL || bytesize == 0))
        rc = CUDA_ERROR_INVALID_VALUE;
    uint64_t address = 0;
    if (rc == CUDA_SUCCESS)
        rc = emu_memory_alloc(ctx->memory, bytesize, EMU_ALLOC_USER, &address);
    if (rc == CUDA_SUCCESS)
        *dptr = (CUdeviceptr)address;
    return driver_leave(rc);
}

/* Only what cuMemAlloc returned can be freed: not a module's variables, not
 * the device heap, not an address inside an allocation. Freeing 0 does
 * nothing, like free(NULL). */
EMU_EXPORT CUresult cuMemFree(CUdeviceptr dptr)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc != CUDA_SUCCESS || dptr == 0)
        return driver_leave(rc);
    struct emu_range range;
    if (!emu_memory_find(ctx->memory, dptr, 1, &range) || range.base != dptr ||
        range.kind != EMU_ALLOC_USER)
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

EMU_EXPORT CUresult cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc != CUDA_SUCCESS || ByteCount == 0)
        return driver_leave(rc);
    if (srcHost == NULL)
        return driver_leave(CUDA_ERROR_INVALID_VALUE);
    rc = memory_range_check(ctx, dstDevice, ByteCount);
    if (rc == CUDA_SUCCESS)
        memcpy(memory_host(dstDevice), srcHost, ByteCount);
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc != CUDA_SUCCESS || ByteCount == 0)
        return driver_leave(rc);
    if (dstHost == NULL)
        return driver_leave(CUDA_ERROR_INVALID_VALUE);
    rc = memory_range_check(ctx, srcDevice, ByteCount);
    if (rc == CUDA_SUCCESS)
        memcpy(dstHost, memory_host(srcDevice), ByteCount);
    return driver_leave(rc);
}

/* Overlapping ranges are copied as memmove does (CUDA leaves them undefined). */
EMU_EXPORT CUresult cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc != CUDA_SUCCESS || ByteCount == 0)
        return driver_leave(rc);
    rc = memory_range_check(ctx, dstDevice, ByteCount);
    if (rc == CUDA_SUCCESS)
        rc = memory_range_check(ctx, srcDevice, ByteCount);
    if (rc == CUDA_SUCCESS)
        memmove(memory_host(dstDevice), memory_host(srcDevice), ByteCount);
    return driver_leave(rc);
}

/* -------------------------------------------------------------- memsets */

/* Checks a memset of `count` elements of `width` bytes at `dst`: aligned to
 * the element, inside one allocation. */
static CUresult memory_set_check(struct CUctx_st *ctx, CUdeviceptr dst, size_t count, size_t width)
{
    if (dst % width != 0 || count > SIZE_MAX / width)
        return CUDA_ERROR_INVALID_VALUE;
    return memory_range_check(ctx, dst, count * width);
}

/* Fills `bytes` at `dst` with copies of the `width`-byte `element`: with
 * memset when the element is one byte repeated (every byte equals the
 * next: cuMemsetD8, and zeroing), which is the fastest; otherwise by
 * copying what is filled onto what follows, doubling it each time. */
static void memory_fill(unsigned char *dst, const unsigned char *element, size_t width,
                        size_t bytes)
{
    if (memcmp(element, element + 1, width - 1) == 0) {
        memset(dst, element[0], bytes);
        return;
    }
    memcpy(dst, element, width);
    for (size_t filled = width; filled < bytes; filled *= 2)
        memcpy(dst + filled, dst, filled < bytes - filled ? filled : bytes - filled);
}

/* cuMemsetD8/D16/D32: `count` elements of `width` bytes at `dst`, each
 * `element`. */
static CUresult memory_set(CUdeviceptr dst, const void *element, size_t width, size_t count)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc != CUDA_SUCCESS || count == 0)
        return driver_leave(rc);
    rc = memory_set_check(ctx, dst, count, width);
    if (rc == CUDA_SUCCESS)
        memory_fill(memory_host(dst), element, width, count * width);
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    return memory_set(dstDevice, &uc, sizeof uc, N);
}

EMU_EXPORT CUresult cuMemsetD16(CUdeviceptr dstDevice, unsigned short us, size_t N)
{
    return memory_set(dstDevice, &us, sizeof us, N);
}

EMU_EXPORT CUresult cuMemsetD32(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
    return memory_set(dstDevice, &ui, sizeof ui, N);
}
