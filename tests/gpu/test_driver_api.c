/*
 * The driver API of the virtual GPU, everything that needs no kernel:
 * initialization, devices and their attributes (H100 by default; A100, T4
 * and an unknown name through KGEMU_DEVICE, each in a child process since
 * cuInit picks the model once), contexts, limits, memory, streams, events,
 * copies and memsets (their Async and 2D forms too), cuMemcpy under
 * unified addressing, compute capability and peers, host threads with
 * contexts of their own, error names, cuGetProcAddress,
 * refused module images, and NVRTC still working with this libcuda.so.1
 * loaded.
 *
 * Written against cuda.h and NVRTC only; see gpu_test.h.
 */
#define CUDA_ENABLE_DEPRECATED /* cuDeviceComputeCapability */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "gpu_test.h"

#define GIB               (1024ull * 1024 * 1024)
#define MIB               (1024ull * 1024)
#define CUDA_RESULT_COUNT 101 /* the CUresult values of cuda.h 13.0 */
#define THREADS           4
#define THREAD_ROUNDS     200

/* --------------------------------------------------------- before cuInit */

static void test_before_init(void)
{
    int n = -1;
    CUdevice dev;
    CUcontext ctx;
    CUdeviceptr p;
    CHECK_CU_IS(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
    CHECK_CU_IS(cuDeviceGet(&dev, 0), CUDA_ERROR_NOT_INITIALIZED);
    CHECK_CU_IS(cuCtxGetCurrent(&ctx), CUDA_ERROR_NOT_INITIALIZED);
    CHECK_CU_IS(cuMemAlloc(&p, 16), CUDA_ERROR_NOT_INITIALIZED);
    CHECK_CU_IS(cuCtxSynchronize(), CUDA_ERROR_NOT_INITIALIZED);
    CHECK_CU_IS(cuInit(1), CUDA_ERROR_INVALID_VALUE);
    int version = 0;
    CHECK_CU(cuDriverGetVersion(&version));
    CHECK_EQ(version, 13000);
    CHECK_CU_IS(cuDriverGetVersion(NULL), CUDA_ERROR_INVALID_VALUE);
}

/* ------------------------------------------------ models by KGEMU_DEVICE */

static int attribute(CUdevice_attribute a)
{
    int v = -1;
    CHECK_CU(cuDeviceGetAttribute(&v, a, 0));
    return v;
}

static bool name_contains(const char *part)
{
    char name[256] = "";
    CHECK_CU(cuDeviceGetName(name, sizeof name, 0));
    return strstr(name, part) != NULL;
}

static void child_a100(void)
{
    CHECK_CU(cuInit(0));
    CHECK(name_contains("A100"));
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), 108);
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR), 8);
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR), 0);
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), 166912);
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR), 164 * 1024);
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), 40 * MIB);
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE), 1410000);
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH), 0); /* Hopper's */
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE), 30 * MIB);
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID), 0x20b210de);
}

static void child_t4(void)
{
    CHECK_CU(cuInit(0));
    CHECK(name_contains("T4"));
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), 40);
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR), 7);
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR), 5);
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR), 1024);
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR), 16);
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), 65536);
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), 4 * MIB);
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE), 0);
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO), 32);
    size_t total = 0;
    CHECK_CU(cuDeviceTotalMem(&total, 0));
    CHECK_EQ(total, 16 * GIB);
}

static void child_h200(void)
{
    CHECK_CU(cuInit(0));
    CHECK(name_contains("H200"));
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), 132);
    CHECK_EQ(attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), 60 * MIB);
    size_t total = 0;
    CHECK_CU(cuDeviceTotalMem(&total, 0));
    CHECK_EQ(total, 141 * GIB);
}

static void child_unknown(void)
{
    int n = -1;
    CHECK_CU_IS(cuInit(0), CUDA_ERROR_NO_DEVICE);
    CHECK_CU_IS(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
    CHECK_CU_IS(cuInit(0), CUDA_ERROR_NO_DEVICE);
}

static void test_device_selection(void)
{
    gpu_test_in_child("a100", child_a100);
    gpu_test_in_child("T4", child_t4); /* case does not matter */
    gpu_test_in_child("h200", child_h200);
    gpu_test_in_child("rtx9999", child_unknown);
}

/* ------------------------------------------------------------- devices */

struct expected_attribute {
    CUdevice_attribute attribute;
    int value;
};

static const struct expected_attribute h100[] = {
    {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 132},
    {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024},
    {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 2048},
    {CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, 32},
    {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 1024},
    {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1024},
    {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64},
    {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 2147483647},
    {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535},
    {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 65535},
    {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 48 * 1024},
    {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 228 * 1024},
    {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 232448},
    {CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, 1024},
    {CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32},
    {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 9},
    {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0},
    {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 50 * 1024 * 1024},
    {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 1980000},
    {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 2619000},
    {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 5120},
    {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 65536},
    {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, 65536},
    {CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, 65536},
    {CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 1},
    {CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, 1},
    {CU_DEVICE_ATTRIBUTE_ECC_ENABLED, 1},
    {CU_DEVICE_ATTRIBUTE_INTEGRATED, 0},
    {CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, 1},
    {CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, CU_COMPUTEMODE_DEFAULT},
    {CU_DEVICE_ATTRIBUTE_MAX_PITCH, 2147483647},
    {CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, 3},
    {CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 0},
    {CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, 0},
    {CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH, 131072},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT, 65536},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH, 16384},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS, 2048},
    {CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, 512},
    {CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT, 32},
    {CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT, 512},
    {CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT, 0},
    {CU_DEVICE_ATTRIBUTE_TCC_DRIVER, 0},
    {CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 1},
    {CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, 1},
    {CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 1},
    {CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO, 2},
    {CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, 50 * 1024 * 1024 * 3 / 4},
    {CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, 134213632},
    {CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, 1},
    {CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT, 4},
    {CU_DEVICE_ATTRIBUTE_NUMA_ID, -1},
    {CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID, 0x233010de}, /* H100 SXM5 80GB */
    {CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK, 0},
    {CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED, 0},
};

static void test_device_attributes(void)
{
    for (size_t i = 0; i < sizeof h100 / sizeof h100[0]; i++) {
        int v = -1;
        CUresult rc = cuDeviceGetAttribute(&v, h100[i].attribute, 0);
        if (!CHECK_CU(rc) || !CHECK_EQ(v, h100[i].value))
            fprintf(stderr, "  (attribute %d)\n", (int)h100[i].attribute);
    }
    int v, answered = 0;
    for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; a++) /* every attribute cuda.h defines */
        answered += cuDeviceGetAttribute(&v, (CUdevice_attribute)a, 0) == CUDA_SUCCESS;
    CHECK_EQ(answered, CU_DEVICE_ATTRIBUTE_MAX - 1);
    CHECK_CU_IS(cuDeviceGetAttribute(&v, (CUdevice_attribute)0, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuDeviceGetAttribute(&v, (CUdevice_attribute)-1, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuDeviceGetAttribute(&v, (CUdevice_attribute)100000, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 1),
                CUDA_ERROR_INVALID_DEVICE);
    CHECK_CU_IS(cuDeviceGetAttribute(NULL, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0),
                CUDA_ERROR_INVALID_VALUE);
}

static void test_devices(void)
{
    int n = 0;
    CHECK_CU(cuDeviceGetCount(&n));
    CHECK_EQ(n, 1);
    CUdevice dev = -1;
    CHECK_CU(cuDeviceGet(&dev, 0));
    CHECK_EQ(dev, 0);
    CHECK_CU_IS(cuDeviceGet(&dev, 1), CUDA_ERROR_INVALID_DEVICE);
    CHECK_CU_IS(cuDeviceGet(&dev, -1), CUDA_ERROR_INVALID_DEVICE);
    CHECK(name_contains("emulated"));
    CHECK(name_contains("H100"));
    char small[5];
    CHECK_CU(cuDeviceGetName(small, sizeof small, 0));
    CHECK_EQ(strlen(small), sizeof small - 1);
    CHECK_CU_IS(cuDeviceGetName(small, 0, 0), CUDA_ERROR_INVALID_VALUE);
    size_t total = 0;
    CHECK_CU(cuDeviceTotalMem(&total, 0));
    CHECK_EQ(total, 80 * GIB);
    CUuuid uuid;
    memset(&uuid, 0, sizeof uuid);
    CHECK_CU(cuDeviceGetUuid(&uuid, 0));
    CHECK(uuid.bytes[0] != 0);
    test_device_attributes();
    int major = 0, minor = -1, peer = -1;
    CHECK_CU(cuDeviceComputeCapability(&major, &minor, 0));
    CHECK(major == 9 && minor == 0);
    CHECK_CU_IS(cuDeviceComputeCapability(NULL, &minor, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuDeviceComputeCapability(&major, &minor, 1), CUDA_ERROR_INVALID_DEVICE);
    CHECK_CU(cuDeviceCanAccessPeer(&peer, 0, 0));
    CHECK_EQ(peer, 0); /* one device, not its own peer */
    CHECK_CU_IS(cuDeviceCanAccessPeer(&peer, 0, 1), CUDA_ERROR_INVALID_DEVICE);
    CHECK_CU_IS(cuDeviceCanAccessPeer(&peer, -1, 0), CUDA_ERROR_INVALID_DEVICE);
    CHECK_CU_IS(cuDeviceCanAccessPeer(NULL, 0, 0), CUDA_ERROR_INVALID_VALUE);
}

/* ------------------------------------------------------------- contexts */

static CUcontext current(void)
{
    CUcontext ctx = (CUcontext)(uintptr_t)1;
    CHECK_CU(cuCtxGetCurrent(&ctx));
    return ctx;
}

static void test_primary_context(void)
{
    CUcontext a = NULL, b = NULL;
    CHECK_CU(cuDevicePrimaryCtxRetain(&a, 0));
    CHECK_CU(cuDevicePrimaryCtxRetain(&b, 0));
    CHECK(a != NULL && a == b);
    unsigned flags = 1;
    int active = 0;
    CHECK_CU(cuDevicePrimaryCtxGetState(0, &flags, &active));
    CHECK_EQ(active, 1);
    CHECK(current() == NULL);
    CHECK_CU(cuCtxSetCurrent(a));
    CHECK(current() == a);
    CUdevice dev = -1;
    CHECK_CU(cuCtxGetDevice(&dev));
    CHECK_EQ(dev, 0);
    CHECK_CU(cuCtxSynchronize());
    CHECK_CU_IS(cuCtxDestroy(a), CUDA_ERROR_INVALID_CONTEXT); /* primary: release it */
    CHECK_CU(cuDevicePrimaryCtxReset(0));
    CHECK(current() == a); /* reset keeps the handle */
    CHECK_CU(cuCtxSynchronize());
    CHECK_CU(cuDevicePrimaryCtxRelease(0));
    CHECK_CU(cuCtxSynchronize());
    CHECK_CU(cuDevicePrimaryCtxRelease(0));
    CHECK(current() == NULL); /* gone with the last release */
    CHECK_CU_IS(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_CU_IS(cuDevicePrimaryCtxRelease(0), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_CU(cuDevicePrimaryCtxGetState(0, &flags, &active));
    CHECK_EQ(active, 0);
    CHECK_CU(cuCtxSetCurrent(NULL));
    CHECK_CU_IS(cuDevicePrimaryCtxRetain(&a, 1), CUDA_ERROR_INVALID_DEVICE);
}

static void test_created_contexts(void)
{
    CUcontext a = NULL, b = NULL, popped = NULL;
    CHECK_CU(cuCtxCreate(&a, NULL, 0, 0));
    CHECK(current() == a);
    CHECK_CU(cuCtxCreate(&b, NULL, 0, 0));
    CHECK(a != b && current() == b);
    CHECK_CU(cuCtxPopCurrent(&popped));
    CHECK(popped == b && current() == a);
    CHECK_CU(cuCtxPushCurrent(b));
    CHECK(current() == b);
    CHECK_CU(cuCtxSetCurrent(a)); /* replaces the top */
    CHECK(current() == a);
    CHECK_CU(cuCtxPopCurrent(&popped));
    CHECK(popped == a && current() == a); /* a was below as well */
    CHECK_CU(cuCtxDestroy(b));
    CHECK_CU_IS(cuCtxDestroy(b), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_CU_IS(cuCtxPushCurrent(b), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_CU(cuCtxDestroy(a)); /* current: popped */
    CHECK(current() == NULL);
    CHECK_CU_IS(cuCtxPopCurrent(&popped), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_CU_IS(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_CU_IS(cuCtxCreate(NULL, NULL, 0, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuCtxCreate(&a, NULL, 0, 7), CUDA_ERROR_INVALID_DEVICE);
    CUexecAffinityParam affinity;
    memset(&affinity, 0, sizeof affinity);
    CUctxCreateParams params = {.execAffinityParams = &affinity, .numExecAffinityParams = 1};
    CHECK_CU_IS(cuCtxCreate(&a, &params, 0, 0), CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY);
    CHECK(current() == NULL);
}

/* A context destroyed while below the top of the stack stays there, as
 * cuda.h says, and the thread's calls then get
 * CUDA_ERROR_CONTEXT_IS_DESTROYED: never a later context's answers, even one
 * that malloc put at the destroyed one's address. */
static void test_destroyed_below_the_top(void)
{
    CUcontext a = NULL, b = NULL, c = NULL, popped = NULL;
    CUdeviceptr p = 0;
    CHECK_CU(cuCtxCreate(&a, NULL, 0, 0));
    CHECK_CU(cuCtxCreate(&b, NULL, 0, 0));
    CHECK_CU(cuCtxDestroy(a)); /* not current: stays on the stack */
    CHECK(current() == b);
    CHECK_CU(cuCtxPopCurrent(&popped));
    CHECK(popped == b);
    CHECK_CU_IS(cuCtxSynchronize(), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    CHECK_CU(cuCtxDestroy(b));
    CHECK_CU(cuCtxCreate(&c, NULL, 0, 0)); /* often at a's address */
    CHECK_CU(cuCtxPopCurrent(&popped));
    CHECK(popped == c);
    CHECK_CU_IS(cuMemAlloc(&p, 16), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    CHECK(current() == NULL);
    CHECK_CU(cuCtxPopCurrent(&popped));
    CHECK(popped == a);
    CHECK_CU_IS(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_CU(cuCtxDestroy(c));
}

static void test_limits(void)
{
    size_t v = 0;
    CHECK_CU_IS(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_ERROR_INVALID_CONTEXT);
    CUcontext ctx;
    CHECK_CU(cuCtxCreate(&ctx, NULL, 0, 0));
    CHECK_CU(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
    CHECK_EQ(v, 1024);
    CHECK_CU(cuCtxGetLimit(&v, CU_LIMIT_PRINTF_FIFO_SIZE));
    CHECK_EQ(v, 1048576);
    CHECK_CU(cuCtxGetLimit(&v, CU_LIMIT_MALLOC_HEAP_SIZE));
    CHECK_EQ(v, 8388608);
    CHECK_CU(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096));
    CHECK_CU(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
    CHECK_EQ(v, 4096);
    CHECK_CU(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 64 * MIB));
    CHECK_CU(cuCtxGetLimit(&v, CU_LIMIT_MALLOC_HEAP_SIZE));
    CHECK_EQ(v, 64 * MIB);
    CHECK_CU_IS(cuCtxSetLimit(CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH, 4), CUDA_ERROR_UNSUPPORTED_LIMIT);
    CHECK_CU_IS(cuCtxGetLimit(&v, CU_LIMIT_PERSISTING_L2_CACHE_SIZE), CUDA_ERROR_UNSUPPORTED_LIMIT);
    CHECK_CU_IS(cuCtxGetLimit(NULL, CU_LIMIT_STACK_SIZE), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuCtxResetPersistingL2Cache());
    CHECK_CU(cuCtxDestroy(ctx));
}

/* --------------------------------------------------------------- memory */

static void test_copies(CUdeviceptr d, size_t bytes)
{
    enum { N = 1024 };
    unsigned in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = 3u * (unsigned)i + 1;
    CHECK_CU(cuMemcpyHtoD(d, in, sizeof in));
    CHECK_CU(cuMemcpyDtoD(d + sizeof in, d, sizeof in));
    memset(out, 0, sizeof out);
    CHECK_CU(cuMemcpyDtoH(out, d + sizeof in, sizeof out));
    CHECK(memcmp(in, out, sizeof in) == 0);
    /* Ranges that leave the allocation. */
    CHECK_CU_IS(cuMemcpyHtoD(d + bytes - 4, in, 8), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemcpyDtoH(out, d + bytes, 4), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemcpyDtoH(out, d - 4, 8), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemcpyDtoD(d, d + 8, bytes), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemcpyHtoD((CUdeviceptr)(uintptr_t)in, in, 4), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemcpyHtoD(d, NULL, 4), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuMemcpyHtoD(d, in, 0));
}

static void test_memsets(CUdeviceptr d, size_t bytes)
{
    unsigned char b[16];
    unsigned short s[8];
    unsigned w[4];
    CHECK_CU(cuMemsetD8(d, 0x5a, bytes));
    CHECK_CU(cuMemcpyDtoH(b, d + bytes - sizeof b, sizeof b));
    CHECK(b[0] == 0x5a && b[15] == 0x5a);
    CHECK_CU(cuMemsetD16(d + 66, 0xbeef, 8));
    CHECK_CU(cuMemcpyDtoH(s, d + 66, sizeof s));
    CHECK(s[0] == 0xbeef && s[7] == 0xbeef);
    CHECK_CU(cuMemsetD32(d + 4, 0xdeadbeefu, 4));
    CHECK_CU(cuMemcpyDtoH(w, d, sizeof w));
    CHECK(w[0] == 0x5a5a5a5au && w[1] == 0xdeadbeefu && w[3] == 0xdeadbeefu);
    CHECK_CU_IS(cuMemsetD32(d + 2, 0, 1), CUDA_ERROR_INVALID_VALUE); /* misaligned */
    CHECK_CU_IS(cuMemsetD16(d + 1, 0, 1), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemsetD32(d, 0, bytes / 4 + 1), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemsetD8(d + bytes, 0, 1), CUDA_ERROR_INVALID_VALUE);
}

/* The Async forms: the same copies in a stream, finished on return. */
static void test_async_copies(CUdeviceptr d, size_t bytes)
{
    enum { N = 256 };
    unsigned in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = 7u * (unsigned)i + 5;
    CUstream stream;
    CHECK_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CHECK_CU(cuMemcpyHtoDAsync(d, in, sizeof in, stream));
    CHECK_CU(cuMemcpyDtoDAsync(d + sizeof in, d, sizeof in, stream));
    memset(out, 0, sizeof out);
    CHECK_CU(cuMemcpyDtoHAsync(out, d + sizeof in, sizeof out, NULL));
    CHECK(memcmp(in, out, sizeof in) == 0);
    /* Unified addressing: cuMemcpy tells host from device memory. */
    unsigned host[N];
    memset(host, 0, sizeof host);
    CHECK_CU(cuMemcpyAsync((CUdeviceptr)(uintptr_t)host, d, sizeof host, stream));
    CHECK(memcmp(in, host, sizeof in) == 0);
    CHECK_CU(cuMemcpy(d + 2 * sizeof in, (CUdeviceptr)(uintptr_t)in, sizeof in));
    CHECK_CU(cuMemcpy(d + 3 * sizeof in, d + 2 * sizeof in, sizeof in));
    CHECK_CU(cuMemcpyDtoH(out, d + 3 * sizeof in, sizeof out));
    CHECK(memcmp(in, out, sizeof in) == 0);
    CHECK_CU_IS(cuMemcpy(d + bytes - 4, (CUdeviceptr)(uintptr_t)in, 8), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemcpy(0, d, 4), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemcpyHtoDAsync(d + bytes - 4, in, 8, stream), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemcpyDtoHAsync(NULL, d, 4, stream), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemcpyDtoDAsync(d, d + 8, bytes, stream), CUDA_ERROR_INVALID_VALUE);
    /* A stream that is not one of this context's. */
    int bogus_storage[16] = {0};
    CUstream bogus = (CUstream)(void *)bogus_storage;
    CHECK_CU_IS(cuMemcpyHtoDAsync(d, in, 4, bogus), CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuMemcpyDtoHAsync(out, d, 4, bogus), CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuMemcpyDtoDAsync(d, d + 4, 4, bogus), CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuMemcpyAsync(d, d + 4, 4, bogus), CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuMemsetD8Async(d, 0, 4, bogus), CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuMemsetD2D32Async(d, 16, 0, 4, 2, bogus), CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU(cuStreamDestroy(stream));
    CHECK_CU_IS(cuMemcpyHtoDAsync(d, in, 4, stream), CUDA_ERROR_INVALID_HANDLE); /* destroyed */
    CHECK_CU(cuMemcpyHtoDAsync(d, in, 4, CU_STREAM_LEGACY));
    CHECK_CU(cuMemcpyHtoDAsync(d, in, 4, CU_STREAM_PER_THREAD));
}

/* The Async memsets, and the 2D ones: rows of `width` elements, `pitch` apart. */
static void test_async_memsets(CUdeviceptr d, size_t bytes)
{
    unsigned char b[64];
    unsigned short s[8];
    unsigned w[4];
    CHECK_CU(cuMemsetD8Async(d, 0x11, 64, NULL));
    CHECK_CU(cuMemsetD16Async(d + 64, 0xcafe, 8, NULL));
    CHECK_CU(cuMemsetD32Async(d + 96, 0x01020304u, 4, NULL));
    CHECK_CU(cuMemcpyDtoH(b, d, sizeof b));
    CHECK(b[0] == 0x11 && b[63] == 0x11);
    CHECK_CU(cuMemcpyDtoH(s, d + 64, sizeof s));
    CHECK(s[0] == 0xcafe && s[7] == 0xcafe);
    CHECK_CU(cuMemcpyDtoH(w, d + 96, sizeof w));
    CHECK(w[0] == 0x01020304u && w[3] == 0x01020304u);
    /* 3 rows of 4 bytes, 16 apart: the bytes between rows stay as they were. */
    CHECK_CU(cuMemsetD8(d, 0, 64));
    CHECK_CU(cuMemsetD2D8(d, 16, 0x7f, 4, 3));
    CHECK_CU(cuMemcpyDtoH(b, d, sizeof b));
    CHECK(b[0] == 0x7f && b[3] == 0x7f && b[4] == 0 && b[16] == 0x7f && b[35] == 0x7f &&
          b[36] == 0 && b[48] == 0);
    CHECK_CU(cuMemsetD2D16Async(d, 32, 0xabcd, 2, 2, NULL));
    CHECK_CU(cuMemcpyDtoH(s, d + 32, 6));
    CHECK(s[0] == 0xabcd && s[1] == 0xabcd && s[2] == 0);
    CHECK_CU(cuMemsetD8(d + 256, 0, 512));
    CHECK_CU(cuMemsetD2D32(d + 256, 64, 0xfeedfaceu, 3, 4));
    CHECK_CU(cuMemcpyDtoH(w, d + 256 + 3 * 64, sizeof w));
    CHECK(w[0] == 0xfeedfaceu && w[2] == 0xfeedfaceu && w[3] == 0);
    CHECK_CU(cuMemsetD2D32Async(d, 16, 0, 4, 0, NULL));                       /* nothing to set */
    CHECK_CU_IS(cuMemsetD2D8(d, 3, 0, 4, 2), CUDA_ERROR_INVALID_VALUE);       /* pitch < width */
    CHECK_CU_IS(cuMemsetD2D32(d + 2, 16, 0, 2, 2), CUDA_ERROR_INVALID_VALUE); /* misaligned */
    CHECK_CU_IS(cuMemsetD2D8(d, bytes, 0, 1, 2), CUDA_ERROR_INVALID_VALUE);   /* 2nd row outside */
    CHECK_CU_IS(cuMemsetD2D16(d, (size_t)-1, 0, 1, 3), CUDA_ERROR_INVALID_VALUE); /* overflow */
    CHECK_CU_IS(cuMemsetD32Async(d, 0, bytes / 4 + 1, NULL), CUDA_ERROR_INVALID_VALUE);
}

static void test_alloc_free(void)
{
    size_t before_free, total, after_free;
    CHECK_CU(cuMemGetInfo(&before_free, &total));
    CHECK_EQ(total, 80 * GIB);
    CUdeviceptr d = 0;
    CHECK_CU(cuMemAlloc(&d, MIB));
    CHECK(d != 0 && d % 256 == 0);
    CHECK_CU(cuMemGetInfo(&after_free, &total));
    CHECK(before_free - after_free >= MIB);
    CUdeviceptr base = 0;
    size_t size = 0;
    CHECK_CU(cuMemGetAddressRange(&base, &size, d + 100));
    CHECK(base == d && size == MIB);
    unsigned zero[4] = {1, 1, 1, 1};
    CHECK_CU(cuMemcpyDtoH(zero, d, sizeof zero));
    CHECK(zero[0] == 0 && zero[3] == 0);
    test_copies(d, MIB);
    test_memsets(d, MIB);
    test_async_copies(d, MIB);
    test_async_memsets(d, MIB);
    CHECK_CU_IS(cuMemFree(d + 8), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuMemFree(d));
    CHECK_CU_IS(cuMemFree(d), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemFree((CUdeviceptr)(uintptr_t)&d), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuMemFree(0));
    CHECK_CU_IS(cuMemcpyDtoH(zero, d, 4), CUDA_ERROR_INVALID_VALUE); /* freed */
    CHECK_CU_IS(cuMemAlloc(&d, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemAlloc(NULL, 16), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemAlloc(&d, total + 1), CUDA_ERROR_OUT_OF_MEMORY);
    CHECK_CU(cuMemGetInfo(&after_free, &total));
    CHECK_EQ(after_free, before_free);
}

/* The assessment buffers: 100M floats, three of them, cost what is touched. */
static void test_large_allocations(void)
{
    CUdeviceptr d[3];
    size_t bytes = 400 * MIB;
    for (int i = 0; i < 3; i++)
        CHECK_CU(cuMemAlloc(&d[i], bytes));
    float x = 2.5f, y = 0;
    CHECK_CU(cuMemcpyHtoD(d[2] + bytes - sizeof x, &x, sizeof x));
    CHECK_CU(cuMemcpyDtoH(&y, d[2] + bytes - sizeof y, sizeof y));
    CHECK(y == 2.5f);
    for (int i = 0; i < 3; i++)
        CHECK_CU(cuMemFree(d[i]));
}

static void test_memory(void)
{
    CUcontext ctx;
    CHECK_CU(cuCtxCreate(&ctx, NULL, 0, 0));
    test_alloc_free();
    test_large_allocations();
    /* Destroying a context frees what it still holds. */
    CUdeviceptr leak;
    CHECK_CU(cuMemAlloc(&leak, 4096));
    CHECK_CU(cuCtxDestroy(ctx));
    CHECK_CU_IS(cuMemAlloc(&leak, 16), CUDA_ERROR_INVALID_CONTEXT);
}

/* ----------------------------------------------------- streams and events */

static void test_streams(void)
{
    CUstream s = NULL;
    CHECK_CU(cuStreamCreate(&s, CU_STREAM_DEFAULT));
    CHECK_CU(cuStreamSynchronize(s));
    CHECK_CU(cuStreamQuery(s));
    CHECK_CU(cuStreamSynchronize(NULL));
    CHECK_CU(cuStreamSynchronize(CU_STREAM_LEGACY));
    CHECK_CU(cuStreamSynchronize(CU_STREAM_PER_THREAD));
    CHECK_CU(cuStreamDestroy(s));
    CHECK_CU_IS(cuStreamDestroy(s), CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuStreamSynchronize(s), CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuStreamCreate(&s, 0x80), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CHECK_CU(cuStreamDestroy(s));
}

static void test_event_timing(void)
{
    CUevent start, stop, never;
    CUstream s;
    CHECK_CU(cuStreamCreate(&s, 0));
    CHECK_CU(cuEventCreate(&start, CU_EVENT_DEFAULT));
    CHECK_CU(cuEventCreate(&stop, CU_EVENT_BLOCKING_SYNC));
    CHECK_CU(cuEventCreate(&never, CU_EVENT_DEFAULT));
    CHECK_CU(cuEventQuery(never));
    CHECK_CU(cuEventRecord(start, NULL));
    CHECK_CU(cuEventRecord(stop, s));
    CHECK_CU(cuEventSynchronize(stop));
    CHECK_CU(cuEventQuery(stop));
    CHECK_CU(cuStreamWaitEvent(s, stop, 0));
    float ms = -1;
    CHECK_CU(cuEventElapsedTime(&ms, start, stop));
    CHECK(ms == 0.0f);
    CHECK_CU(cuEventElapsedTime(&ms, stop, start));
    CHECK(ms >= 0.0f);
    CHECK_CU_IS(cuEventElapsedTime(&ms, start, never), CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuEventElapsedTime(NULL, start, stop), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuEventDestroy(never));
    CHECK_CU(cuEventDestroy(stop));
    CHECK_CU(cuEventDestroy(start));
    CHECK_CU_IS(cuEventDestroy(start), CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuEventRecord(start, NULL), CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU(cuStreamDestroy(s));
}

static void test_event_flags(void)
{
    CUevent a, b;
    CHECK_CU(cuEventCreate(&a, CU_EVENT_DEFAULT));
    CHECK_CU(cuEventCreate(&b, CU_EVENT_DISABLE_TIMING));
    CHECK_CU(cuEventRecord(a, NULL));
    CHECK_CU(cuEventRecord(b, NULL));
    float ms;
    CHECK_CU_IS(cuEventElapsedTime(&ms, a, b), CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU(cuEventDestroy(a));
    CHECK_CU(cuEventDestroy(b));
    CHECK_CU_IS(cuEventCreate(&a, CU_EVENT_INTERPROCESS), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuEventCreate(&a, 0x100), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuEventCreate(&a, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
    CHECK_CU(cuEventDestroy(a));
}

static void test_streams_events(void)
{
    CUcontext ctx;
    CHECK_CU(cuCtxCreate(&ctx, NULL, 0, 0));
    test_streams();
    test_event_timing();
    test_event_flags();
    CUevent left;
    CUstream left_stream;
    CHECK_CU(cuEventCreate(&left, 0)); /* freed with the context */
    CHECK_CU(cuStreamCreate(&left_stream, 0));
    CHECK_CU(cuCtxDestroy(ctx));
    CHECK_CU_IS(cuEventQuery(left), CUDA_ERROR_INVALID_CONTEXT);
}

/* --------------------------------------------------------------- threads */

/* Each host thread has its own current context; the driver may be called
 * from several at once. Returns the number of failed calls. */
static void *thread_body(void *arg)
{
    (void)arg;
    long failures = 0;
    CUcontext ctx = (CUcontext)(uintptr_t)1;
    failures += cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || ctx != NULL;
    failures += cuCtxCreate(&ctx, NULL, 0, 0) != CUDA_SUCCESS;
    for (int i = 0; i < THREAD_ROUNDS && failures == 0; i++) {
        CUdeviceptr d;
        int in = i, out = -1;
        failures += cuMemAlloc(&d, 4096) != CUDA_SUCCESS;
        failures += cuMemcpyHtoD(d + 64, &in, sizeof in) != CUDA_SUCCESS;
        failures += cuMemcpyDtoH(&out, d + 64, sizeof out) != CUDA_SUCCESS || out != i;
        failures += cuMemFree(d) != CUDA_SUCCESS;
    }
    failures += cuCtxDestroy(ctx) != CUDA_SUCCESS;
    return (void *)failures;
}

static void test_threads(void)
{
    CUcontext mine;
    CHECK_CU(cuCtxCreate(&mine, NULL, 0, 0));
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&threads[i], NULL, thread_body, NULL) == 0);
    for (int i = 0; i < THREADS; i++) {
        void *failures = (void *)1;
        pthread_join(threads[i], &failures);
        CHECK(failures == NULL);
    }
    CHECK(current() == mine);
    CHECK_CU(cuCtxDestroy(mine));
}

/* ---------------------------------------------------------------- errors */

static void test_error_names(void)
{
    const char *s = NULL;
    CHECK_CU(cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &s));
    CHECK(s != NULL && strcmp(s, "CUDA_ERROR_ILLEGAL_ADDRESS") == 0);
    CHECK_CU(cuGetErrorString(CUDA_ERROR_ILLEGAL_ADDRESS, &s));
    CHECK(s != NULL && strcmp(s, "an illegal memory access was encountered") == 0);
    CHECK_CU(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &s));
    CHECK(s != NULL && strcmp(s, "invalid argument") == 0);
    CHECK_CU(cuGetErrorName(CUDA_SUCCESS, &s));
    CHECK(s != NULL && strcmp(s, "CUDA_SUCCESS") == 0);
    CHECK_CU_IS(cuGetErrorName((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
    CHECK(s == NULL);
    CHECK_CU_IS(cuGetErrorString((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuGetErrorName(CUDA_SUCCESS, NULL), CUDA_ERROR_INVALID_VALUE);
    int named = 0, described = 0;
    for (int code = 0; code < 1000; code++) {
        const char *name = NULL, *text = NULL;
        named += cuGetErrorName((CUresult)code, &name) == CUDA_SUCCESS && name != NULL;
        described += cuGetErrorString((CUresult)code, &text) == CUDA_SUCCESS && text != NULL;
    }
    CHECK_EQ(named, CUDA_RESULT_COUNT);
    CHECK_EQ(described, CUDA_RESULT_COUNT);
}

/* ------------------------------------------------------ cuGetProcAddress */

static void test_proc_address(void)
{
    CHECK(gpu_test_proc("cuInit", 13000) == (void *)cuInit);
    CHECK(gpu_test_proc("cuMemAlloc", 13000) == (void *)cuMemAlloc); /* cuMemAlloc_v2 */
    CHECK(gpu_test_proc("cuCtxCreate", 13000) == (void *)cuCtxCreate);
    CHECK(gpu_test_proc("cuLaunchKernel", 12000) == (void *)cuLaunchKernel);
    CHECK(gpu_test_proc("cuEventElapsedTime", 13000) == (void *)cuEventElapsedTime);
    CHECK(gpu_test_proc("cuModuleGetGlobal", 4000) == (void *)cuModuleGetGlobal);
    CHECK(gpu_test_proc("cuGetProcAddress", 13000) == (void *)cuGetProcAddress);
    /* The calls added for cuda-samples and numba, under cuda.h's names. */
    CHECK(gpu_test_proc("cuMemcpyHtoDAsync", 13000) == (void *)cuMemcpyHtoDAsync); /* _v2 */
    CHECK(gpu_test_proc("cuMemcpyDtoHAsync", 3020) == (void *)cuMemcpyDtoHAsync);
    CHECK(gpu_test_proc("cuMemcpyDtoDAsync", 13000) == (void *)cuMemcpyDtoDAsync);
    CHECK(gpu_test_proc("cuMemcpyAsync", 13000) == (void *)cuMemcpyAsync);
    CHECK(gpu_test_proc("cuMemcpy", 13000) == (void *)cuMemcpy);
    CHECK(gpu_test_proc("cuMemsetD8Async", 13000) == (void *)cuMemsetD8Async);
    CHECK(gpu_test_proc("cuMemsetD16Async", 13000) == (void *)cuMemsetD16Async);
    CHECK(gpu_test_proc("cuMemsetD32Async", 13000) == (void *)cuMemsetD32Async);
    CHECK(gpu_test_proc("cuMemsetD2D8", 13000) == (void *)cuMemsetD2D8);
    CHECK(gpu_test_proc("cuMemsetD2D32Async", 13000) == (void *)cuMemsetD2D32Async);
    CHECK(gpu_test_proc("cuModuleLoad", 13000) == (void *)cuModuleLoad);
    CHECK(gpu_test_proc("cuModuleLoadFatBinary", 13000) == (void *)cuModuleLoadFatBinary);
    CHECK(gpu_test_proc("cuDeviceComputeCapability", 13000) == (void *)cuDeviceComputeCapability);
    CHECK(gpu_test_proc("cuDeviceCanAccessPeer", 13000) == (void *)cuDeviceCanAccessPeer);
    CHECK(gpu_test_proc("cuLinkCreate", 13000) == (void *)cuLinkCreate); /* _v2 */
    CHECK(gpu_test_proc("cuLinkAddData", 12000) == (void *)cuLinkAddData);
    CHECK(gpu_test_proc("cuLinkAddFile", 13000) == (void *)cuLinkAddFile);
    CHECK(gpu_test_proc("cuLinkComplete", 13000) == (void *)cuLinkComplete);
    CHECK(gpu_test_proc("cuLinkDestroy", 13000) == (void *)cuLinkDestroy);
    CHECK(gpu_test_proc("cuOccupancyMaxActiveBlocksPerMultiprocessor", 13000) ==
          (void *)cuOccupancyMaxActiveBlocksPerMultiprocessor);
    CHECK(gpu_test_proc("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", 13000) ==
          (void *)cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags);
    CHECK(gpu_test_proc("cuOccupancyMaxPotentialBlockSize", 13000) ==
          (void *)cuOccupancyMaxPotentialBlockSize);
    CHECK(gpu_test_proc("cuOccupancyMaxPotentialBlockSizeWithFlags", 13000) ==
          (void *)cuOccupancyMaxPotentialBlockSizeWithFlags);
    CUresult (*get_version)(int *) = (CUresult(*)(int *))gpu_test_proc("cuDriverGetVersion", 13000);
    int version = 0;
    CHECK(get_version != NULL && get_version(&version) == CUDA_SUCCESS && version == 13000);

    void *p = (void *)&version;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
    CHECK_CU_IS(cuGetProcAddress("cuNoSuchFunction", &p, 13000, 0, &status), CUDA_ERROR_NOT_FOUND);
    CHECK(p == NULL && status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    CHECK_CU_IS(cuGetProcAddress("cuMemAlloc", &p, 3000, 0, &status), CUDA_ERROR_NOT_FOUND);
    CHECK(p == NULL && status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    CHECK_CU_IS(cuGetProcAddress("cuLinkCreate", &p, 6000, 0, &status), CUDA_ERROR_NOT_FOUND);
    CHECK(p == NULL && status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT); /* the _v1 */
    CHECK_CU_IS(cuGetProcAddress("cuInit", &p, 99000, 0, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuGetProcAddress(NULL, &p, 13000, 0, NULL), CUDA_ERROR_INVALID_VALUE);

    const void *table = (const void *)&version;
    CUuuid id;
    memset(&id, 0, sizeof id);
    CHECK(cuGetExportTable(&table, &id) != CUDA_SUCCESS);
    CHECK(table == NULL);
}

/* -------------------------------------------------------------- modules */

/* A load must fail, with a log in the buffer and its length written back. */
static void check_refused(const void *image, CUresult want, CUresult or_want)
{
    char log[1024] = "";
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)sizeof log};
    CUmodule module = NULL;
    CHECK_CU_EITHER(cuModuleLoadDataEx(&module, image, 2, options, values), want, or_want);
    size_t used = (size_t)(uintptr_t)values[1];
    CHECK(log[0] != '\0' && used == strlen(log) + 1);
}

static void test_refused_images(void)
{
    CUcontext ctx;
    CHECK_CU(cuCtxCreate(&ctx, NULL, 0, 0));
    check_refused("this is not PTX at all {", CUDA_ERROR_INVALID_PTX, CUDA_ERROR_NOT_SUPPORTED);
    check_refused("\x7f"
                  "ELF\x02\x01\x01",
                  CUDA_ERROR_NO_BINARY_FOR_GPU, CUDA_ERROR_NO_BINARY_FOR_GPU);
    /* A fatbinary with no entries: no PTX to run (test_modules.c loads real ones). */
    static const unsigned char fatbin[] = {0x50, 0xed, 0x55, 0xba, 0x01, 0x00, 0x10, 0x00,
                                           0,    0,    0,    0,    0,    0,    0,    0};
    check_refused(fatbin, CUDA_ERROR_NO_BINARY_FOR_GPU, CUDA_ERROR_NO_BINARY_FOR_GPU);
    CUmodule module;
    CHECK_CU_EITHER(cuModuleLoadData(&module, ""), CUDA_ERROR_INVALID_PTX,
                    CUDA_ERROR_NOT_SUPPORTED);
    CHECK_CU_IS(cuModuleLoadData(&module, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuModuleLoadData(NULL, "x"), CUDA_ERROR_INVALID_VALUE);
    /* Handles that were never given out. */
    int bogus_storage[16] = {0};
    CUmodule bogus_module = (CUmodule)(void *)bogus_storage;
    CUfunction bogus_function = (CUfunction)(void *)bogus_storage;
    CUfunction f;
    CHECK_CU_IS(cuModuleUnload(bogus_module), CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuModuleGetFunction(&f, bogus_module, "k"), CUDA_ERROR_INVALID_HANDLE);
    int v;
    CHECK_CU_IS(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, bogus_function),
                CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuLaunchKernel(bogus_function, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL),
                CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU(cuCtxSynchronize()); /* none of that is sticky */
    CHECK_CU(cuCtxDestroy(ctx));
}

/* ------------------------------------------------------------------ NVRTC */

/* NVRTC dlopens libcuda.so.1 itself (ours, here) and calls cuInit and
 * cuGetExportTable; it must keep working. */
static void test_nvrtc_still_works(void)
{
    static const char source[] = "extern \"C\" __global__ void scale(float *x, float a, int n)\n"
                                 "{\n"
                                 "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                 "    if (i < n) x[i] *= a;\n"
                                 "}\n";
    char *ptx = gpu_test_compile(source, "scale.cu");
    CHECK(ptx != NULL && strstr(ptx, ".entry scale") != NULL);
    free(ptx);
}

int main(void)
{
    test_before_init();
    test_device_selection();
    CHECK_CU(cuInit(0));
    CHECK_CU(cuInit(0)); /* again: nothing changes */
    test_devices();
    test_primary_context();
    test_created_contexts();
    test_destroyed_below_the_top();
    test_limits();
    test_memory();
    test_streams_events();
    test_threads();
    test_error_names();
    test_proc_address();
    test_refused_images();
    test_nvrtc_still_works();
    return gpu_test_summary();
}
