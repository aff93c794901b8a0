/*
 * Page-locked host memory (pinned, mapped, registered), managed memory,
 * cuPointerGetAttribute, and the release calls that need no current
 * context (numba's cuda.close() frees after popping its context).
 *
 * Kernels read and write mapped host memory and managed memory through the
 * pointers the driver gives, with no copy, and an access past the end of a
 * mapped buffer is a fault like one past a device buffer. Each call's
 * errors are the ones cuda.h lists. Written against cuda.h and NVRTC;
 * the fault's message is read with kgemu_last_fault when the driver is the
 * virtual GPU.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gpu_test.h"

#define N      1000
#define THREAD 128

static const char source[] =
    "extern \"C\" __global__ void twice(const float *in, float *out, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        out[i] = 2.0f * in[i];\n"
    "}\n"
    "extern \"C\" __global__ void write_at(int *p, long long i, int v) { p[i] = v; }\n";

struct kernels {
    CUmodule module;
    CUfunction twice, write_at;
};

static int load(struct kernels *k)
{
    return CHECK_CU(gpu_test_load_source(&k->module, source, "host_memory.cu")) &&
           CHECK_CU(cuModuleGetFunction(&k->twice, k->module, "twice")) &&
           CHECK_CU(cuModuleGetFunction(&k->write_at, k->module, "write_at"));
}

/* out[i] = 2 in[i] over N floats, launched on the pointers given. */
static int run_twice(const struct kernels *k, CUdeviceptr in, CUdeviceptr out)
{
    int n = N;
    void *args[] = {&in, &out, &n};
    return gpu_test_run(k->twice, (N + THREAD - 1) / THREAD, THREAD, args);
}

static void fill(float *p)
{
    for (int i = 0; i < N; i++)
        p[i] = (float)i;
}

static int all_twice(const float *in, const float *out)
{
    for (int i = 0; i < N; i++)
        if (out[i] != 2.0f * in[i])
            return 0;
    return 1;
}

/* ------------------------------------------------------------- allocated */

static void test_host_alloc(const struct kernels *k)
{
    float *in = NULL, *out = NULL;
    unsigned mapped = CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE;
    if (!CHECK_CU(cuMemHostAlloc((void **)&in, N * sizeof *in, mapped)) ||
        !CHECK_CU(cuMemAllocHost((void **)&out, N * sizeof *out)))
        return;
    fill(in);
    CUdeviceptr din = 0, dout = 0;
    CHECK_CU(cuMemHostGetDevicePointer(&din, in, 0));
    CHECK_CU(cuMemHostGetDevicePointer(&dout, out, 0)); /* mapped too: unified addressing */
    CHECK(din == (CUdeviceptr)(uintptr_t)in && dout == (CUdeviceptr)(uintptr_t)out);
    if (run_twice(k, din, dout))
        CHECK(all_twice(in, out));
    unsigned flags = 99;
    CHECK_CU(cuMemHostGetFlags(&flags, in + 10)); /* inside the allocation */
    CHECK_EQ(flags, mapped);
    CHECK_CU(cuMemHostGetFlags(&flags, out));
    CHECK_EQ(flags, 0);
    float x = 7;
    CHECK_CU_IS(cuMemHostGetFlags(&flags, &x), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemHostGetFlags(NULL, in), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemHostGetDevicePointer(&din, in, 1), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemHostGetDevicePointer(&din, &x, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemHostGetDevicePointer(NULL, in, 0), CUDA_ERROR_INVALID_VALUE);
    /* Copies to and from it, as from any host memory. */
    CUdeviceptr d;
    if (CHECK_CU(cuMemAlloc(&d, N * sizeof *in))) {
        CHECK_CU(cuMemcpyHtoD(d, in, N * sizeof *in));
        memset(out, 0, N * sizeof *out);
        CHECK_CU(cuMemcpyDtoH(out, d, N * sizeof *out));
        CHECK(memcmp(in, out, N * sizeof *in) == 0);
        CHECK_CU(cuMemFree(d));
    }
    CHECK_CU_IS(cuMemFreeHost(in + 1), CUDA_ERROR_INVALID_VALUE); /* not its start */
    CHECK_CU_IS(cuMemFreeHost(&x), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemFree(din), CUDA_ERROR_INVALID_VALUE); /* host memory, not cuMemAlloc's */
    CHECK_CU(cuMemFreeHost(in));
    CHECK_CU(cuMemFreeHost(out));
    CHECK_CU_IS(cuMemFreeHost(in), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemHostGetDevicePointer(&din, in, 0), CUDA_ERROR_INVALID_VALUE);
}

static void test_host_alloc_errors(void)
{
    void *p = NULL;
    CHECK_CU_IS(cuMemHostAlloc(&p, 0, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemHostAlloc(NULL, 64, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemHostAlloc(&p, 64, 0x10), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemHostAlloc(&p, (size_t)1 << 62, 0), CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(p == NULL);
    CHECK_CU(cuMemHostAlloc(&p, 64, CU_MEMHOSTALLOC_WRITECOMBINED));
    CHECK_CU(cuMemFreeHost(p));
}

/* An access past the end of a mapped buffer is a fault that names it. */
static void test_mapped_out_of_bounds(void)
{
    CUcontext ctx;
    struct kernels k;
    int *p = NULL;
    if (!CHECK_CU(cuCtxCreate(&ctx, NULL, 0, 0)))
        return;
    if (load(&k) && CHECK_CU(cuMemHostAlloc((void **)&p, 100 * sizeof *p, 0))) {
        CUdeviceptr d = (CUdeviceptr)(uintptr_t)p;
        long long i = 100;
        int v = 5;
        void *args[] = {&d, &i, &v};
        CHECK_CU(cuLaunchKernel(k.write_at, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
        CHECK_CU_IS(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
        if (gpu_test_is_virtual()) {
            struct kgemu_fault fault = gpu_test_last_fault();
            if (!CHECK(strstr(fault.message, "element [100] of the 100-element host buffer #1") !=
                       NULL))
                fprintf(stderr, "  the message: %s\n", fault.message);
            CHECK(gpu_test_no_host_address(fault.message));
        }
    }
    CHECK_CU(cuCtxDestroy(ctx)); /* frees the host buffer too */
    CUcontext other;
    CHECK_CU(cuCtxCreate(&other, NULL, 0, 0));
    CHECK_CU_IS(cuMemFreeHost(p), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuCtxDestroy(other));
}

/* ------------------------------------------------------------ registered */

static void test_register(const struct kernels *k, CUdeviceptr device)
{
    float *in = malloc(N * sizeof *in), *out = calloc(N, sizeof *out);
    if (!CHECK(in != NULL && out != NULL))
        return;
    fill(in);
    int read_only = 0;
    CHECK_CU(
        cuDeviceGetAttribute(&read_only, CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED, 0));
    if (!read_only) /* cuda.h: then the flag is refused */
        CHECK_CU_IS(cuMemHostRegister(in, N * sizeof *in, CU_MEMHOSTREGISTER_READ_ONLY),
                    CUDA_ERROR_NOT_SUPPORTED);
    CHECK_CU(cuMemHostRegister(in, N * sizeof *in, CU_MEMHOSTREGISTER_PORTABLE));
    CHECK_CU(cuMemHostRegister(out, N * sizeof *out, CU_MEMHOSTREGISTER_DEVICEMAP));
    CUdeviceptr din = 0;
    CHECK_CU(cuMemHostGetDevicePointer(&din, in, 0));
    CHECK(din == (CUdeviceptr)(uintptr_t)in);
    if (run_twice(k, din, (CUdeviceptr)(uintptr_t)out)) /* the host pointer works too */
        CHECK(all_twice(in, out));
    unsigned flags;
    CHECK_CU_IS(cuMemHostGetFlags(&flags, in), CUDA_ERROR_INVALID_VALUE); /* not cuMemHostAlloc's */
    CHECK_CU_IS(cuMemHostRegister(in + 10, 16, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    CHECK_CU_IS(cuMemHostRegister(in, N * sizeof *in, 0),
                CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    CHECK_CU_IS(cuMemFreeHost(in), CUDA_ERROR_INVALID_VALUE); /* registered, not allocated */
    CHECK_CU_IS(cuMemHostUnregister(in + 1), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    CHECK_CU(cuMemHostUnregister(in));
    CHECK_CU(cuMemHostUnregister(out));
    CHECK_CU_IS(cuMemHostUnregister(in), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    CHECK_CU_IS(cuMemHostGetDevicePointer(&din, in, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuMemHostRegister(in, N * sizeof *in, 0)); /* again, once unregistered */
    CHECK_CU(cuMemHostUnregister(in));
    /* What cannot be registered. */
    CHECK_CU_IS(cuMemHostRegister(NULL, 64, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemHostRegister(in, 0, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemHostRegister(in, 64, 0x40), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemHostRegister(in, 64, CU_MEMHOSTREGISTER_IOMEMORY), CUDA_ERROR_NOT_SUPPORTED);
    CHECK_CU_IS(cuMemHostRegister((void *)(uintptr_t)device, 64, 0), CUDA_ERROR_INVALID_VALUE);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *gone = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (CHECK(gone != MAP_FAILED)) {
        munmap((char *)gone + page, page);
        CHECK_CU_IS(cuMemHostRegister(gone, 2 * page, 0), CUDA_ERROR_INVALID_VALUE); /* a hole */
        CHECK_CU(cuMemHostRegister(gone, page, 0));
        CHECK_CU(cuMemHostUnregister(gone));
        munmap(gone, page);
    }
    free(in);
    free(out);
}

/* --------------------------------------------------------------- managed */

static void test_managed(const struct kernels *k)
{
    CUdeviceptr in = 0, out = 0;
    if (!CHECK_CU(cuMemAllocManaged(&in, N * sizeof(float), CU_MEM_ATTACH_GLOBAL)) ||
        !CHECK_CU(cuMemAllocManaged(&out, N * sizeof(float), CU_MEM_ATTACH_HOST)))
        return;
    float *hin = (float *)(uintptr_t)in, *hout = (float *)(uintptr_t)out; /* one pointer */
    fill(hin);
    if (run_twice(k, in, out))
        CHECK(all_twice(hin, hout));
    CUdeviceptr d;
    CHECK_CU_IS(cuMemAllocManaged(&d, 64, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemAllocManaged(&d, 64, CU_MEM_ATTACH_GLOBAL | CU_MEM_ATTACH_HOST),
                CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemAllocManaged(&d, 0, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemAllocManaged(NULL, 64, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuMemFree(in));
    CHECK_CU(cuMemFree(out));
    CHECK_CU_IS(cuMemFree(in), CUDA_ERROR_INVALID_VALUE);
}

/* ------------------------------------------------------- pointer queries */

static unsigned attribute_u(CUpointer_attribute a, CUdeviceptr p)
{
    unsigned v = 99;
    CHECK_CU(cuPointerGetAttribute(&v, a, p));
    return v;
}

static void test_pointer_attributes(CUcontext ctx)
{
    CUdeviceptr d = 0, m = 0;
    void *h = NULL;
    if (!CHECK_CU(cuMemAlloc(&d, 4096)) || !CHECK_CU(cuMemAllocManaged(&m, 64, 1)) ||
        !CHECK_CU(cuMemHostAlloc(&h, 256, 0)))
        return;
    CUdeviceptr hp = (CUdeviceptr)(uintptr_t)h;
    CHECK_EQ(attribute_u(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d + 100), CU_MEMORYTYPE_DEVICE);
    CHECK_EQ(attribute_u(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, m), CU_MEMORYTYPE_DEVICE);
    CHECK_EQ(attribute_u(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, hp + 8), CU_MEMORYTYPE_HOST);
    CHECK_EQ(attribute_u(CU_POINTER_ATTRIBUTE_IS_MANAGED, d), 0);
    CHECK_EQ(attribute_u(CU_POINTER_ATTRIBUTE_IS_MANAGED, m), 1);
    CHECK_EQ(attribute_u(CU_POINTER_ATTRIBUTE_MAPPED, hp), 1);
    CHECK_EQ(attribute_u(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, d), 0);
    CUcontext owner = NULL;
    CHECK_CU(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, hp));
    CHECK(owner == ctx);
    CUdeviceptr dp = 0, start = 0;
    CHECK_CU(cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, d + 100));
    CHECK_EQ(dp, d + 100);
    CHECK_CU(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, d + 100));
    CHECK_EQ(start, d);
    size_t size = 0;
    CHECK_CU(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, hp + 8));
    CHECK_EQ(size, 256);
    void *host = NULL;
    CHECK_CU(cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, hp));
    CHECK(host == h);
    CHECK_CU(cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, m));
    CHECK(host == (void *)(uintptr_t)m);
    CHECK_CU_IS(cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, d),
                CUDA_ERROR_INVALID_VALUE); /* device memory has no host pointer */
    unsigned long long id_d = 0, id_m = 0;
    CHECK_CU(cuPointerGetAttribute(&id_d, CU_POINTER_ATTRIBUTE_BUFFER_ID, d));
    CHECK_CU(cuPointerGetAttribute(&id_m, CU_POINTER_ATTRIBUTE_BUFFER_ID, m));
    CHECK(id_d != 0 && id_m != 0 && id_d != id_m);
    int ordinal = -1;
    CHECK_CU(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d));
    CHECK_EQ(ordinal, 0);
    int local = 0;
    unsigned type;
    CHECK_CU_IS(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                      (CUdeviceptr)(uintptr_t)&local),
                CUDA_ERROR_INVALID_VALUE); /* not the driver's */
    CHECK_CU_IS(cuPointerGetAttribute(NULL, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d),
                CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuPointerGetAttribute(&type, (CUpointer_attribute)99, d), CUDA_ERROR_INVALID_VALUE);
    /* With no current context the memory still names its context, but no
     * kernel runs to use a device pointer. */
    CUcontext popped;
    CHECK_CU(cuCtxPopCurrent(&popped));
    CHECK_EQ(attribute_u(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d), CU_MEMORYTYPE_DEVICE);
    CHECK_CU_IS(cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, d),
                CUDA_ERROR_INVALID_CONTEXT);
    CHECK_CU(cuCtxPushCurrent(popped));
    CHECK_CU(cuMemFree(d));
    CHECK_CU(cuMemFree(m));
    CHECK_CU(cuMemFreeHost(h));
    CHECK_CU_IS(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d),
                CUDA_ERROR_INVALID_VALUE);
}

/* ------------------------------------------------------------- contexts */

/* Page-locked memory is mapped for every context, made before or after it,
 * and goes with the context that allocated it. */
static void test_across_contexts(void)
{
    CUcontext a, b, c, popped;
    struct kernels k;
    float *in = NULL, *out = NULL;
    if (!CHECK_CU(cuCtxCreate(&a, NULL, 0, 0)))
        return;
    CHECK_CU(cuMemHostAlloc((void **)&in, N * sizeof *in, 0));
    CHECK_CU(cuCtxCreate(&b, NULL, 0, 0));
    CHECK_CU(cuMemHostAlloc((void **)&out, N * sizeof *out, 0));
    CHECK_CU(cuCtxPopCurrent(&popped));
    CHECK_CU(cuCtxCreate(&c, NULL, 0, 0)); /* made after both */
    if (in != NULL && out != NULL && load(&k)) {
        fill(in);
        if (run_twice(&k, (CUdeviceptr)(uintptr_t)in, (CUdeviceptr)(uintptr_t)out))
            CHECK(all_twice(in, out));
        CHECK_CU(cuModuleUnload(k.module));
    }
    CHECK_CU(cuCtxDestroy(c)); /* popped: `a` is current again */
    CHECK_CU(cuCtxDestroy(a)); /* frees `in` */
    unsigned type;
    CHECK_CU_IS(
        cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)in),
        CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuMemFreeHost(out)); /* b's, with no context current */
    CHECK_CU(cuCtxDestroy(b));
}

/* Release calls with no current context: the address or handle names its
 * context. numba's cuda.close() pops its context, then frees. */
static void test_release_without_current(void)
{
    CUcontext primary, popped = NULL;
    struct kernels k;
    CUdeviceptr d = 0;
    CUstream s = NULL;
    CUevent e = NULL;
    void *pinned = NULL;
    float *registered = malloc(64 * sizeof *registered);
    if (!CHECK_CU(cuDevicePrimaryCtxRetain(&primary, 0)) || !CHECK_CU(cuCtxPushCurrent(primary)))
        return;
    if (!load(&k) || !CHECK_CU(cuMemAlloc(&d, 256)) || !CHECK_CU(cuStreamCreate(&s, 0)) ||
        !CHECK_CU(cuEventCreate(&e, 0)) || !CHECK_CU(cuMemHostAlloc(&pinned, 256, 0)) ||
        !CHECK_CU(cuMemHostRegister(registered, 64 * sizeof *registered, 0)))
        return;
    CHECK_CU(cuCtxPopCurrent(&popped));
    CHECK(popped == primary);
    CHECK_CU(cuMemFree(d));
    CHECK_CU(cuModuleUnload(k.module));
    CHECK_CU(cuStreamDestroy(s));
    CHECK_CU(cuEventDestroy(e));
    CHECK_CU(cuMemFreeHost(pinned));
    CHECK_CU(cuMemHostUnregister(registered));
    /* Gone now: with no current context, no context to answer. */
    CHECK_CU_IS(cuMemFree(d), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_CU_IS(cuModuleUnload(k.module), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_CU_IS(cuStreamDestroy(s), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_CU_IS(cuEventDestroy(e), CUDA_ERROR_INVALID_CONTEXT);
    CHECK_CU_IS(cuMemFreeHost(pinned), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuMemHostUnregister(registered), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    CHECK_CU(cuDevicePrimaryCtxRelease(0));
    CHECK_CU(cuDevicePrimaryCtxReset(0));
    free(registered);
}

int main(void)
{
    CUcontext ctx;
    struct kernels k;
    if (!gpu_test_start(&ctx))
        return gpu_test_summary();
    CUdeviceptr device = 0;
    if (load(&k) && CHECK_CU(cuMemAlloc(&device, 4096))) {
        test_host_alloc(&k);
        test_register(&k, device);
        test_managed(&k);
    }
    test_host_alloc_errors();
    test_pointer_attributes(ctx);
    CHECK_CU(cuCtxDestroy(ctx));
    test_mapped_out_of_bounds();
    test_across_contexts();
    test_release_without_current();
    return gpu_test_summary();
}
