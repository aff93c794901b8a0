/*
 * The remote driver's client: the entry points of fixed-size arguments
 * (init, devices, contexts, memory and copies, streams, events, pointers,
 * errors, occupancy), each one request to the server. Names are cuda.h's
 * (cuMemAlloc is cuMemAlloc_v2, as numba looks it up).
 */
#include <stdio.h>
#include <string.h>

#include "remote_client.h"

/* ------------------------------------------------------ init, devices */

CLIENT_EXPORT CUresult cuInit(unsigned int flags)
{
    return client_simple(REMOTE_INIT, flags, 0, 0, 0, NULL);
}

CLIENT_EXPORT CUresult cuDriverGetVersion(int *version)
{
    CLIENT_RETURN_VALUE(version, int, REMOTE_DRIVER_GET_VERSION, 0, 0, 0, 0);
}

CLIENT_EXPORT CUresult cuDeviceGetCount(int *count)
{
    CLIENT_RETURN_VALUE(count, int, REMOTE_DEVICE_GET_COUNT, 0, 0, 0, 0);
}

CLIENT_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    CLIENT_RETURN_VALUE(device, CUdevice, REMOTE_DEVICE_GET, (uint64_t)ordinal, 0, 0, 0);
}

CLIENT_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    if (name == NULL || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    char text[REMOTE_STRING_MAX] = "";
    struct remote_message req = client_request(REMOTE_DEVICE_GET_NAME), r;
    req.arg[0] = (uint64_t)dev;
    struct client_transfer t = {.reply_data = text, .reply_capacity = sizeof text - 1};
    CUresult rc = client_call(&req, &t, &r);
    if (rc == CUDA_SUCCESS)
        snprintf(name, (size_t)len, "%s", text);
    return rc;
}

CLIENT_EXPORT CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    CLIENT_RETURN_VALUE(pi, int, REMOTE_DEVICE_GET_ATTRIBUTE, (uint64_t)attrib, (uint64_t)dev, 0,
                        0);
}

CLIENT_EXPORT CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
    if (major == NULL || minor == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = cuDeviceGetAttribute(major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    return rc == CUDA_SUCCESS
               ? cuDeviceGetAttribute(minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)
               : rc;
}

CLIENT_EXPORT CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev)
{
    CLIENT_RETURN_VALUE(bytes, size_t, REMOTE_DEVICE_TOTAL_MEM, (uint64_t)dev, 0, 0, 0);
}

CLIENT_EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    if (uuid == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    struct remote_message req = client_request(REMOTE_DEVICE_GET_UUID), r;
    req.arg[0] = (uint64_t)dev;
    struct client_transfer t = {.reply_data = uuid->bytes, .reply_capacity = sizeof uuid->bytes};
    return client_call(&req, &t, &r);
}

CLIENT_EXPORT CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
    CLIENT_RETURN_VALUE(canAccessPeer, int, REMOTE_DEVICE_CAN_ACCESS_PEER, (uint64_t)dev,
                        (uint64_t)peerDev, 0, 0);
}

/* ------------------------------------------------------------- contexts */

CLIENT_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    CLIENT_RETURN_VALUE(pctx, CUcontext, REMOTE_PRIMARY_RETAIN, (uint64_t)dev, 0, 0, 0);
}

CLIENT_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
    return client_simple(REMOTE_PRIMARY_RELEASE, (uint64_t)dev, 0, 0, 0, NULL);
}

CLIENT_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice dev)
{
    return client_simple(REMOTE_PRIMARY_RESET, (uint64_t)dev, 0, 0, 0, NULL);
}

CLIENT_EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    if (flags == NULL || active == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    struct remote_message r;
    CUresult rc = client_simple(REMOTE_PRIMARY_GET_STATE, (uint64_t)dev, 0, 0, 0, &r);
    if (rc == CUDA_SUCCESS) {
        *flags = (unsigned)r.arg[0];
        *active = (int)r.arg[1];
    }
    return rc;
}

CLIENT_EXPORT CUresult cuCtxPushCurrent(CUcontext ctx)
{
    return client_simple(REMOTE_CTX_PUSH, (uintptr_t)ctx, 0, 0, 0, NULL);
}

CLIENT_EXPORT CUresult cuCtxPopCurrent(CUcontext *pctx)
{
    struct remote_message r;
    CUresult rc = client_simple(REMOTE_CTX_POP, 0, 0, 0, 0, &r);
    if (rc == CUDA_SUCCESS && pctx != NULL)
        *pctx = (CUcontext)(uintptr_t)r.arg[0];
    return rc;
}

CLIENT_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
    return client_simple(REMOTE_CTX_SET_CURRENT, (uintptr_t)ctx, 0, 0, 0, NULL);
}

CLIENT_EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    CLIENT_RETURN_VALUE(pctx, CUcontext, REMOTE_CTX_GET_CURRENT, 0, 0, 0, 0);
}

CLIENT_EXPORT CUresult cuCtxGetDevice(CUdevice *device)
{
    CLIENT_RETURN_VALUE(device, CUdevice, REMOTE_CTX_GET_DEVICE, 0, 0, 0, 0);
}

CLIENT_EXPORT CUresult cuCtxSynchronize(void)
{
    return client_simple(REMOTE_CTX_SYNCHRONIZE, 0, 0, 0, 0, NULL);
}

/* --------------------------------------------------------------- memory */

CLIENT_EXPORT CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)
{
    CLIENT_RETURN_VALUE(dptr, CUdeviceptr, REMOTE_MEM_ALLOC, bytesize, 0, 0, 0);
}

CLIENT_EXPORT CUresult cuMemFree(CUdeviceptr dptr)
{
    return client_simple(REMOTE_MEM_FREE, dptr, 0, 0, 0, NULL);
}

CLIENT_EXPORT CUresult cuMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    if (free_bytes == NULL || total_bytes == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    struct remote_message r;
    CUresult rc = client_simple(REMOTE_MEM_GET_INFO, 0, 0, 0, 0, &r);
    if (rc == CUDA_SUCCESS) {
        *free_bytes = (size_t)r.arg[0];
        *total_bytes = (size_t)r.arg[1];
    }
    return rc;
}

CLIENT_EXPORT CUresult cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    struct remote_message r;
    CUresult rc = client_simple(REMOTE_MEM_GET_ADDRESS_RANGE, dptr, 0, 0, 0, &r);
    if (rc == CUDA_SUCCESS) {
        if (pbase != NULL)
            *pbase = r.arg[0];
        if (psize != NULL)
            *psize = (size_t)r.arg[1];
    }
    return rc;
}

CLIENT_EXPORT CUresult cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    return client_copy(REMOTE_MEMCPY_HTOD, dstDevice, (void *)srcHost, ByteCount, NULL, true);
}

CLIENT_EXPORT CUresult cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost,
                                         size_t ByteCount, CUstream hStream)
{
    return client_copy(REMOTE_MEMCPY_HTOD, dstDevice, (void *)srcHost, ByteCount, hStream, false);
}

CLIENT_EXPORT CUresult cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    return client_copy(REMOTE_MEMCPY_DTOH, srcDevice, dstHost, ByteCount, NULL, true);
}

CLIENT_EXPORT CUresult cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                         CUstream hStream)
{
    return client_copy(REMOTE_MEMCPY_DTOH, srcDevice, dstHost, ByteCount, hStream, false);
}

CLIENT_EXPORT CUresult cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                         size_t ByteCount, CUstream hStream)
{
    return client_simple(REMOTE_MEMCPY_DTOD, dstDevice, srcDevice, ByteCount, (uintptr_t)hStream,
                         NULL);
}

CLIENT_EXPORT CUresult cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
    return cuMemcpyDtoDAsync(dstDevice, srcDevice, ByteCount, NULL);
}

CLIENT_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N,
                                       CUstream hStream)
{
    return client_simple(REMOTE_MEMSET_D8, dstDevice, uc, N, (uintptr_t)hStream, NULL);
}

CLIENT_EXPORT CUresult cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    return cuMemsetD8Async(dstDevice, uc, N, NULL);
}

/* ------------------------------------------------------ streams, events */

CLIENT_EXPORT CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    CLIENT_RETURN_VALUE(phStream, CUstream, REMOTE_STREAM_CREATE, Flags, 0, 0, 0);
}

CLIENT_EXPORT CUresult cuStreamDestroy(CUstream hStream)
{
    return client_simple(REMOTE_STREAM_DESTROY, (uintptr_t)hStream, 0, 0, 0, NULL);
}

CLIENT_EXPORT CUresult cuStreamSynchronize(CUstream hStream)
{
    return client_simple(REMOTE_STREAM_SYNCHRONIZE, (uintptr_t)hStream, 0, 0, 0, NULL);
}

CLIENT_EXPORT CUresult cuStreamQuery(CUstream hStream)
{
    return client_simple(REMOTE_STREAM_QUERY, (uintptr_t)hStream, 0, 0, 0, NULL);
}

CLIENT_EXPORT CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    return client_simple(REMOTE_STREAM_WAIT_EVENT, (uintptr_t)hStream, (uintptr_t)hEvent, Flags, 0,
                         NULL);
}

CLIENT_EXPORT CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    CLIENT_RETURN_VALUE(phEvent, CUevent, REMOTE_EVENT_CREATE, Flags, 0, 0, 0);
}

CLIENT_EXPORT CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
{
    return client_simple(REMOTE_EVENT_RECORD, (uintptr_t)hEvent, (uintptr_t)hStream, 0, 0, NULL);
}

CLIENT_EXPORT CUresult cuEventSynchronize(CUevent hEvent)
{
    return client_simple(REMOTE_EVENT_SYNCHRONIZE, (uintptr_t)hEvent, 0, 0, 0, NULL);
}

CLIENT_EXPORT CUresult cuEventQuery(CUevent hEvent)
{
    return client_simple(REMOTE_EVENT_QUERY, (uintptr_t)hEvent, 0, 0, 0, NULL);
}

CLIENT_EXPORT CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    if (pMilliseconds == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    struct remote_message r;
    CUresult rc = client_simple(REMOTE_EVENT_ELAPSED, (uintptr_t)hStart, (uintptr_t)hEnd, 0, 0, &r);
    uint32_t bits = (uint32_t)r.arg[0];
    if (rc == CUDA_SUCCESS)
        memcpy(pMilliseconds, &bits, sizeof bits);
    return rc;
}

CLIENT_EXPORT CUresult cuEventDestroy(CUevent hEvent)
{
    return client_simple(REMOTE_EVENT_DESTROY, (uintptr_t)hEvent, 0, 0, 0, NULL);
}

/* ---------------------------------------- pointers, errors, occupancy */

/* The bytes each attribute the server answers writes: 4 for the flags,
 * the memory type and the ordinal, 8 for pointers, sizes and ids. */
static size_t pointer_attribute_bytes(CUpointer_attribute attribute)
{
    switch (attribute) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
    case CU_POINTER_ATTRIBUTE_MAPPED:
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
        return 4;
    case CU_POINTER_ATTRIBUTE_CONTEXT:
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
        return 8;
    default:
        return 0;
    }
}

CLIENT_EXPORT CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute,
                                             CUdeviceptr ptr)
{
    size_t bytes = pointer_attribute_bytes(attribute);
    if (data == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (bytes == 0)
        return CUDA_ERROR_NOT_SUPPORTED;
    struct remote_message r;
    CUresult rc = client_simple(REMOTE_POINTER_GET_ATTRIBUTE, (uint64_t)attribute, ptr, 0, 0, &r);
    if (rc == CUDA_SUCCESS && bytes == 4) {
        uint32_t value = (uint32_t)r.arg[0];
        memcpy(data, &value, bytes);
    } else if (rc == CUDA_SUCCESS) {
        memcpy(data, &r.arg[0], bytes);
    }
    return rc;
}

CLIENT_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
    CLIENT_RETURN_VALUE(numBlocks, int, REMOTE_OCCUPANCY_ACTIVE_BLOCKS, (uintptr_t)func,
                        (uint64_t)blockSize, dynamicSMemSize, flags);
}

CLIENT_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func,
                                                                   int blockSize,
                                                                   size_t dynamicSMemSize)
{
    return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
                                                                dynamicSMemSize, 0);
}

/* A callback for the dynamic shared memory would run in this process:
 * not supported (numba passes none). */
CLIENT_EXPORT CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(
    int *minGridSize, int *blockSize, CUfunction func,
    CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit,
    unsigned int flags)
{
    if (minGridSize == NULL || blockSize == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (blockSizeToDynamicSMemSize != NULL)
        return CUDA_ERROR_NOT_SUPPORTED;
    struct remote_message r;
    CUresult rc = client_simple(REMOTE_OCCUPANCY_MAX_BLOCK_SIZE, (uintptr_t)func, dynamicSMemSize,
                                (uint64_t)blockSizeLimit, flags, &r);
    if (rc == CUDA_SUCCESS) {
        *minGridSize = (int)r.arg[0];
        *blockSize = (int)r.arg[1];
    }
    return rc;
}

CLIENT_EXPORT CUresult cuOccupancyMaxPotentialBlockSize(
    int *minGridSize, int *blockSize, CUfunction func,
    CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit)
{
    return cuOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func,
                                                     blockSizeToDynamicSMemSize, dynamicSMemSize,
                                                     blockSizeLimit, 0);
}
