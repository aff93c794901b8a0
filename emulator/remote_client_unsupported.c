/*
 * The remote driver's client: the calls numba 0.56 binds that it does not
 * forward, each CUDA_ERROR_NOT_SUPPORTED (emulator/README.md, "The remote
 * driver", says why): contexts of the client's own making, page-locked,
 * mapped and managed host memory (memory shared with the device would be
 * memory of the server's process), IPC and peers, files (the server opens
 * none for a client), stream callbacks (code of this process run by the
 * driver), cooperative launches, the profiler, the primary context's flags;
 * and NVIDIA's export tables, which NVRTC asks for.
 */
#include <cudaProfiler.h>

#include "remote_client.h"

#define NOT_SUPPORTED return CUDA_ERROR_NOT_SUPPORTED

/* cuda.h names cuCtxCreate_v4 now; numba looks up cuCtxCreate_v2. */
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);

CLIENT_EXPORT CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    (void)pctx, (void)flags, (void)dev;
    NOT_SUPPORTED;
}

CLIENT_EXPORT CUresult cuCtxDestroy(CUcontext ctx)
{
    (void)ctx;
    NOT_SUPPORTED;
}

CLIENT_EXPORT CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
    (void)peerContext, (void)Flags;
    NOT_SUPPORTED;
}

CLIENT_EXPORT CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags)
{
    (void)dev, (void)flags;
    NOT_SUPPORTED;
}

CLIENT_EXPORT CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)
{
    (void)pHandle, (void)dptr;
    NOT_SUPPORTED;
}

CLIENT_EXPORT CUresult cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle,
                                          unsigned int Flags)
{
    (void)pdptr, (void)handle, (void)Flags;
    NOT_SUPPORTED;
}

CLIENT_EXPORT CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    (void)dptr;
    NOT_SUPPORTED;
}

CLIENT_EXPORT CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX,
                                                 unsigned int gridDimY, unsigned int gridDimZ,
                                                 unsigned int blockDimX, unsigned int blockDimY,
                                                 unsigned int blockDimZ,
                                                 unsigned int sharedMemBytes, CUstream hStream,
                                                 void **kernelParams)
{
    (void)f, (void)gridDimX, (void)gridDimY, (void)gridDimZ, (void)blockDimX, (void)blockDimY;
    (void)blockDimZ, (void)sharedMemBytes, (void)hStream, (void)kernelParams;
    NOT_SUPPORTED;
}

CLIENT_EXPORT CUresult cuLinkAddFile(CUlinkState state, CUjitInputType type, const char *path,
                                     unsigned int numOptions, CUjit_option *options,
                                     void **optionValues)
{
    (void)state, (void)type, (void)path, (void)numOptions, (void)options, (void)optionValues;
    NOT_SUPPORTED;
}

CLIENT_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    (void)dptr, (void)bytesize, (void)flags;
    NOT_SUPPORTED;
}

CLIENT_EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    (void)pp, (void)bytesize, (void)Flags;
    NOT_SUPPORTED;
}

CLIENT_EXPORT CUresult cuMemFreeHost(void *p)
{
    (void)p;
    NOT_SUPPORTED;
}

CLIENT_EXPORT CUresult cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    (void)pdptr, (void)p, (void)Flags;
    NOT_SUPPORTED;
}

CLIENT_EXPORT CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
    (void)pFlags, (void)p;
    NOT_SUPPORTED;
}

CLIENT_EXPORT CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags)
{
    (void)p, (void)bytesize, (void)Flags;
    NOT_SUPPORTED;
}

CLIENT_EXPORT CUresult cuMemHostUnregister(void *p)
{
    (void)p;
    NOT_SUPPORTED;
}

CLIENT_EXPORT CUresult cuProfilerStart(void)
{
    NOT_SUPPORTED;
}

CLIENT_EXPORT CUresult cuProfilerStop(void)
{
    NOT_SUPPORTED;
}

CLIENT_EXPORT CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback,
                                           void *userData, unsigned int flags)
{
    (void)hStream, (void)callback, (void)userData, (void)flags;
    NOT_SUPPORTED;
}

/* NVIDIA's private tables. NVRTC dlopens libcuda.so.1 and calls cuInit
 * then this, which must exist: it takes CUDA_ERROR_NOT_SUPPORTED in stride. */
CLIENT_EXPORT CUresult cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
    (void)ppExportTable, (void)pExportTableId;
    NOT_SUPPORTED;
}
