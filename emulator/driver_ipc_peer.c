/*
 * What one virtual GPU in one process cannot share: interprocess memory
 * handles (cuIpcGetMemHandle, cuIpcOpenMemHandle, cuIpcCloseMemHandle) and
 * peer access between contexts (cuCtxEnablePeerAccess,
 * cuCtxDisablePeerAccess).
 *
 * Device memory is private anonymous memory of the process (memory.c), so
 * no other process can map it: IPC is CUDA_ERROR_NOT_SUPPORTED, the answer
 * of a driver on a platform without it, once the arguments have been
 * checked as cuda.h says. Peer access is between devices, and there is one
 * (cuDeviceCanAccessPeer says no peer): enabling it for another live
 * context is CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, and disabling it finds it
 * never enabled.
 */
#include "driver.h"

/* The handle must name the base of a cuMemAlloc allocation. */
EMU_EXPORT CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)
{
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    struct emu_range range;
    if (rc == CUDA_SUCCESS && (pHandle == NULL || !emu_memory_find(ctx->memory, dptr, 1, &range) ||
                               range.base != dptr || range.kind != EMU_ALLOC_USER))
        rc = CUDA_ERROR_INVALID_VALUE;
    return driver_leave(rc == CUDA_SUCCESS ? CUDA_ERROR_NOT_SUPPORTED : rc);
}

EMU_EXPORT CUresult cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle,
                                       unsigned int Flags)
{
    (void)handle;
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    if (rc == CUDA_SUCCESS && (pdptr == NULL || (Flags & ~CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)))
        rc = CUDA_ERROR_INVALID_VALUE;
    return driver_leave(rc == CUDA_SUCCESS ? CUDA_ERROR_NOT_SUPPORTED : rc);
}

EMU_EXPORT CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    (void)dptr;
    struct CUctx_st *ctx;
    CUresult rc = driver_enter(&ctx, DRIVER_STICKY);
    return driver_leave(rc == CUDA_SUCCESS ? CUDA_ERROR_NOT_SUPPORTED : rc);
}

/* CUDA_ERROR_INVALID_CONTEXT unless `peer` is a live context other than the current one. */
static CUresult peer_enter(CUcontext peer, struct CUctx_st **ctx)
{
    CUresult rc = driver_enter(ctx, DRIVER_IGNORE_STICKY);
    if (rc == CUDA_SUCCESS && (!driver_handle_live(DRIVER_CONTEXT, peer) || peer == *ctx))
        rc = CUDA_ERROR_INVALID_CONTEXT;
    return rc;
}

EMU_EXPORT CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
    struct CUctx_st *ctx;
    CUresult rc = peer_enter(peerContext, &ctx);
    if (rc == CUDA_SUCCESS && Flags != 0)
        rc = CUDA_ERROR_INVALID_VALUE;
    return driver_leave(rc == CUDA_SUCCESS ? CUDA_ERROR_PEER_ACCESS_UNSUPPORTED : rc);
}

EMU_EXPORT CUresult cuCtxDisablePeerAccess(CUcontext peerContext)
{
    struct CUctx_st *ctx;
    CUresult rc = peer_enter(peerContext, &ctx);
    return driver_leave(rc == CUDA_SUCCESS ? CUDA_ERROR_PEER_ACCESS_NOT_ENABLED : rc);
}
