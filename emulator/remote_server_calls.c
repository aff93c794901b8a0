/*
 * The remote driver's calls of fixed-size arguments: devices, the
 * client's context, memory, streams, events, pointers, errors, occupancy;
 * and the table of every request's handler (remote_calls). Each handler
 * checks what the client names (its context, its handles, its memory)
 * before it makes the call on this library's entry point; copies, links,
 * modules and launches are in remote_server_copy.c and
 * remote_server_modules.c.
 */
#include <string.h>

#include "remote_server.h"

#define HANDLER(name)                                                                              \
    static CUresult name(struct remote_session *s, const struct remote_message *req,               \
                         struct remote_message *reply)
#define UNUSED_SESSION (void)s
#define UNUSED_REPLY   (void)reply

/* ------------------------------------------------------ init, devices */

HANDLER(call_init)
{
    UNUSED_REPLY;
    CUresult rc = cuInit((unsigned)req->arg[0]);
    if (rc == CUDA_SUCCESS)
        s->initialized = true;
    return rc;
}

HANDLER(call_driver_get_version)
{
    UNUSED_SESSION, (void)req;
    int version = 0;
    CUresult rc = cuDriverGetVersion(&version);
    reply->arg[0] = (uint64_t)version;
    return rc;
}

HANDLER(call_device_get_count)
{
    UNUSED_SESSION, (void)req;
    int count = 0;
    CUresult rc = cuDeviceGetCount(&count);
    reply->arg[0] = (uint64_t)count;
    return rc;
}

HANDLER(call_device_get)
{
    UNUSED_SESSION;
    CUdevice device = 0;
    CUresult rc = cuDeviceGet(&device, (int)req->arg[0]);
    reply->arg[0] = (uint64_t)device;
    return rc;
}

HANDLER(call_device_get_name)
{
    char name[REMOTE_STRING_MAX] = "";
    CUresult rc = cuDeviceGetName(name, sizeof name, (CUdevice)req->arg[0]);
    remote_reply_string(s, reply, name);
    return rc;
}

HANDLER(call_device_get_attribute)
{
    UNUSED_SESSION;
    int value = 0;
    CUresult rc =
        cuDeviceGetAttribute(&value, (CUdevice_attribute)req->arg[0], (CUdevice)req->arg[1]);
    reply->arg[0] = (uint64_t)value;
    return rc;
}

HANDLER(call_device_total_mem)
{
    UNUSED_SESSION;
    size_t bytes = 0;
    CUresult rc = cuDeviceTotalMem(&bytes, (CUdevice)req->arg[0]);
    reply->arg[0] = bytes;
    return rc;
}

HANDLER(call_device_get_uuid)
{
    CUuuid uuid;
    memset(&uuid, 0, sizeof uuid);
    CUresult rc = cuDeviceGetUuid(&uuid, (CUdevice)req->arg[0]);
    memcpy(s->out, uuid.bytes, sizeof uuid.bytes);
    reply->inline_bytes = sizeof uuid.bytes;
    return rc;
}

HANDLER(call_device_can_access_peer)
{
    UNUSED_SESSION;
    int can = 0;
    CUresult rc = cuDeviceCanAccessPeer(&can, (CUdevice)req->arg[0], (CUdevice)req->arg[1]);
    reply->arg[0] = (uint64_t)can;
    return rc;
}

/* ------------------------------------------------- the client's context */

/* The client's primary context is the session's context: retaining it
 * gives its handle; releasing or resetting it never destroys it (what the
 * client made goes when the server's caller destroys the context, after
 * reading its device time). */
HANDLER(call_primary_retain)
{
    CUresult rc = driver_device_check((CUdevice)req->arg[0]);
    reply->arg[0] = rc == CUDA_SUCCESS ? (uintptr_t)s->context : 0;
    return rc;
}

HANDLER(call_primary_keep)
{
    UNUSED_SESSION, UNUSED_REPLY;
    return driver_device_check((CUdevice)req->arg[0]);
}

HANDLER(call_primary_get_state)
{
    UNUSED_SESSION;
    CUresult rc = driver_device_check((CUdevice)req->arg[0]);
    reply->arg[0] = 0;
    reply->arg[1] = rc == CUDA_SUCCESS;
    return rc;
}

HANDLER(call_ctx_push)
{
    UNUSED_REPLY;
    if (req->arg[0] != (uintptr_t)s->context)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (s->depth == REMOTE_CONTEXT_DEPTH)
        return CUDA_ERROR_INVALID_VALUE;
    s->depth++;
    return CUDA_SUCCESS;
}

HANDLER(call_ctx_pop)
{
    (void)req;
    if (s->depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    s->depth--;
    reply->arg[0] = (uintptr_t)s->context;
    return CUDA_SUCCESS;
}

/* Setting none pops the top; setting the context replaces the top with
 * itself, or pushes it on an empty stack. */
HANDLER(call_ctx_set_current)
{
    UNUSED_REPLY;
    if (req->arg[0] == 0 && s->depth > 0)
        s->depth--;
    else if (req->arg[0] == (uintptr_t)s->context && s->depth == 0)
        s->depth = 1;
    else if (req->arg[0] != 0 && req->arg[0] != (uintptr_t)s->context)
        return CUDA_ERROR_INVALID_CONTEXT;
    return CUDA_SUCCESS;
}

HANDLER(call_ctx_get_current)
{
    (void)req;
    reply->arg[0] = s->depth > 0 ? (uintptr_t)s->context : 0;
    return CUDA_SUCCESS;
}

HANDLER(call_ctx_get_device)
{
    UNUSED_SESSION, (void)req;
    CUdevice device = 0;
    CUresult rc = cuCtxGetDevice(&device);
    reply->arg[0] = (uint64_t)device;
    return rc;
}

HANDLER(call_ctx_synchronize)
{
    UNUSED_SESSION, (void)req, UNUSED_REPLY;
    return cuCtxSynchronize();
}

/* --------------------------------------------------------------- memory */

HANDLER(call_mem_alloc)
{
    UNUSED_SESSION;
    CUdeviceptr pointer = 0;
    CUresult rc = cuMemAlloc(&pointer, (size_t)req->arg[0]);
    reply->arg[0] = pointer;
    return rc;
}

/* Only memory of the client's context: cuMemFree would find an address of
 * any context. What the host wrote there goes with it. */
HANDLER(call_mem_free)
{
    UNUSED_REPLY;
    CUdeviceptr pointer = req->arg[0];
    CUresult rc = pointer != 0 ? driver_own_range_check(pointer, 1) : CUDA_SUCCESS;
    if (rc == CUDA_SUCCESS)
        rc = cuMemFree(pointer);
    if (rc == CUDA_SUCCESS)
        remote_host_freed(s, pointer);
    return rc;
}

HANDLER(call_mem_get_info)
{
    UNUSED_SESSION, (void)req;
    size_t free_bytes = 0, total_bytes = 0;
    CUresult rc = cuMemGetInfo(&free_bytes, &total_bytes);
    reply->arg[0] = free_bytes;
    reply->arg[1] = total_bytes;
    return rc;
}

HANDLER(call_mem_get_address_range)
{
    UNUSED_SESSION;
    CUdeviceptr base = 0;
    size_t bytes = 0;
    if (driver_own_range_check(req->arg[0], 1) != CUDA_SUCCESS)
        return CUDA_ERROR_NOT_FOUND;
    CUresult rc = cuMemGetAddressRange(&base, &bytes, req->arg[0]);
    reply->arg[0] = base;
    reply->arg[1] = bytes;
    return rc;
}

/* What it copies of bytes as the host left them is the host's too. */
HANDLER(call_memcpy_dtod)
{
    UNUSED_REPLY;
    size_t bytes = (size_t)req->arg[2];
    CUresult rc = remote_stream_owned(s, req->arg[3]);
    if (rc == CUDA_SUCCESS)
        rc = driver_own_range_check(req->arg[0], bytes);
    if (rc == CUDA_SUCCESS)
        rc = driver_own_range_check(req->arg[1], bytes);
    if (rc != CUDA_SUCCESS)
        return rc;
    struct remote_host_spans spans;
    remote_host_copying(s, req->arg[0], req->arg[1], bytes, &spans);
    rc = cuMemcpyDtoDAsync(req->arg[0], req->arg[1], bytes, (CUstream)(uintptr_t)req->arg[3]);
    remote_host_copied(s, req->arg[0], rc == CUDA_SUCCESS, &spans);
    if (rc == CUDA_SUCCESS && bytes > 0)
        remote_served_copy(s, KGEMU_COPY_DTOD, bytes, 0, 0);
    return rc;
}

/* What it sets is the host's. */
HANDLER(call_memset_d8)
{
    UNUSED_REPLY;
    size_t bytes = (size_t)req->arg[2];
    CUresult rc = remote_stream_owned(s, req->arg[3]);
    if (rc == CUDA_SUCCESS)
        rc = driver_own_range_check(req->arg[0], bytes);
    if (rc != CUDA_SUCCESS)
        return rc;
    remote_host_writing(s, req->arg[0], bytes);
    rc = cuMemsetD8Async(req->arg[0], (unsigned char)req->arg[1], bytes,
                         (CUstream)(uintptr_t)req->arg[3]);
    if (rc == CUDA_SUCCESS)
        remote_host_wrote(s, req->arg[0], bytes);
    return rc;
}

/* ------------------------------------------------------ streams, events */

HANDLER(call_stream_create)
{
    UNUSED_SESSION;
    CUstream stream = NULL;
    CUresult rc = cuStreamCreate(&stream, (unsigned)req->arg[0]);
    reply->arg[0] = (uintptr_t)stream;
    return rc;
}

HANDLER(call_stream_destroy)
{
    UNUSED_REPLY;
    CUresult rc = remote_owned(s, DRIVER_STREAM, req->arg[0]);
    return rc == CUDA_SUCCESS ? cuStreamDestroy((CUstream)(uintptr_t)req->arg[0]) : rc;
}

HANDLER(call_stream_synchronize)
{
    UNUSED_REPLY;
    CUresult rc = remote_stream_owned(s, req->arg[0]);
    return rc == CUDA_SUCCESS ? cuStreamSynchronize((CUstream)(uintptr_t)req->arg[0]) : rc;
}

HANDLER(call_stream_query)
{
    UNUSED_REPLY;
    CUresult rc = remote_stream_owned(s, req->arg[0]);
    return rc == CUDA_SUCCESS ? cuStreamQuery((CUstream)(uintptr_t)req->arg[0]) : rc;
}

HANDLER(call_stream_wait_event)
{
    UNUSED_REPLY;
    CUresult rc = remote_stream_owned(s, req->arg[0]);
    if (rc == CUDA_SUCCESS)
        rc = remote_owned(s, DRIVER_EVENT, req->arg[1]);
    if (rc == CUDA_SUCCESS)
        rc = cuStreamWaitEvent((CUstream)(uintptr_t)req->arg[0], (CUevent)(uintptr_t)req->arg[1],
                               (unsigned)req->arg[2]);
    return rc;
}

HANDLER(call_event_create)
{
    UNUSED_SESSION;
    CUevent event = NULL;
    CUresult rc = cuEventCreate(&event, (unsigned)req->arg[0]);
    reply->arg[0] = (uintptr_t)event;
    return rc;
}

HANDLER(call_event_record)
{
    UNUSED_REPLY;
    CUresult rc = remote_owned(s, DRIVER_EVENT, req->arg[0]);
    if (rc == CUDA_SUCCESS)
        rc = remote_stream_owned(s, req->arg[1]);
    if (rc == CUDA_SUCCESS)
        rc = cuEventRecord((CUevent)(uintptr_t)req->arg[0], (CUstream)(uintptr_t)req->arg[1]);
    return rc;
}

HANDLER(call_event_synchronize)
{
    UNUSED_REPLY;
    CUresult rc = remote_owned(s, DRIVER_EVENT, req->arg[0]);
    return rc == CUDA_SUCCESS ? cuEventSynchronize((CUevent)(uintptr_t)req->arg[0]) : rc;
}

HANDLER(call_event_query)
{
    UNUSED_REPLY;
    CUresult rc = remote_owned(s, DRIVER_EVENT, req->arg[0]);
    return rc == CUDA_SUCCESS ? cuEventQuery((CUevent)(uintptr_t)req->arg[0]) : rc;
}

HANDLER(call_event_elapsed)
{
    CUresult rc = remote_owned(s, DRIVER_EVENT, req->arg[0]);
    if (rc == CUDA_SUCCESS)
        rc = remote_owned(s, DRIVER_EVENT, req->arg[1]);
    float ms = 0;
    if (rc == CUDA_SUCCESS)
        rc = cuEventElapsedTime(&ms, (CUevent)(uintptr_t)req->arg[0],
                                (CUevent)(uintptr_t)req->arg[1]);
    uint32_t bits;
    memcpy(&bits, &ms, sizeof bits);
    reply->arg[0] = bits;
    return rc;
}

HANDLER(call_event_destroy)
{
    UNUSED_REPLY;
    CUresult rc = remote_owned(s, DRIVER_EVENT, req->arg[0]);
    return rc == CUDA_SUCCESS ? cuEventDestroy((CUevent)(uintptr_t)req->arg[0]) : rc;
}

/* ---------------------------------------- pointers, errors, occupancy */

/* Of the client's own memory only (an attribute of another context's
 * memory would tell of it). Every attribute forwarded fits 8 bytes; the
 * buffer is larger in case one writes more. */
HANDLER(call_pointer_get_attribute)
{
    UNUSED_SESSION;
    uint64_t value[8] = {0};
    CUresult rc = driver_own_range_check(req->arg[1], 1);
    if (rc == CUDA_SUCCESS)
        rc = cuPointerGetAttribute(value, (CUpointer_attribute)req->arg[0], req->arg[1]);
    reply->arg[0] = value[0];
    return rc;
}

HANDLER(call_get_error_name)
{
    const char *text = NULL;
    CUresult rc = cuGetErrorName((CUresult)req->arg[0], &text);
    remote_reply_string(s, reply, rc == CUDA_SUCCESS && text != NULL ? text : "");
    return rc;
}

HANDLER(call_get_error_string)
{
    const char *text = NULL;
    CUresult rc = cuGetErrorString((CUresult)req->arg[0], &text);
    remote_reply_string(s, reply, rc == CUDA_SUCCESS && text != NULL ? text : "");
    return rc;
}

HANDLER(call_occupancy_active_blocks)
{
    int blocks = 0;
    CUresult rc = remote_owned(s, DRIVER_FUNCTION, req->arg[0]);
    if (rc == CUDA_SUCCESS)
        rc = cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
            &blocks, (CUfunction)(uintptr_t)req->arg[0], (int)req->arg[1], (size_t)req->arg[2],
            (unsigned)req->arg[3]);
    reply->arg[0] = (uint64_t)blocks;
    return rc;
}

/* Without a callback for the dynamic shared memory (numba passes none). */
HANDLER(call_occupancy_max_block_size)
{
    int grid = 0, block = 0;
    CUresult rc = remote_owned(s, DRIVER_FUNCTION, req->arg[0]);
    if (rc == CUDA_SUCCESS)
        rc = cuOccupancyMaxPotentialBlockSizeWithFlags(
            &grid, &block, (CUfunction)(uintptr_t)req->arg[0], NULL, (size_t)req->arg[1],
            (int)req->arg[2], (unsigned)req->arg[3]);
    reply->arg[0] = (uint64_t)grid;
    reply->arg[1] = (uint64_t)block;
    return rc;
}

/* --------------------------------------------------- functions, modules */

HANDLER(call_func_get_attribute)
{
    int value = 0;
    CUresult rc = remote_owned(s, DRIVER_FUNCTION, req->arg[1]);
    if (rc == CUDA_SUCCESS)
        rc = cuFuncGetAttribute(&value, (CUfunction_attribute)req->arg[0],
                                (CUfunction)(uintptr_t)req->arg[1]);
    reply->arg[0] = (uint64_t)value;
    return rc;
}

HANDLER(call_func_set_cache_config)
{
    UNUSED_REPLY;
    CUresult rc = remote_owned(s, DRIVER_FUNCTION, req->arg[0]);
    return rc == CUDA_SUCCESS
               ? cuFuncSetCacheConfig((CUfunction)(uintptr_t)req->arg[0], (CUfunc_cache)req->arg[1])
               : rc;
}

/* Its variables' entries go (remote_host_prune). */
HANDLER(call_module_unload)
{
    UNUSED_REPLY;
    CUresult rc = remote_owned(s, DRIVER_MODULE, req->arg[0]);
    if (rc == CUDA_SUCCESS)
        rc = cuModuleUnload((CUmodule)(uintptr_t)req->arg[0]);
    if (rc == CUDA_SUCCESS)
        remote_host_prune(s);
    return rc;
}

/* -------------------------------------------------------------- the table */

#define INIT    REMOTE_NEEDS_INIT
#define CONTEXT REMOTE_NEEDS_CONTEXT

const struct remote_call remote_calls[REMOTE_OPS] = {
    [REMOTE_INIT] = {call_init, REMOTE_NEEDS_NOTHING},
    [REMOTE_DRIVER_GET_VERSION] = {call_driver_get_version, REMOTE_NEEDS_NOTHING},
    [REMOTE_DEVICE_GET_COUNT] = {call_device_get_count, INIT},
    [REMOTE_DEVICE_GET] = {call_device_get, INIT},
    [REMOTE_DEVICE_GET_NAME] = {call_device_get_name, INIT},
    [REMOTE_DEVICE_GET_ATTRIBUTE] = {call_device_get_attribute, INIT},
    [REMOTE_DEVICE_TOTAL_MEM] = {call_device_total_mem, INIT},
    [REMOTE_DEVICE_GET_UUID] = {call_device_get_uuid, INIT},
    [REMOTE_DEVICE_CAN_ACCESS_PEER] = {call_device_can_access_peer, INIT},
    [REMOTE_PRIMARY_RETAIN] = {call_primary_retain, INIT},
    [REMOTE_PRIMARY_RELEASE] = {call_primary_keep, INIT},
    [REMOTE_PRIMARY_RESET] = {call_primary_keep, INIT},
    [REMOTE_PRIMARY_GET_STATE] = {call_primary_get_state, INIT},
    [REMOTE_CTX_PUSH] = {call_ctx_push, INIT},
    [REMOTE_CTX_POP] = {call_ctx_pop, INIT},
    [REMOTE_CTX_SET_CURRENT] = {call_ctx_set_current, INIT},
    [REMOTE_CTX_GET_CURRENT] = {call_ctx_get_current, INIT},
    [REMOTE_CTX_GET_DEVICE] = {call_ctx_get_device, CONTEXT},
    [REMOTE_CTX_SYNCHRONIZE] = {call_ctx_synchronize, CONTEXT},
    [REMOTE_MEM_ALLOC] = {call_mem_alloc, CONTEXT},
    /* what releases memory or a handle works with no context current
       (numba frees after popping its context) */
    [REMOTE_MEM_FREE] = {call_mem_free, INIT},
    [REMOTE_MEM_GET_INFO] = {call_mem_get_info, CONTEXT},
    [REMOTE_MEM_GET_ADDRESS_RANGE] = {call_mem_get_address_range, CONTEXT},
    [REMOTE_MEMCPY_HTOD] = {remote_memcpy_htod, CONTEXT},
    [REMOTE_MEMCPY_DTOH] = {remote_memcpy_dtoh, CONTEXT},
    [REMOTE_MEMCPY_DTOD] = {call_memcpy_dtod, CONTEXT},
    [REMOTE_MEMSET_D8] = {call_memset_d8, CONTEXT},
    [REMOTE_LINK_CREATE] = {remote_link_create, CONTEXT},
    [REMOTE_LINK_ADD_DATA] = {remote_link_add_data, CONTEXT},
    [REMOTE_LINK_COMPLETE] = {remote_link_complete, CONTEXT},
    [REMOTE_LINK_DESTROY] = {remote_link_destroy, INIT},
    [REMOTE_MODULE_LOAD] = {remote_module_load, CONTEXT},
    [REMOTE_MODULE_UNLOAD] = {call_module_unload, INIT},
    [REMOTE_MODULE_GET_FUNCTION] = {remote_module_get_function, CONTEXT},
    [REMOTE_MODULE_GET_GLOBAL] = {remote_module_get_global, CONTEXT},
    [REMOTE_FUNC_GET_ATTRIBUTE] = {call_func_get_attribute, INIT},
    [REMOTE_FUNC_SET_CACHE_CONFIG] = {call_func_set_cache_config, INIT},
    [REMOTE_FUNC_PARAMS] = {remote_func_params, INIT},
    [REMOTE_LAUNCH] = {remote_launch, CONTEXT},
    [REMOTE_STREAM_CREATE] = {call_stream_create, CONTEXT},
    [REMOTE_STREAM_DESTROY] = {call_stream_destroy, INIT},
    [REMOTE_STREAM_SYNCHRONIZE] = {call_stream_synchronize, CONTEXT},
    [REMOTE_STREAM_QUERY] = {call_stream_query, CONTEXT},
    [REMOTE_STREAM_WAIT_EVENT] = {call_stream_wait_event, CONTEXT},
    [REMOTE_EVENT_CREATE] = {call_event_create, CONTEXT},
    [REMOTE_EVENT_RECORD] = {call_event_record, CONTEXT},
    [REMOTE_EVENT_SYNCHRONIZE] = {call_event_synchronize, CONTEXT},
    [REMOTE_EVENT_QUERY] = {call_event_query, CONTEXT},
    [REMOTE_EVENT_ELAPSED] = {call_event_elapsed, CONTEXT},
    [REMOTE_EVENT_DESTROY] = {call_event_destroy, INIT},
    [REMOTE_POINTER_GET_ATTRIBUTE] = {call_pointer_get_attribute, INIT},
    [REMOTE_GET_ERROR_NAME] = {call_get_error_name, REMOTE_NEEDS_NOTHING},
    [REMOTE_GET_ERROR_STRING] = {call_get_error_string, REMOTE_NEEDS_NOTHING},
    [REMOTE_OCCUPANCY_ACTIVE_BLOCKS] = {call_occupancy_active_blocks, CONTEXT},
    [REMOTE_OCCUPANCY_MAX_BLOCK_SIZE] = {call_occupancy_max_block_size, CONTEXT},
};
