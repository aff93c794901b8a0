/*
 * cuGetProcAddress (the _v2 that cuda.h maps it to) and cuGetExportTable.
 *
 * cuGetProcAddress maps a base name ("cuMemAlloc") and a CUDA version to the
 * versioned entry point ("cuMemAlloc_v2"). The table below lists every entry
 * point of this driver with the CUDA version that introduced the variant we
 * implement; a version older than that would need an older variant with a
 * different signature, which the virtual GPU does not have. Where the older
 * variant has the same signature the entry says CUDA_BASE, so that any
 * version gets ours. The versions are those of cudaTypedefs.h's PFN_ types
 * (PFN_cuLinkCreate_v6050: cuLinkCreate_v2 came with CUDA 6.5). There are no
 * per-thread-default-stream (_ptsz) variants: every call is synchronous, and cuda.h allows the
 * legacy one.
 *
 * cuGetExportTable hands out NVIDIA's private tables. NVRTC itself dlopens
 * libcuda.so.1 and calls cuInit and cuGetExportTable, so the function must
 * exist; it answers CUDA_ERROR_NOT_SUPPORTED, which NVRTC takes in stride.
 */
#include <string.h>

#include "driver.h"

#define CUDA_BASE 2000 /* the oldest version: any request gets the entry */

struct proc_entry {
    const char *name;
    void *function;
    int version;
};

/* #name is the base name; name itself expands to cuda.h's versioned symbol. */
#define PROC(name, version)                                                                        \
    {                                                                                              \
#name, (void *)name, version                                                               \
    }

static const struct proc_entry procs[] = {
    PROC(cuInit, CUDA_BASE),
    PROC(cuDriverGetVersion, CUDA_BASE),
    PROC(cuGetErrorName, CUDA_BASE),
    PROC(cuGetErrorString, CUDA_BASE),
    PROC(cuGetProcAddress, 12000),
    PROC(cuGetExportTable, CUDA_BASE),
    PROC(cuDeviceGet, CUDA_BASE),
    PROC(cuDeviceGetCount, CUDA_BASE),
    PROC(cuDeviceGetName, CUDA_BASE),
    PROC(cuDeviceGetAttribute, CUDA_BASE),
    PROC(cuDeviceTotalMem, 3020),
    PROC(cuDeviceGetUuid, CUDA_BASE),
    PROC(cuDeviceComputeCapability, CUDA_BASE),
    PROC(cuDeviceCanAccessPeer, 4000),
    PROC(cuDevicePrimaryCtxRetain, CUDA_BASE),
    PROC(cuDevicePrimaryCtxRelease, CUDA_BASE),
    PROC(cuDevicePrimaryCtxReset, CUDA_BASE),
    PROC(cuDevicePrimaryCtxGetState, CUDA_BASE),
    PROC(cuDevicePrimaryCtxSetFlags, CUDA_BASE),
    PROC(cuCtxCreate, 12050),
    PROC(cuCtxDestroy, CUDA_BASE),
    PROC(cuCtxSetCurrent, CUDA_BASE),
    PROC(cuCtxGetCurrent, CUDA_BASE),
    PROC(cuCtxPushCurrent, CUDA_BASE),
    PROC(cuCtxPopCurrent, CUDA_BASE),
    PROC(cuCtxGetDevice, CUDA_BASE),
    PROC(cuCtxSynchronize, CUDA_BASE),
    PROC(cuCtxSetLimit, CUDA_BASE),
    PROC(cuCtxGetLimit, CUDA_BASE),
    PROC(cuCtxResetPersistingL2Cache, CUDA_BASE),
    PROC(cuModuleLoad, CUDA_BASE),
    PROC(cuModuleLoadData, CUDA_BASE),
    PROC(cuModuleLoadFatBinary, CUDA_BASE),
    PROC(cuModuleLoadDataEx, CUDA_BASE),
    PROC(cuModuleUnload, CUDA_BASE),
    PROC(cuModuleGetFunction, CUDA_BASE),
    PROC(cuModuleGetGlobal, 3020),
    PROC(cuFuncGetAttribute, CUDA_BASE),
    PROC(cuFuncGetParamInfo, 12040),
    PROC(cuFuncSetAttribute, CUDA_BASE),
    PROC(cuLinkCreate, 6050),
    PROC(cuLinkAddData, 6050),
    PROC(cuLinkAddFile, 6050),
    PROC(cuLinkComplete, 5050),
    PROC(cuLinkDestroy, 5050),
    PROC(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050),
    PROC(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, 7000),
    PROC(cuOccupancyMaxPotentialBlockSize, 6050),
    PROC(cuOccupancyMaxPotentialBlockSizeWithFlags, 7000),
    PROC(cuLaunchKernel, CUDA_BASE),
    PROC(cuMemAlloc, 3020),
    PROC(cuMemFree, 3020),
    PROC(cuMemGetInfo, 3020),
    PROC(cuMemGetAddressRange, 3020),
    PROC(cuMemcpyHtoD, 3020),
    PROC(cuMemcpyDtoH, 3020),
    PROC(cuMemcpyDtoD, 3020),
    PROC(cuMemcpy, 4000),
    PROC(cuMemcpyHtoDAsync, 3020),
    PROC(cuMemcpyDtoHAsync, 3020),
    PROC(cuMemcpyDtoDAsync, 3020),
    PROC(cuMemcpyAsync, 4000),
    PROC(cuMemsetD8, 3020),
    PROC(cuMemsetD16, 3020),
    PROC(cuMemsetD32, 3020),
    PROC(cuMemsetD2D8, 3020),
    PROC(cuMemsetD2D16, 3020),
    PROC(cuMemsetD2D32, 3020),
    PROC(cuMemsetD8Async, 3020),
    PROC(cuMemsetD16Async, 3020),
    PROC(cuMemsetD32Async, 3020),
    PROC(cuMemsetD2D8Async, 3020),
    PROC(cuMemsetD2D16Async, 3020),
    PROC(cuMemsetD2D32Async, 3020),
    PROC(cuMemAllocPitch, 3020),
    PROC(cuMemcpy2D, 3020),
    PROC(cuMemcpy2DUnaligned, 3020),
    PROC(cuMemcpy2DAsync, 3020),
    PROC(cuMemcpy3D, 3020),
    PROC(cuMemcpy3DAsync, 3020),
    PROC(cuMemcpyHtoA, 3020),
    PROC(cuMemcpyAtoH, 3020),
    PROC(cuMemcpyHtoAAsync, 3020),
    PROC(cuMemcpyAtoHAsync, 3020),
    PROC(cuMemcpyDtoA, 3020),
    PROC(cuMemcpyAtoD, 3020),
    PROC(cuMemcpyAtoA, 3020),
    PROC(cuArrayCreate, 3020),
    PROC(cuArray3DCreate, 3020),
    PROC(cuArrayGetDescriptor, 3020),
    PROC(cuArray3DGetDescriptor, 3020),
    PROC(cuArrayDestroy, CUDA_BASE),
    PROC(cuTexObjectCreate, 5000),
    PROC(cuTexObjectDestroy, 5000),
    PROC(cuTexObjectGetResourceDesc, 5000),
    PROC(cuTexObjectGetTextureDesc, 5000),
    PROC(cuTexObjectGetResourceViewDesc, 5000),
    PROC(cuSurfObjectCreate, 5000),
    PROC(cuSurfObjectDestroy, 5000),
    PROC(cuSurfObjectGetResourceDesc, 5000),
    PROC(cuStreamCreate, CUDA_BASE),
    PROC(cuStreamDestroy, CUDA_BASE),
    PROC(cuStreamSynchronize, CUDA_BASE),
    PROC(cuStreamQuery, CUDA_BASE),
    PROC(cuStreamWaitEvent, CUDA_BASE),
    PROC(cuEventCreate, CUDA_BASE),
    PROC(cuEventRecord, CUDA_BASE),
    PROC(cuEventQuery, CUDA_BASE),
    PROC(cuEventSynchronize, CUDA_BASE),
    PROC(cuEventElapsedTime, CUDA_BASE),
    PROC(cuEventDestroy, CUDA_BASE),
};

static const struct proc_entry *proc_find(const char *name)
{
    for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++)
        if (strcmp(procs[i].name, name) == 0)
            return &procs[i];
    return NULL;
}

/* Answers before cuInit too: a runtime looks up cuInit this way. A name we
 * do not have gets CUDA_ERROR_NOT_FOUND and CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
 * a version newer than this driver's, CUDA_ERROR_INVALID_VALUE (cuda.h). */
EMU_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
                                     cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
    (void)flags;
    if (symbol == NULL || pfn == NULL || cudaVersion > DRIVER_VERSION)
        return CUDA_ERROR_INVALID_VALUE;
    const struct proc_entry *entry = proc_find(symbol);
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
    if (entry == NULL)
        status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    else if (cudaVersion < entry->version)
        status = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
    *pfn = status == CU_GET_PROC_ADDRESS_SUCCESS ? entry->function : NULL;
    if (symbolStatus != NULL)
        *symbolStatus = status;
    return status == CU_GET_PROC_ADDRESS_SUCCESS ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

EMU_EXPORT CUresult cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
    if (ppExportTable == NULL || pExportTableId == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *ppExportTable = NULL;
    return CUDA_ERROR_NOT_SUPPORTED;
}
