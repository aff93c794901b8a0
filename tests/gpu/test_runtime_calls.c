/*
 * The driver calls a language runtime binds besides the common ones
 * (numba 0.56's drvapi.py lists them): the older cuCtxCreate variants,
 * cuFuncSetCacheConfig, stream callbacks, cooperative launches, IPC, peer
 * access and profiler control, each with the answers cuda.h gives, and
 * cuGetProcAddress finding them.
 *
 * Where the virtual GPU cannot do what an H100 does (IPC between
 * processes, cooperative launches, peer access with one device) the call
 * checks its arguments as cuda.h says and then answers as a driver that
 * lacks the feature: CUDA_ERROR_NOT_SUPPORTED,
 * CUDA_ERROR_PEER_ACCESS_UNSUPPORTED.
 */
#include <cudaProfiler.h>

#include "gpu_test.h"

static const char source[] =
    "extern \"C\" __global__ void write_at(int *p, long long i, int v) { p[i] = v; }\n";

typedef CUresult (*ctx_create_v2)(CUcontext *, unsigned int, CUdevice);
typedef CUresult (*ctx_create_v3)(CUcontext *, CUexecAffinityParam *, int, unsigned int, CUdevice);

/* cuCtxCreate_v2 (numba binds it: CUcontext *, flags, device) and _v3 are
 * what older versions find; CUDA 12.5 and later get cuda.h's _v4. */
static void test_context_variants(void)
{
    ctx_create_v2 v2 = (ctx_create_v2)gpu_test_proc("cuCtxCreate", 3020);
    ctx_create_v3 v3 = (ctx_create_v3)gpu_test_proc("cuCtxCreate", 11040);
    CHECK((void *)v2 == gpu_test_proc("cuCtxCreate", 11000));
    CHECK(gpu_test_proc("cuCtxCreate", 13000) == (void *)cuCtxCreate);
    CHECK((void *)v2 != (void *)v3 && (void *)v3 != (void *)cuCtxCreate);
    void *p = NULL;
    CUdriverProcAddressQueryResult status;
    CHECK_CU_IS(cuGetProcAddress("cuCtxCreate", &p, 2000, 0, &status), CUDA_ERROR_NOT_FOUND);
    CHECK(p == NULL && status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    CUcontext a = NULL, b = NULL, top = NULL;
    if (v2 == NULL || v3 == NULL)
        return;
    CHECK_CU(v2(&a, 0, 0));
    CHECK_CU(cuCtxGetCurrent(&top));
    CHECK(a != NULL && top == a);
    CHECK_CU_IS(v2(NULL, 0, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(v2(&b, 0, 3), CUDA_ERROR_INVALID_DEVICE);
    CHECK_CU(v3(&b, NULL, 0, 0, 0));
    CHECK(b != NULL && b != a);
    CUexecAffinityParam affinity;
    memset(&affinity, 0, sizeof affinity);
    CHECK_CU_IS(v3(&top, &affinity, 1, 0, 0), CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY);
    CHECK_CU_IS(v3(&top, NULL, -1, 0, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuCtxDestroy(b));
    CHECK_CU(cuCtxDestroy(a));
}

/* Every call added for numba, under cuda.h's names. */
static void test_proc_address(void)
{
    static const struct gpu_test_entry entries[] = {
        {"cuFuncSetCacheConfig", (void *)cuFuncSetCacheConfig},
        {"cuStreamAddCallback", (void *)cuStreamAddCallback},
        {"cuLaunchCooperativeKernel", (void *)cuLaunchCooperativeKernel},
        {"cuIpcGetMemHandle", (void *)cuIpcGetMemHandle},
        {"cuIpcOpenMemHandle", (void *)cuIpcOpenMemHandle},
        {"cuIpcCloseMemHandle", (void *)cuIpcCloseMemHandle},
        {"cuCtxEnablePeerAccess", (void *)cuCtxEnablePeerAccess},
        {"cuCtxDisablePeerAccess", (void *)cuCtxDisablePeerAccess},
        {"cuProfilerStart", (void *)cuProfilerStart},
        {"cuProfilerStop", (void *)cuProfilerStop},
        {"cuMemAllocManaged", (void *)cuMemAllocManaged},
        {"cuMemAllocHost", (void *)cuMemAllocHost},
        {"cuMemHostAlloc", (void *)cuMemHostAlloc},
        {"cuMemFreeHost", (void *)cuMemFreeHost},
        {"cuMemHostRegister", (void *)cuMemHostRegister},
        {"cuMemHostUnregister", (void *)cuMemHostUnregister},
        {"cuMemHostGetDevicePointer", (void *)cuMemHostGetDevicePointer},
        {"cuMemHostGetFlags", (void *)cuMemHostGetFlags},
        {"cuPointerGetAttribute", (void *)cuPointerGetAttribute},
    };
    gpu_test_procs_found(entries, sizeof entries / sizeof entries[0]);
}

static void test_cache_config(CUfunction f)
{
    CHECK_CU(cuFuncSetCacheConfig(f, CU_FUNC_CACHE_PREFER_NONE));
    CHECK_CU(cuFuncSetCacheConfig(f, CU_FUNC_CACHE_PREFER_SHARED));
    CHECK_CU(cuFuncSetCacheConfig(f, CU_FUNC_CACHE_PREFER_L1));
    CHECK_CU(cuFuncSetCacheConfig(f, CU_FUNC_CACHE_PREFER_EQUAL));
    CHECK_CU_IS(cuFuncSetCacheConfig(f, (CUfunc_cache)9), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuFuncSetCacheConfig((CUfunction)&f, CU_FUNC_CACHE_PREFER_L1),
                CUDA_ERROR_INVALID_HANDLE);
}

/* ------------------------------------------------------ stream callbacks */

struct callback_log {
    int calls;
    CUresult status;
    CUstream stream;
    CUresult driver_call; /* what a driver call made inside the callback answered */
};

static void CUDA_CB record_callback(CUstream stream, CUresult status, void *data)
{
    struct callback_log *log = data;
    log->calls++;
    log->status = status;
    log->stream = stream;
    log->driver_call = cuCtxSynchronize();
}

/* The callback runs once, after the work issued before it (here: a launch
 * whose result the stream's synchronization shows), and may not call the
 * driver. */
static void test_callbacks(CUfunction write_at)
{
    CUstream s;
    CUdeviceptr d;
    if (!CHECK_CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)) || !CHECK_CU(cuMemAlloc(&d, 64)))
        return;
    long long i = 3;
    int v = 42, got = 0;
    void *args[] = {&d, &i, &v};
    struct callback_log log = {.status = CUDA_ERROR_UNKNOWN};
    CHECK_CU(cuLaunchKernel(write_at, 1, 1, 1, 1, 1, 1, 0, s, args, NULL));
    CHECK_CU(cuStreamAddCallback(s, record_callback, &log, 0));
    CHECK_CU(cuStreamSynchronize(s));
    CHECK_EQ(log.calls, 1);
    CHECK_EQ(log.status, CUDA_SUCCESS);
    CHECK(log.stream == s);
    CHECK_EQ(log.driver_call, CUDA_ERROR_NOT_PERMITTED);
    CHECK_CU(cuCtxSynchronize()); /* allowed again once the callback is over */
    CHECK_CU(cuMemcpyDtoH(&got, d + i * sizeof got, sizeof got));
    CHECK_EQ(got, 42);
    CHECK_CU(cuStreamAddCallback(NULL, record_callback, &log, 0)); /* the legacy stream */
    CHECK_CU(cuCtxSynchronize());
    CHECK_EQ(log.calls, 2);
    CHECK_CU_IS(cuStreamAddCallback(s, record_callback, &log, 1), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuStreamAddCallback(s, NULL, &log, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuStreamAddCallback((CUstream)&log, record_callback, &log, 0),
                CUDA_ERROR_INVALID_HANDLE);
    CHECK_EQ(log.calls, 2);
    CHECK_CU(cuStreamDestroy(s));
    CHECK_CU(cuMemFree(d));
}

/* After a device fault the callbacks still run, and are told of it. */
static void test_callback_after_fault(void)
{
    CUcontext ctx;
    CUmodule module;
    CUfunction write_at;
    CUdeviceptr d;
    if (!CHECK_CU(cuCtxCreate(&ctx, NULL, 0, 0)))
        return;
    if (CHECK_CU(gpu_test_load_source(&module, source, "runtime_calls.cu")) &&
        CHECK_CU(cuModuleGetFunction(&write_at, module, "write_at")) &&
        CHECK_CU(cuMemAlloc(&d, 64))) {
        long long far = 1ll << 40;
        int v = 1;
        void *args[] = {&d, &far, &v};
        struct callback_log log = {.status = CUDA_SUCCESS};
        CHECK_CU(cuLaunchKernel(write_at, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
        CHECK_CU(cuStreamAddCallback(NULL, record_callback, &log, 0));
        CHECK_CU_IS(cuStreamSynchronize(NULL), CUDA_ERROR_ILLEGAL_ADDRESS);
        CHECK_EQ(log.calls, 1);
        CHECK_EQ(log.status, CUDA_ERROR_ILLEGAL_ADDRESS);
    }
    CHECK_CU(cuCtxDestroy(ctx));
}

/* ------------------------------------------------- what one GPU lacks */

static void test_cooperative(CUfunction write_at)
{
    CUdeviceptr d;
    if (!CHECK_CU(cuMemAlloc(&d, 64)))
        return;
    long long i = 0;
    int v = 1;
    void *args[] = {&d, &i, &v};
    CHECK_CU_IS(cuLaunchCooperativeKernel(write_at, 1, 1, 1, 1, 1, 1, 0, NULL, args),
                CUDA_ERROR_NOT_SUPPORTED);
    CHECK_CU_IS(cuLaunchCooperativeKernel((CUfunction)&d, 1, 1, 1, 1, 1, 1, 0, NULL, args),
                CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU(cuCtxSynchronize()); /* a refused launch leaves the context usable */
    CHECK_CU(cuMemFree(d));
}

static void test_ipc(void)
{
    CUdeviceptr d, opened = 0;
    CUipcMemHandle handle;
    memset(&handle, 0, sizeof handle);
    if (!CHECK_CU(cuMemAlloc(&d, 4096)))
        return;
    CHECK_CU_IS(cuIpcGetMemHandle(&handle, d), CUDA_ERROR_NOT_SUPPORTED);
    CHECK_CU_IS(cuIpcGetMemHandle(&handle, d + 8), CUDA_ERROR_INVALID_VALUE); /* not a base */
    CHECK_CU_IS(cuIpcGetMemHandle(NULL, d), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuIpcOpenMemHandle(&opened, handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
                CUDA_ERROR_NOT_SUPPORTED);
    CHECK_CU_IS(cuIpcOpenMemHandle(&opened, handle, 4), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuIpcOpenMemHandle(NULL, handle, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_EQ(opened, 0);
    CHECK_CU_IS(cuIpcCloseMemHandle(d), CUDA_ERROR_NOT_SUPPORTED);
    CHECK_CU(cuMemFree(d));
}

static void test_peer_access(CUcontext current)
{
    CUcontext other;
    CUcontext popped = NULL;
    if (!CHECK_CU(cuCtxCreate(&other, NULL, 0, 0)) || !CHECK_CU(cuCtxPopCurrent(&popped)))
        return;
    CHECK(popped == other);
    int can = -1;
    CHECK_CU(cuDeviceCanAccessPeer(&can, 0, 0));
    CHECK_EQ(can, 0);
    CHECK_CU_IS(cuCtxEnablePeerAccess(other, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
    CHECK_CU_IS(cuCtxEnablePeerAccess(other, 1), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuCtxEnablePeerAccess(current, 0), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_CU_IS(cuCtxEnablePeerAccess((CUcontext)&can, 0), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_CU_IS(cuCtxDisablePeerAccess(other), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
    CHECK_CU(cuCtxDestroy(other));
    CHECK_CU_IS(cuCtxEnablePeerAccess(other, 0), CUDA_ERROR_INVALID_CONTEXT);
}

static void test_profiler(void)
{
    CHECK_CU(cuProfilerStart());
    CHECK_CU(cuProfilerStart()); /* no error since CUDA 5.0 */
    CHECK_CU(cuProfilerStop());
    CHECK_CU(cuProfilerStop());
}

static void test_without_context(void)
{
    CUcontext none = NULL;
    CHECK_CU(cuCtxPopCurrent(&none));
    CHECK_CU_IS(cuProfilerStart(), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_CU_IS(cuStreamAddCallback(NULL, record_callback, NULL, 0), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_CU_IS(cuIpcCloseMemHandle(0), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_CU(cuCtxPushCurrent(none));
}

int main(void)
{
    CUcontext ctx;
    CUmodule module;
    CUfunction write_at;
    if (!gpu_test_start(&ctx))
        return gpu_test_summary();
    test_proc_address();
    if (CHECK_CU(gpu_test_load_source(&module, source, "runtime_calls.cu")) &&
        CHECK_CU(cuModuleGetFunction(&write_at, module, "write_at"))) {
        test_cache_config(write_at);
        test_callbacks(write_at);
        test_cooperative(write_at);
    }
    test_ipc();
    test_profiler();
    test_without_context();
    test_peer_access(ctx);
    CHECK_CU(cuCtxDestroy(ctx));
    test_context_variants();
    test_callback_after_fault();
    return gpu_test_summary();
}
