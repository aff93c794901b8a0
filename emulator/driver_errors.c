/*
 * cuGetErrorName and cuGetErrorString for every CUresult of cuda.h (CUDA
 * 13.0), with the texts the real driver gives, so that messages read the
 * same on the virtual GPU as on a real one. Both answer before cuInit.
 */
#include <stddef.h>

#include "driver.h"

struct error_text {
    CUresult code;
    const char *name;
    const char *text;
};

#define ERROR(code, text)                                                                          \
    {                                                                                              \
        code, #code, text                                                                          \
    }

static const struct error_text errors[] = {
    ERROR(CUDA_SUCCESS, "no error"),
    ERROR(CUDA_ERROR_INVALID_VALUE, "invalid argument"),
    ERROR(CUDA_ERROR_OUT_OF_MEMORY, "out of memory"),
    ERROR(CUDA_ERROR_NOT_INITIALIZED, "initialization error"),
    ERROR(CUDA_ERROR_DEINITIALIZED, "driver shutting down"),
    ERROR(CUDA_ERROR_PROFILER_DISABLED, "profiler disabled while using external profiling tool"),
    ERROR(CUDA_ERROR_PROFILER_NOT_INITIALIZED,
          "profiler not initialized: call cudaProfilerInitialize()"),
    ERROR(CUDA_ERROR_PROFILER_ALREADY_STARTED, "profiler already started"),
    ERROR(CUDA_ERROR_PROFILER_ALREADY_STOPPED, "profiler already stopped"),
    ERROR(CUDA_ERROR_STUB_LIBRARY, "CUDA driver is a stub library"),
    ERROR(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER,
          "API call is not supported in the installed CUDA driver"),
    ERROR(CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA-capable device(s) is/are busy or unavailable"),
    ERROR(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected"),
    ERROR(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal"),
    ERROR(CUDA_ERROR_DEVICE_NOT_LICENSED, "device doesn't have valid Grid license"),
    ERROR(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid"),
    ERROR(CUDA_ERROR_INVALID_CONTEXT, "invalid device context"),
    ERROR(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, "context already current"),
    ERROR(CUDA_ERROR_MAP_FAILED, "mapping of buffer object failed"),
    ERROR(CUDA_ERROR_UNMAP_FAILED, "unmapping of buffer object failed"),
    ERROR(CUDA_ERROR_ARRAY_IS_MAPPED, "array is mapped"),
    ERROR(CUDA_ERROR_ALREADY_MAPPED, "resource already mapped"),
    ERROR(CUDA_ERROR_NO_BINARY_FOR_GPU, "no kernel image is available for execution on the device"),
    ERROR(CUDA_ERROR_ALREADY_ACQUIRED, "resource already acquired"),
    ERROR(CUDA_ERROR_NOT_MAPPED, "resource not mapped"),
    ERROR(CUDA_ERROR_NOT_MAPPED_AS_ARRAY, "resource not mapped as array"),
    ERROR(CUDA_ERROR_NOT_MAPPED_AS_POINTER, "resource not mapped as pointer"),
    ERROR(CUDA_ERROR_ECC_UNCORRECTABLE, "uncorrectable ECC error encountered"),
    ERROR(CUDA_ERROR_UNSUPPORTED_LIMIT, "limit is not supported on this architecture"),
    ERROR(CUDA_ERROR_CONTEXT_ALREADY_IN_USE,
          "exclusive-thread device already in use by a different thread"),
    ERROR(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
          "peer access is not supported between these two devices"),
    ERROR(CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed"),
    ERROR(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, "invalid OpenGL or DirectX context"),
    ERROR(CUDA_ERROR_NVLINK_UNCORRECTABLE,
          "uncorrectable NVLink error detected during the execution"),
    ERROR(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "PTX JIT compiler library not found"),
    ERROR(CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
          "the provided PTX was compiled with an unsupported toolchain."),
    ERROR(CUDA_ERROR_JIT_COMPILATION_DISABLED, "PTX JIT compilation was disabled"),
    ERROR(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, "the provided execution affinity is not supported"),
    ERROR(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC,
          "the provided PTX contains unsupported call to cudaDeviceSynchronize"),
    ERROR(CUDA_ERROR_CONTAINED, "an exception occurred on the device that is now contained by the "
                                "GPU's error containment capability"),
    ERROR(CUDA_ERROR_INVALID_SOURCE, "device kernel image is invalid"),
    ERROR(CUDA_ERROR_FILE_NOT_FOUND, "file not found"),
    ERROR(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, "shared object symbol not found"),
    ERROR(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, "shared object initialization failed"),
    ERROR(CUDA_ERROR_OPERATING_SYSTEM, "OS call failed or operation not supported on this OS"),
    ERROR(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"),
    ERROR(CUDA_ERROR_ILLEGAL_STATE, "the operation cannot be performed in the present state"),
    ERROR(CUDA_ERROR_LOSSY_QUERY, "attempted introspection would be semantically lossy"),
    ERROR(CUDA_ERROR_NOT_FOUND, "named symbol not found"),
    ERROR(CUDA_ERROR_NOT_READY, "device not ready"),
    ERROR(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered"),
    ERROR(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for launch"),
    ERROR(CUDA_ERROR_LAUNCH_TIMEOUT, "the launch timed out and was terminated"),
    ERROR(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, "launch uses incompatible texturing mode"),
    ERROR(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "peer access is already enabled"),
    ERROR(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access has not been enabled"),
    ERROR(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, "cannot set while device is active in this process"),
    ERROR(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context is destroyed"),
    ERROR(CUDA_ERROR_ASSERT, "device-side assert triggered"),
    ERROR(CUDA_ERROR_TOO_MANY_PEERS, "peer mapping resources exhausted"),
    ERROR(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
          "part or all of the requested memory range is already mapped"),
    ERROR(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
          "pointer does not correspond to a registered memory region"),
    ERROR(CUDA_ERROR_HARDWARE_STACK_ERROR, "hardware stack error"),
    ERROR(CUDA_ERROR_ILLEGAL_INSTRUCTION, "an illegal instruction was encountered"),
    ERROR(CUDA_ERROR_MISALIGNED_ADDRESS, "misaligned address"),
    ERROR(CUDA_ERROR_INVALID_ADDRESS_SPACE,
          "operation not supported on global/shared address space"),
    ERROR(CUDA_ERROR_INVALID_PC, "invalid program counter"),
    ERROR(CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure"),
    ERROR(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "too many blocks in cooperative launch"),
    ERROR(CUDA_ERROR_TENSOR_MEMORY_LEAK, "tensor memory not completely freed"),
    ERROR(CUDA_ERROR_NOT_PERMITTED, "operation not permitted"),
    ERROR(CUDA_ERROR_NOT_SUPPORTED, "operation not supported"),
    ERROR(CUDA_ERROR_SYSTEM_NOT_READY, "system not yet initialized"),
    ERROR(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,
          "system has unsupported display driver / cuda driver combination"),
    ERROR(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE,
          "forward compatibility was attempted on non supported HW"),
    ERROR(CUDA_ERROR_MPS_CONNECTION_FAILED,
          "MPS client failed to connect to the MPS control daemon or the MPS server"),
    ERROR(CUDA_ERROR_MPS_RPC_FAILURE,
          "the remote procedural call between the MPS server and the MPS client failed"),
    ERROR(CUDA_ERROR_MPS_SERVER_NOT_READY,
          "MPS server is not ready to accept new MPS client requests"),
    ERROR(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED,
          "the hardware resources required to create MPS client have been exhausted"),
    ERROR(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED,
          "the hardware resources required to support device connections have been exhausted"),
    ERROR(CUDA_ERROR_MPS_CLIENT_TERMINATED, "the MPS client has been terminated by the server"),
    ERROR(CUDA_ERROR_CDP_NOT_SUPPORTED, "is using CUDA Dynamic Parallelism, but the current "
                                        "configuration, like MPS, does not support it"),
    ERROR(CUDA_ERROR_CDP_VERSION_MISMATCH,
          "interaction between different versions of CUDA Dynamic Parallelism is not supported"),
    ERROR(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
          "operation not permitted when stream is capturing"),
    ERROR(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
          "operation failed due to a previous error during capture"),
    ERROR(CUDA_ERROR_STREAM_CAPTURE_MERGE,
          "operation would result in a merge of separate capture sequences"),
    ERROR(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED,
          "capture was not ended in the same stream as it began"),
    ERROR(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "capturing stream has unjoined work"),
    ERROR(CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
          "dependency created on uncaptured work in another stream"),
    ERROR(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
          "operation would make the legacy stream depend on a capturing blocking stream"),
    ERROR(CUDA_ERROR_CAPTURED_EVENT,
          "operation not permitted on an event last recorded in a capturing stream"),
    ERROR(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
          "attempt to terminate a thread-local capture sequence from another thread"),
    ERROR(CUDA_ERROR_TIMEOUT, "wait operation timed out"),
    ERROR(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
          "the graph update was not performed because it included changes which violated "
          "constraints specific to instantiated graph update"),
    ERROR(CUDA_ERROR_EXTERNAL_DEVICE,
          "an async error has occurred in external entity outside of CUDA"),
    ERROR(CUDA_ERROR_INVALID_CLUSTER_SIZE,
          "a kernel launch error has occurred due to cluster misconfiguration"),
    ERROR(CUDA_ERROR_FUNCTION_NOT_LOADED,
          "the function handle is not loaded when calling an API that requires a loaded function"),
    ERROR(CUDA_ERROR_INVALID_RESOURCE_TYPE,
          "one or more resources passed in are not valid resource types for the operation"),
    ERROR(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION,
          "one or more resources are insufficient or non-applicable for the operation"),
    ERROR(CUDA_ERROR_KEY_ROTATION, "an error happened during the key rotation sequence"),
    ERROR(CUDA_ERROR_UNKNOWN, "unknown error"),
};

static const struct error_text *error_find(CUresult code)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == code)
            return &errors[i];
    return NULL;
}

/* An unknown code gets CUDA_ERROR_INVALID_VALUE and NULL, as cuda.h says. */
EMU_EXPORT CUresult cuGetErrorName(CUresult error, const char **pStr)
{
    if (pStr == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    const struct error_text *e = error_find(error);
    *pStr = e != NULL ? e->name : NULL;
    return e != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EMU_EXPORT CUresult cuGetErrorString(CUresult error, const char **pStr)
{
    if (pStr == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    const struct error_text *e = error_find(error);
    *pStr = e != NULL ? e->text : NULL;
    return e != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
