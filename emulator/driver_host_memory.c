/*
 * Page-locked host memory: cuMemHostAlloc and cuMemAllocHost (pinned and
 * mapped memory the driver allocates), cuMemFreeHost, cuMemHostRegister and
 * cuMemHostUnregister (the program's own memory), cuMemHostGetDevicePointer
 * and cuMemHostGetFlags.
 *
 * The device has unified addressing (CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING
 * and CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM are 1), so, as cuda.h says,
 * page-locked memory is mapped for every context and its device pointer is
 * its host pointer, whatever the flags (CU_MEMHOSTALLOC_DEVICEMAP and
 * _PORTABLE are implied; _WRITECOMBINED changes nothing on a CPU). Kernels
 * reach it through the same checks as device memory: each range is entered,
 * not owned, in the allocation table of every live context and of every
 * context made later (emu_memory_adopt), so an access past its end is a
 * fault that names a "host buffer" as it would a buffer. Nothing is pinned:
 * every page of the virtual GPU is host memory already.
 *
 * A range belongs to the context that allocated or registered it; cuda.h
 * frees it (or unregisters it) when that context is destroyed, as here.
 * Freeing and unregistering find the range by its address and need no
 * current context: numba frees after popping its context (cuda.close()).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "driver.h"

#define HOST_ALLOC_FLAGS                                                                           \
    (CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED)
#define HOST_REGISTER_FLAGS                                                                        \
    (CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_IOMEMORY |    \
     CU_MEMHOSTREGISTER_READ_ONLY)

struct driver_host_range {
    struct driver_handle handle; /* in driver.live[DRIVER_HOST_MEMORY]; its context owns it */
    uint64_t base, size;
    unsigned flags;
    size_t mapped; /* cuMemHostAlloc's mapping, page-rounded; 0: registered, the program's */
};

/* ------------------------------------------------- the contexts' tables */

/* Takes `r` out of `memory` when it is there (as host memory: an
 * allocation at the same base that is not host memory is left alone). */
static void host_unadopt(struct emu_memory *memory, const struct driver_host_range *r)
{
    struct emu_range range;
    if (emu_memory_find(memory, r->base, 1, &range) && range.base == r->base &&
        range.kind == EMU_ALLOC_HOST)
        emu_memory_free(memory, r->base);
}

static void host_unshare(const struct driver_host_range *r)
{
    for (struct driver_handle *c = driver.live[DRIVER_CONTEXT]; c != NULL; c = c->next)
        host_unadopt(((struct CUctx_st *)c)->memory, r);
}

/* Enters `r` in every live context's table; none when one refuses it. */
static CUresult host_share(const struct driver_host_range *r)
{
    for (struct driver_handle *c = driver.live[DRIVER_CONTEXT]; c != NULL; c = c->next) {
        CUresult rc =
            emu_memory_adopt(((struct CUctx_st *)c)->memory, r->base, r->size, EMU_ALLOC_HOST);
        if (rc != CUDA_SUCCESS) {
            host_unshare(r);
            return rc;
        }
    }
    return CUDA_SUCCESS;
}

CUresult driver_host_memory_adopt(struct CUctx_st *ctx)
{
    for (struct driver_handle *h = driver.live[DRIVER_HOST_MEMORY]; h != NULL; h = h->next) {
        const struct driver_host_range *r = (const struct driver_host_range *)h;
        CUresult rc = emu_memory_adopt(ctx->memory, r->base, r->size, EMU_ALLOC_HOST);
        if (rc != CUDA_SUCCESS)
            return rc;
    }
    return CUDA_SUCCESS;
}

/* Frees what cuMemHostAlloc mapped; registered memory stays the program's. */
static void host_release(struct driver_handle *handle)
{
    struct driver_host_range *r = (struct driver_host_range *)handle;
    host_unshare(r);
    if (r->mapped > 0)
        munmap((void *)(uintptr_t)r->base, r->mapped);
    free(r);
}

void driver_host_memory_release(struct CUctx_st *ctx)
{
    driver_handle_remove_if(DRIVER_HOST_MEMORY, driver_handle_owned_by, ctx, host_release);
}

/* ---------------------------------------------------------------- lookup */

/* The range that holds [address, address + bytes), or NULL. */
static struct driver_host_range *host_find(uint64_t address, uint64_t bytes)
{
    for (struct driver_handle *h = driver.live[DRIVER_HOST_MEMORY]; h != NULL; h = h->next) {
        struct driver_host_range *r = (struct driver_host_range *)h;
        if (address >= r->base && address - r->base < r->size &&
            bytes <= r->size - (address - r->base))
            return r;
    }
    return NULL;
}

/* Whether [base, base + size) shares a byte with a range. */
static bool host_overlaps(uint64_t base, uint64_t size)
{
    for (struct driver_handle *h = driver.live[DRIVER_HOST_MEMORY]; h != NULL; h = h->next) {
        const struct driver_host_range *r = (const struct driver_host_range *)h;
        if (base < r->base + r->size && r->base < base + size)
            return true;
    }
    return false;
}

bool driver_host_memory_find(uint64_t address, struct driver_host_info *info)
{
    const struct driver_host_range *r = host_find(address, 1);
    if (r != NULL && info != NULL)
        *info = (struct driver_host_info){.context = r->handle.context,
                                          .base = r->base,
                                          .size = r->size,
                                          .registered = r->mapped == 0};
    return r != NULL;
}

/* Records a range of the current context and enters it in every table. */
static CUresult host_add(struct CUctx_st *ctx, uint64_t base, uint64_t size, unsigned flags,
                         size_t mapped)
{
    struct driver_host_range *r = malloc(sizeof *r);
    if (r == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *r = (struct driver_host_range){.base = base, .size = size, .flags = flags, .mapped = mapped};
    CUresult rc = host_share(r);
    if (rc != CUDA_SUCCESS) {
        free(r);
        return rc;
    }
    driver_handle_add(DRIVER_HOST_MEMORY, &r->handle, ctx);
    return CUDA_SUCCESS;
}

/* cuMemFreeHost and cuMemHostUnregister: releases the range whose base is
 * `p` and that was allocated (or registered: `registered`). Its context
 * need not be current. `missing` is the answer when there is none. */
static CUresult host_remove(void *p, bool registered, CUresult missing)
{
    CUresult rc = driver_begin();
    if (rc != CUDA_SUCCESS)
        return driver_leave(rc);
    struct driver_host_range *r = host_find((uint64_t)(uintptr_t)p, 1);
    if (r == NULL || r->base != (uint64_t)(uintptr_t)p || (r->mapped == 0) != registered)
        return driver_leave(p == NULL ? CUDA_ERROR_INVALID_VALUE : missing);
    if (r->handle.context->sticky != CUDA_SUCCESS)
        return driver_leave(r->handle.context->sticky);
    driver_handle_remove(DRIVER_HOST_MEMORY, &r->handle);
    host_release(&r->handle);
    return driver_leave(CUDA_SUCCESS);
}

/* ------------------------------------------------------ allocated memory */

EMU_EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS && (pp == NULL || bytesize == 0 || (Flags & ~HOST_ALLOC_FLAGS)))
        rc = CUDA_ERROR_INVALID_VALUE;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (rc == CUDA_SUCCESS && bytesize > SIZE_MAX - page)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (rc != CUDA_SUCCESS)
        return driver_leave(rc);
    size_t mapped = (bytesize + page - 1) / page * page;
    void *p = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return driver_leave(CUDA_ERROR_OUT_OF_MEMORY);
    rc = host_add(ctx, (uint64_t)(uintptr_t)p, bytesize, Flags, mapped);
    if (rc == CUDA_SUCCESS)
        *pp = p;
    else
        munmap(p, mapped);
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuMemAllocHost(void **pp, size_t bytesize)
{
    return cuMemHostAlloc(pp, bytesize, 0);
}

EMU_EXPORT CUresult cuMemFreeHost(void *p)
{
    return host_remove(p, false, CUDA_ERROR_INVALID_VALUE);
}

/* ----------------------------------------------------- registered memory */

/* Whether every page of [p, p + bytes) is mapped in the process: a kernel
 * must not reach a hole (mincore fails with ENOMEM on one). */
static bool host_pages_mapped(void *p, size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)p / page * page;
    uintptr_t end = ((uintptr_t)p + bytes + page - 1) / page * page;
    unsigned char vec[64];
    for (uintptr_t at = start; at < end; at += sizeof vec * page) {
        size_t span = end - at < sizeof vec * page ? end - at : sizeof vec * page;
        if (mincore((void *)at, span, vec) != 0 && errno == ENOMEM)
            return false;
    }
    return true;
}

/* CU_MEMHOSTREGISTER_IOMEMORY names a third party's device memory, which a
 * process of the virtual GPU cannot have; read-only registration is
 * refused where the device says so (cuda.h). */
static CUresult host_register_check(void *p, size_t bytesize, unsigned flags)
{
    if (p == NULL || bytesize == 0 || (flags & ~HOST_REGISTER_FLAGS) ||
        (uintptr_t)p > UINTPTR_MAX - bytesize)
        return CUDA_ERROR_INVALID_VALUE;
    if ((flags & CU_MEMHOSTREGISTER_IOMEMORY) ||
        ((flags & CU_MEMHOSTREGISTER_READ_ONLY) &&
         !driver_attribute(CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED)))
        return CUDA_ERROR_NOT_SUPPORTED;
    if (host_overlaps((uint64_t)(uintptr_t)p, bytesize))
        return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    return host_pages_mapped(p, bytesize) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Memory the tables already hold (device memory, which is host memory
 * here) cannot be registered: CUDA_ERROR_INVALID_VALUE. */
EMU_EXPORT CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS)
        rc = host_register_check(p, bytesize, Flags);
    if (rc == CUDA_SUCCESS)
        rc = host_add(ctx, (uint64_t)(uintptr_t)p, bytesize, Flags, 0);
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuMemHostUnregister(void *p)
{
    return host_remove(p, true, CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
}

/* ---------------------------------------------------------------- queries */

/* Any address inside page-locked memory; the device pointer is the host
 * pointer (unified addressing). */
EMU_EXPORT CUresult cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS &&
        (pdptr == NULL || Flags != 0 || host_find((uint64_t)(uintptr_t)p, 1) == NULL))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        *pdptr = (CUdeviceptr)(uintptr_t)p;
    return driver_leave(rc);
}

/* The flags cuMemHostAlloc was given, for an address inside its memory;
 * registered memory has none to give (cuda.h): CUDA_ERROR_INVALID_VALUE. */
EMU_EXPORT CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    const struct driver_host_range *r =
        rc == CUDA_SUCCESS ? host_find((uint64_t)(uintptr_t)p, 1) : NULL;
    if (rc == CUDA_SUCCESS && (pFlags == NULL || r == NULL || r->mapped == 0))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        *pFlags = r->flags;
    return driver_leave(rc);
}
