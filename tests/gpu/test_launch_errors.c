/*
 * The driver's side of modules and launches: functions and globals of a
 * loaded module, function attributes, launch configurations the device
 * refuses (returned at once, not sticky), both ways of passing parameters
 * (a packed buffer only of the kernel's own size), each parameter's place,
 * events around launches, and execution faults that are sticky until the
 * context is destroyed or the primary context reset.
 *
 * Written against cuda.h and NVRTC; kgrade's own extension (kgemu.h) is
 * looked up with dlsym, as a grader does, and its checks are skipped on a
 * driver without it.
 */
#include <dlfcn.h>

#include "emulator/kgemu.h"
#include "gpu_test.h"

#define BOUNDED_THREADS     128
#define TILE_FLOATS         1024
#define H100_OPTIN_SHARED   232448
#define H100_DEFAULT_SHARED (48 * 1024)

static const char source[] =
    "extern \"C\" __global__ void write_at(int *p, long long i, int v) { p[i] = v; }\n"
    "extern \"C\" __global__ void __launch_bounds__(128) bounded(float *x)\n"
    "{\n"
    "    x[threadIdx.x] = 1.0f;\n"
    "}\n"
    "extern \"C\" __global__ void with_shared(float *out)\n"
    "{\n"
    "    __shared__ float tile[1024];\n"
    "    extern __shared__ float dyn[];\n"
    "    tile[threadIdx.x] = threadIdx.x;\n"
    "    dyn[threadIdx.x] = 1.0f;\n"
    "    __syncthreads();\n"
    "    out[threadIdx.x] = tile[threadIdx.x] + dyn[threadIdx.x];\n"
    "}\n"
    "__device__ int counter;\n"
    "extern \"C\" __global__ void bump() { atomicAdd(&counter, 1); }\n";

struct kernels {
    CUmodule module;
    CUfunction write_at, bounded, with_shared, bump;
};

static int (*last_fault)(struct kgemu_fault *);

static int load(struct kernels *k)
{
    memset(k, 0, sizeof *k);
    return CHECK_CU(gpu_test_load_source(&k->module, source, "launch_errors.cu")) &&
           CHECK_CU(cuModuleGetFunction(&k->write_at, k->module, "write_at")) &&
           CHECK_CU(cuModuleGetFunction(&k->bounded, k->module, "bounded")) &&
           CHECK_CU(cuModuleGetFunction(&k->with_shared, k->module, "with_shared")) &&
           CHECK_CU(cuModuleGetFunction(&k->bump, k->module, "bump"));
}

static int attribute(CUfunction f, CUfunction_attribute a)
{
    int v = -1;
    CHECK_CU(cuFuncGetAttribute(&v, a, f));
    return v;
}

/* The fault kgemu_last_fault reports must have `code` and name `kernel`. */
static void check_last_fault(CUresult code, const char *kernel)
{
    if (last_fault == NULL)
        return;
    struct kgemu_fault fault;
    memset(&fault, 0, sizeof fault);
    CHECK_EQ(last_fault(&fault), 1);
    CHECK_EQ(fault.code, code);
    CHECK(strcmp(fault.kernel, kernel) == 0);
    CHECK(fault.message[0] != '\0');
}

/* ---------------------------------------------------- modules, functions */

static void test_functions_and_globals(struct kernels *k)
{
    CUfunction again = NULL;
    CHECK_CU(cuModuleGetFunction(&again, k->module, "bump"));
    CHECK(again == k->bump);
    CHECK_CU_IS(cuModuleGetFunction(&again, k->module, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);
    CHECK_CU_IS(cuModuleGetFunction(&again, k->module, NULL), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr counter = 0;
    size_t bytes = 0;
    CHECK_CU(cuModuleGetGlobal(&counter, &bytes, k->module, "counter"));
    CHECK(counter != 0);
    CHECK_EQ(bytes, sizeof(int));
    CHECK_CU(cuModuleGetGlobal(NULL, &bytes, k->module, "counter"));
    CHECK_CU_IS(cuModuleGetGlobal(&counter, &bytes, k->module, "nothing"), CUDA_ERROR_NOT_FOUND);
    CHECK_CU_IS(cuMemFree(counter), CUDA_ERROR_INVALID_VALUE); /* not cuMemAlloc's */
}

static void test_function_attributes(struct kernels *k)
{
    CHECK_EQ(attribute(k->bounded, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK), BOUNDED_THREADS);
    CHECK_EQ(attribute(k->bump, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 1024);
    CHECK_EQ(attribute(k->with_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
             TILE_FLOATS * sizeof(float));
    CHECK_EQ(attribute(k->with_shared, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),
             H100_DEFAULT_SHARED - TILE_FLOATS * sizeof(float));
    CHECK_EQ(attribute(k->bump, CU_FUNC_ATTRIBUTE_PTX_VERSION), 90);
    CHECK_EQ(attribute(k->bump, CU_FUNC_ATTRIBUTE_BINARY_VERSION), 90);
    CHECK_EQ(attribute(k->bump, CU_FUNC_ATTRIBUTE_CACHE_MODE_CA), 0);
    CHECK_EQ(attribute(k->bump, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES), 0);
    CHECK(attribute(k->bump, CU_FUNC_ATTRIBUTE_NUM_REGS) > 0);
    CHECK(attribute(k->bump, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES) >= 0);
    int v;
    CHECK_CU_IS(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, k->bump),
                CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuFuncGetAttribute(NULL, CU_FUNC_ATTRIBUTE_NUM_REGS, k->bump),
                CUDA_ERROR_INVALID_VALUE);
}

static void test_set_attributes(struct kernels *k)
{
    int room = H100_OPTIN_SHARED - TILE_FLOATS * (int)sizeof(float);
    CUfunction_attribute dyn = CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
    CHECK_CU(cuFuncSetAttribute(k->with_shared, dyn, room));
    CHECK_EQ(attribute(k->with_shared, dyn), room);
    CHECK_CU_IS(cuFuncSetAttribute(k->with_shared, dyn, room + 1), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuFuncSetAttribute(k->with_shared, dyn, -1), CUDA_ERROR_INVALID_VALUE);
    CUfunction_attribute carveout = CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
    CHECK_CU(cuFuncSetAttribute(k->bump, carveout, 50));
    CHECK_EQ(attribute(k->bump, carveout), 50);
    CHECK_CU_IS(cuFuncSetAttribute(k->bump, carveout, 101), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuFuncSetAttribute(k->bump, CU_FUNC_ATTRIBUTE_NUM_REGS, 8),
                CUDA_ERROR_INVALID_VALUE);
}

/* ------------------------------------------------ refused configurations */

static void refused(CUfunction f, unsigned gx, unsigned gy, unsigned bx, unsigned bz,
                    unsigned shared, void **params, CUresult want, const char *kernel)
{
    CHECK_CU_IS(cuLaunchKernel(f, gx, gy, 1, bx, 1, bz, shared, NULL, params, NULL), want);
    check_last_fault(want, kernel);
    CHECK_CU(cuCtxSynchronize()); /* not sticky */
}

static void test_refused_launches(struct kernels *k, CUdeviceptr buffer)
{
    void *args[] = {&buffer};
    refused(k->bump, 1, 1, 2048, 1, 0, NULL, CUDA_ERROR_INVALID_VALUE, "bump");
    refused(k->bump, 1, 1, 1, 65, 0, NULL, CUDA_ERROR_INVALID_VALUE, "bump");
    refused(k->bump, 0, 1, 32, 1, 0, NULL, CUDA_ERROR_INVALID_VALUE, "bump");
    refused(k->bump, 1, 65536, 32, 1, 0, NULL, CUDA_ERROR_INVALID_VALUE, "bump");
    refused(k->bounded, 1, 1, 2 * BOUNDED_THREADS, 1, 0, args, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
            "bounded");
    refused(k->bounded, 1, 1, 32, 1, 0, NULL, CUDA_ERROR_INVALID_VALUE, "bounded");
    CHECK_CU(cuFuncSetAttribute(k->with_shared, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                H100_DEFAULT_SHARED - TILE_FLOATS * sizeof(float)));
    refused(k->with_shared, 1, 1, 32, 1, H100_DEFAULT_SHARED, args, CUDA_ERROR_INVALID_VALUE,
            "with_shared");
    void *extra[] = {CU_LAUNCH_PARAM_END};
    CHECK_CU_IS(cuLaunchKernel(k->bounded, 1, 1, 1, 32, 1, 1, 0, NULL, args, extra),
                CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuCtxSynchronize());
}

/* Each parameter's place in the parameter space, as the PTX lays it out;
 * nothing past the last one. */
static void test_param_info(struct kernels *k)
{
    static const size_t offsets[] = {0, 8, 16}, sizes[] = {8, 8, 4};
    for (size_t i = 0; i < 3; i++) {
        size_t offset = 99, size = 99;
        CHECK_CU(cuFuncGetParamInfo(k->write_at, i, &offset, &size));
        CHECK_EQ(offset, offsets[i]);
        CHECK_EQ(size, sizes[i]);
    }
    size_t offset = 0, size = 0;
    CHECK_CU(cuFuncGetParamInfo(k->write_at, 2, &offset, NULL));
    CHECK_CU_IS(cuFuncGetParamInfo(k->write_at, 3, &offset, &size), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuFuncGetParamInfo(k->bump, 0, &offset, &size), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuFuncGetParamInfo(k->write_at, 0, NULL, &size), CUDA_ERROR_INVALID_VALUE);
}

/* A packed buffer of another size than the kernel's parameters (20 bytes,
 * 24 as a struct's sizeof) is refused, not read past or short. */
static void test_extra_of_another_size(struct kernels *k, CUdeviceptr buffer)
{
    unsigned char packed[8192] = {0};
    memcpy(packed, &buffer, sizeof buffer);
    static const size_t refused_sizes[] = {16, 19, 21, 32, sizeof packed};
    for (size_t i = 0; i < sizeof refused_sizes / sizeof refused_sizes[0]; i++) {
        size_t size = refused_sizes[i];
        void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                         CU_LAUNCH_PARAM_END};
        CHECK_CU_IS(cuLaunchKernel(k->write_at, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, extra),
                    CUDA_ERROR_INVALID_VALUE);
    }
    size_t exact = 20;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &exact,
                     CU_LAUNCH_PARAM_END};
    CHECK_CU(cuLaunchKernel(k->write_at, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, extra));
    CHECK_CU(cuCtxSynchronize()); /* not sticky */
}

/* ------------------------------------------------------------ launches */

static void test_launches(struct kernels *k, CUdeviceptr buffer)
{
    CUevent start, stop;
    CHECK_CU(cuEventCreate(&start, 0));
    CHECK_CU(cuEventCreate(&stop, 0));
    CHECK_CU(cuEventRecord(start, NULL));
    void *args[] = {&buffer};
    CHECK_CU(
        cuLaunchKernel(k->with_shared, 1, 1, 1, 64, 1, 1, 64 * sizeof(float), NULL, args, NULL));
    float out[64] = {0};
    CHECK_CU(cuMemcpyDtoH(out, buffer, sizeof out));
    CHECK(out[0] == 1.0f && out[63] == 64.0f);
    /* The `extra` form: one packed buffer, laid out as the parameters are. */
    struct {
        CUdeviceptr p;
        long long i;
        int v;
    } packed = {buffer, 5, 42};
    size_t size = sizeof packed;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     CU_LAUNCH_PARAM_END};
    CHECK_CU(cuLaunchKernel(k->write_at, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, extra));
    int five = 0;
    CHECK_CU(cuMemcpyDtoH(&five, buffer + 5 * sizeof(int), sizeof five));
    CHECK_EQ(five, 42);
    CHECK_CU(cuEventRecord(stop, NULL));
    CHECK_CU(cuEventSynchronize(stop));
    float ms = -1;
    CHECK_CU(cuEventElapsedTime(&ms, start, stop));
    CHECK(ms >= 0.0f);
    CHECK_CU(cuEventDestroy(start));
    CHECK_CU(cuEventDestroy(stop));
    /* The heap exists after the first launch: its size is fixed. */
    CHECK_CU_IS(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 1 << 20), CUDA_ERROR_INVALID_VALUE);
}

/* --------------------------------------------------------- sticky faults */

static void fault(struct kernels *k, CUdeviceptr buffer)
{
    long long far = 1ll << 40;
    int v = 7;
    void *args[] = {&buffer, &far, &v};
    CHECK_CU(cuLaunchKernel(k->write_at, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
}

static void test_sticky_fault(void)
{
    CUcontext ctx;
    struct kernels k;
    CUdeviceptr buffer = 0, more;
    CHECK_CU(cuCtxCreate(&ctx, NULL, 0, 0));
    if (load(&k) && CHECK_CU(cuMemAlloc(&buffer, 4096))) {
        fault(&k, buffer);
        CHECK_CU_IS(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
        CHECK_CU_IS(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
        CHECK_CU_IS(cuMemAlloc(&more, 16), CUDA_ERROR_ILLEGAL_ADDRESS);
        int x;
        CHECK_CU_IS(cuMemcpyDtoH(&x, buffer, sizeof x), CUDA_ERROR_ILLEGAL_ADDRESS);
        CHECK_CU_IS(cuLaunchKernel(k.bump, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL),
                    CUDA_ERROR_ILLEGAL_ADDRESS);
        CHECK_CU_IS(cuStreamSynchronize(NULL), CUDA_ERROR_ILLEGAL_ADDRESS);
        check_last_fault(CUDA_ERROR_ILLEGAL_ADDRESS, "write_at");
        CUdevice dev;
        CHECK_CU(cuCtxGetDevice(&dev)); /* reading driver state still works */
    }
    CHECK_CU(cuCtxDestroy(ctx)); /* frees the module and the buffer */
}

/* Resetting the primary context is how a program recovers. */
static void test_primary_reset(void)
{
    CUcontext primary;
    struct kernels k;
    CUdeviceptr buffer = 0;
    CHECK_CU(cuDevicePrimaryCtxRetain(&primary, 0));
    CHECK_CU(cuCtxSetCurrent(primary));
    if (load(&k) && CHECK_CU(cuMemAlloc(&buffer, 4096))) {
        fault(&k, buffer);
        CHECK_CU_IS(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
        CHECK_CU(cuDevicePrimaryCtxReset(0));
        CHECK_CU(cuCtxSynchronize());
        if (last_fault != NULL)
            CHECK_EQ(last_fault(NULL), 0);
        CUfunction f;
        CHECK_CU_IS(cuModuleGetFunction(&f, k.module, "bump"), CUDA_ERROR_INVALID_HANDLE);
        CHECK_CU(cuMemAlloc(&buffer, 4096));
    }
    CHECK_CU(cuDevicePrimaryCtxRelease(0));
}

int main(void)
{
    *(void **)&last_fault = dlsym(RTLD_DEFAULT, "kgemu_last_fault");
    if (!CHECK_CU(cuInit(0)))
        return gpu_test_summary();
    CUcontext ctx;
    struct kernels k;
    CUdeviceptr buffer = 0;
    CHECK_CU(cuCtxCreate(&ctx, NULL, 0, 0));
    if (load(&k) && CHECK_CU(cuMemAlloc(&buffer, 64 * 1024))) {
        test_functions_and_globals(&k);
        test_function_attributes(&k);
        test_set_attributes(&k);
        test_refused_launches(&k, buffer);
        test_param_info(&k);
        test_extra_of_another_size(&k, buffer);
        test_launches(&k, buffer);
        CHECK_CU(cuModuleUnload(k.module));
        CHECK_CU_IS(cuModuleUnload(k.module), CUDA_ERROR_INVALID_HANDLE);
        int v;
        CHECK_CU_IS(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, k.bump),
                    CUDA_ERROR_INVALID_HANDLE);
    }
    CHECK_CU(cuCtxDestroy(ctx));
    test_sticky_fault();
    test_primary_reset();
    return gpu_test_summary();
}
