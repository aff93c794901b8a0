/*
 * What the driver knows of an address: cuPointerGetAttribute.
 *
 * With unified addressing an address the driver gave out names its
 * allocation and the context that made it: device memory (cuMemAlloc,
 * module variables, the device heap), managed memory (cuMemAllocManaged)
 * and page-locked host memory (driver_host_memory.c), inside the
 * allocation or at its base. Device and managed memory is host memory here
 * and its device pointer is its address; a host pointer is answered for
 * host and managed memory only, as on a GPU, where device memory has none.
 * CUDA arrays are not reached through pointers, and an address of none of
 * these is CUDA_ERROR_INVALID_VALUE.
 *
 * Booleans are written as unsigned int, as cuda.h's samples read them. The
 * buffer id is the allocation's serial in its context's table. Attributes
 * of what the virtual GPU has none of (P2P tokens, memory pools, virtual
 * memory mappings, hardware decompression) are CUDA_ERROR_INVALID_VALUE.
 */
#include <string.h>

#include "driver.h"

struct pointer_facts {
    struct CUctx_st *context; /* that allocated or registered it */
    struct emu_range range;
};

/* CUDA_ERROR_INVALID_VALUE unless `address` lies in memory a pointer reaches. */
static CUresult pointer_find(CUdeviceptr address, struct pointer_facts *f)
{
    struct CUctx_st *holder = driver_memory_owner(address, &f->range);
    if (holder == NULL || f->range.kind == EMU_ALLOC_ARRAY)
        return CUDA_ERROR_INVALID_VALUE;
    struct driver_host_info host;
    f->context = driver_host_memory_find(address, &host) ? host.context : holder;
    return CUDA_SUCCESS;
}

static void pointer_put_flag(void *data, bool value)
{
    *(unsigned *)data = value ? 1 : 0;
}

/* The attributes that need no current context. */
static CUresult pointer_answer(const struct pointer_facts *f, CUpointer_attribute attribute,
                               CUdeviceptr address, void *data)
{
    enum emu_allocation_kind kind = f->range.kind;
    switch (attribute) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        *(CUcontext *)data = f->context;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned *)data = kind == EMU_ALLOC_HOST ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (kind != EMU_ALLOC_HOST && kind != EMU_ALLOC_MANAGED)
            return CUDA_ERROR_INVALID_VALUE;
        *(void **)data = (void *)(uintptr_t)address;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        pointer_put_flag(data, kind == EMU_ALLOC_MANAGED);
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: /* every operation is synchronous */
    case CU_POINTER_ATTRIBUTE_MAPPED:
        pointer_put_flag(data, true);
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE: /* driver_ipc_peer.c */
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
        pointer_put_flag(data, false);
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
        *(unsigned long long *)data = f->range.serial;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        *(CUdeviceptr *)data = (CUdeviceptr)f->range.base;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
        *(size_t *)data = (size_t)f->range.size;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
        *(unsigned long long *)data = CU_MEM_HANDLE_TYPE_NONE;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
        *(unsigned *)data = CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

/* The device pointer is the one kernels of the current context use: the
 * address itself, and CUDA_ERROR_INVALID_CONTEXT with no current context. */
EMU_EXPORT CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute,
                                          CUdeviceptr ptr)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS && data == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    struct pointer_facts facts;
    memset(&facts, 0, sizeof facts);
    if (rc == CUDA_SUCCESS)
        rc = pointer_find(ptr, &facts);
    if (rc != CUDA_SUCCESS || attribute != CU_POINTER_ATTRIBUTE_DEVICE_POINTER)
        return driver_leave(rc == CUDA_SUCCESS ? pointer_answer(&facts, attribute, ptr, data) : rc);
    if (driver_current() == NULL)
        return driver_leave(CUDA_ERROR_INVALID_CONTEXT);
    *(CUdeviceptr *)data = ptr;
    return driver_leave(CUDA_SUCCESS);
}
