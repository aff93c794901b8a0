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
 * (PFN_cuLinkCreate_v6050: cuLinkCreate_v2 came with CUDA 6.5). A name whose
 * variants differ in signature has an entry for each variant we have
 * (cuCtxCreate: _v2, _v3, _v4), and a request gets the newest one its
 * version knows. There are no
 * per-thread-default-stream (_ptsz) variants: every call is synchronous, and cuda.h allows the
 * legacy one.
 *
 * cuGetExportTable hands out NVIDIA's private tables. NVRTC itself dlopens
 * libcuda.so.1 and calls cuInit and cuGetExportTable, so the function must
 * exist; it answers CUDA_ERROR_NOT_SUPPORTED, which NVRTC takes in stride.
 */
#include <string.h>

#include "driver.h"
/* after driver.h, which lets cuda.h declare the deprecated calls */
#include <cudaProfiler.h>

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
/* An older variant that cuda.h no longer maps the name to. */
#define PROC_VARIANT(name, function, version)                                                      \
    {                                                                                              \
#name, (void *)function, version                                                           \
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
    PROC_VARIANT(cuCtxCreate, cuCtxCreate_v2, 3020),
    PROC_VARIANT(cuCtxCreate, cuCtxCreate_v3, 11040),
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
    PROC(cuCtxEnablePeerAccess, 4000),
    PROC(cuCtxDisablePeerAccess, 4000),
    PROC(cuIpcGetMemHandle, 4010),
    PROC(cuIpcOpenMemHandle, 4010), /* _v2: the same signature as the 4.1 one */
    PROC(cuIpcCloseMemHandle, 4010),
    PROC(cuProfilerStart, 4000),
    PROC(cuProfilerStop, 4000),
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
    PROC(cuFuncSetCacheConfig, 3000),
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
    PROC(cuLaunchCooperativeKernel, 9000),
    PROC(cuMemAlloc, 3020),
    PROC(cuMemFree, 3020),
    PROC(cuMemGetInfo, 3020),
    PROC(cuMemGetAddressRange, 3020),
    PROC(cuMemAllocManaged, 6000),
    PROC(cuMemAllocHost, 3020),
    PROC(cuMemHostAlloc, 2020),
    PROC(cuMemFreeHost, CUDA_BASE),
    PROC(cuMemHostRegister, 4000), /* _v2: the same signature as the 4.0 one */
    PROC(cuMemHostUnregister, 4000),
    PROC(cuMemHostGetDevicePointer, 3020),
    PROC(cuMemHostGetFlags, 2030),
    PROC(cuPointerGetAttribute, 4000),
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
    PROC(cuStreamAddCallback, 5000),
    PROC(cuEventCreate, CUDA_BASE),
    PROC(cuEventRecord, CUDA_BASE),
    PROC(cuEventQuery, CUDA_BASE),
    PROC(cuEventSynchronize, CUDA_BASE),
    PROC(cuEventElapsedTime, CUDA_BASE),
    PROC(cuEventDestroy, CUDA_BASE),
};

/* The newest variant of `name` that `version` knows; when `version` is
 * older than all of them, the oldest (the caller reports it too new). */
static const struct proc_entry *proc_find(const char *name, int version)
{
    const struct proc_entry *best = NULL;
    for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++) {
        const struct proc_entry *e = &procs[i];
        if (strcmp(e->name, name) != 0)
            continue;
        bool newer_known = best == NULL || (e->version <= version && e->version > best->version);
        bool older = best != NULL && best->version > version && e->version < best->version;
        if (newer_known || older)
            best = e;
    }
    return best;
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
    const struct proc_entry *entry = proc_find(symbol, cudaVersion);
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
