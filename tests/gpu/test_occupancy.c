/*
 * The occupancy calls (cuOccupancyMaxActiveBlocksPerMultiprocessor,
 * cuOccupancyMaxPotentialBlockSize and their WithFlags forms) against
 * CUDA's own occupancy calculator, cuda_occupancy.h, fed with what
 * cuDeviceGetAttribute and cuFuncGetAttribute say: kernels with 0 to
 * 40,000 bytes of static shared memory, register counts from 16 to 255
 * (ptxas's count, given with kgemu_set_registers where the driver is the
 * virtual GPU), block sizes from one warp to 1024 threads, dynamic shared
 * memory up to past the limit, and the carveout preferences. Then the
 * block-size search with a callback and a limit, and the error paths.
 *
 * Written against cuda.h and NVRTC only; see gpu_test.h.
 */
#include <cuda_occupancy.h>

#include "gpu_test.h"

#define KIB 1024

static const int registers[] = {16, 32, 40, 64, 72, 96, 128, 168, 200, 255};
static const int block_sizes[] = {32, 64, 96, 128, 160, 256, 384, 512, 640, 768, 1024};
static const size_t dynamic_shared[] = {0, 1, 4 * KIB, 10000, 20 * KIB, 40 * KIB, 60 * KIB};
static const int carveouts[] = {CU_SHAREDMEM_CARVEOUT_DEFAULT, 0, 25, 50, 100};
static const int static_shared[] = {0, 1000, 20000, 40000};

static int device_attribute(CUdevice_attribute a)
{
    int v = 0;
    CHECK_CU(cuDeviceGetAttribute(&v, a, 0));
    return v;
}

static int function_attribute(CUfunction f, CUfunction_attribute a)
{
    int v = 0;
    CHECK_CU(cuFuncGetAttribute(&v, a, f));
    return v;
}

/* The device as cuda_occupancy.h wants it, from cuDeviceGetAttribute. */
static cudaOccDeviceProp occupancy_device(void)
{
    cudaOccDeviceProp p;
    memset(&p, 0, sizeof p);
    p.computeMajor = device_attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    p.computeMinor = device_attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    p.maxThreadsPerBlock = device_attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    p.maxThreadsPerMultiprocessor =
        device_attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    p.regsPerBlock = device_attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    p.regsPerMultiprocessor =
        device_attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    p.warpSize = device_attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    p.sharedMemPerBlock = (size_t)device_attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    p.sharedMemPerMultiprocessor =
        (size_t)device_attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    p.numSms = device_attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    p.sharedMemPerBlockOptin =
        (size_t)device_attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    p.reservedSharedMemPerBlock =
        (size_t)device_attribute(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
    return p;
}

/* The kernel as cuda_occupancy.h wants it: what the runtime's conversion
 * from cudaFuncAttributes gives (opt-in shared memory limit, one barrier). */
static cudaOccFuncAttributes occupancy_function(CUfunction f)
{
    cudaOccFuncAttributes a;
    memset(&a, 0, sizeof a);
    a.maxThreadsPerBlock = function_attribute(f, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    a.numRegs = function_attribute(f, CU_FUNC_ATTRIBUTE_NUM_REGS);
    a.sharedSizeBytes = (size_t)function_attribute(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    a.partitionedGCConfig = PARTITIONED_GC_OFF;
    a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    a.maxDynamicSharedSizeBytes =
        (size_t)function_attribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
    a.numBlockBarriers = 1;
    return a;
}

static cudaOccDeviceState occupancy_state(int carveout)
{
    cudaOccDeviceState s;
    memset(&s, 0, sizeof s);
    s.cacheConfig = CACHE_PREFER_NONE;
    s.carveoutConfig = carveout;
    return s;
}

/* A kernel with `bytes` of static shared memory that uses it. */
static CUfunction load_kernel(CUmodule *module, int bytes)
{
    char source[512];
    snprintf(source, sizeof source,
             "extern \"C\" __global__ void k(float *out)\n"
             "{\n"
             "    __shared__ float s[%d];\n"
             "    s[threadIdx.x %% %d] = threadIdx.x;\n"
             "    __syncthreads();\n"
             "    out[threadIdx.x] = s[(threadIdx.x + 1) %% %d];\n"
             "}\n",
             bytes / 4, bytes / 4, bytes / 4);
    const char *text = bytes > 0 ? source
                                 : "extern \"C\" __global__ void k(float *out)\n"
                                   "{ out[threadIdx.x] = threadIdx.x; }\n";
    CUfunction f = NULL;
    if (CHECK_CU(gpu_test_load_source(module, text, "occupancy.cu")))
        CHECK_CU(cuModuleGetFunction(&f, *module, "k"));
    return f;
}

/* kgemu_set_registers on the virtual GPU; 0 where there is none. */
static int set_registers(CUfunction f, int n)
{
    int (*set)(void *, int);
    *(void **)&set = dlsym(RTLD_DEFAULT, "kgemu_set_registers");
    return set != NULL && set(f, n) == 0;
}

/* One kernel, registers and carveout: every block size and dynamic size. */
static void compare_blocks(CUfunction f, const cudaOccDeviceProp *device, int carveout)
{
    cudaOccFuncAttributes attributes = occupancy_function(f);
    cudaOccDeviceState state = occupancy_state(carveout);
    for (size_t b = 0; b < sizeof block_sizes / sizeof *block_sizes; b++)
        for (size_t d = 0; d < sizeof dynamic_shared / sizeof *dynamic_shared; d++) {
            cudaOccResult want;
            memset(&want, 0, sizeof want);
            CHECK_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(&want, device, &attributes, &state,
                                                             block_sizes[b], dynamic_shared[d]),
                     CUDA_OCC_SUCCESS);
            int got = -1;
            CHECK_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&got, f, block_sizes[b],
                                                                 dynamic_shared[d]));
            if (!CHECK_EQ(got, want.activeBlocksPerMultiprocessor))
                fprintf(stderr,
                        "  (%d registers, %zu static, %d threads, %zu dynamic, carveout %d)\n",
                        attributes.numRegs, attributes.sharedSizeBytes, block_sizes[b],
                        dynamic_shared[d], carveout);
        }
}

/* The block-size search, with a constant dynamic size. */
static void compare_search(CUfunction f, const cudaOccDeviceProp *device, int carveout)
{
    cudaOccFuncAttributes attributes = occupancy_function(f);
    cudaOccDeviceState state = occupancy_state(carveout);
    for (size_t d = 0; d < sizeof dynamic_shared / sizeof *dynamic_shared; d++) {
        int want_grid = -1, want_block = -1, got_grid = -2, got_block = -2;
        CHECK_EQ(cudaOccMaxPotentialOccupancyBlockSize(&want_grid, &want_block, device, &attributes,
                                                       &state, NULL, dynamic_shared[d]),
                 CUDA_OCC_SUCCESS);
        CHECK_CU(
            cuOccupancyMaxPotentialBlockSize(&got_grid, &got_block, f, NULL, dynamic_shared[d], 0));
        CHECK_EQ(got_block, want_block);
        CHECK_EQ(got_grid, want_grid);
    }
}

static void compare_kernel(CUfunction f, const cudaOccDeviceProp *device)
{
    for (size_t r = 0; r < sizeof registers / sizeof *registers; r++) {
        if (!set_registers(f, registers[r]) && r > 0)
            return; /* a real GPU: its own count only */
        for (size_t c = 0; c < sizeof carveouts / sizeof *carveouts; c++) {
            CHECK_CU(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                                        carveouts[c]));
            compare_blocks(f, device, carveouts[c]);
            compare_search(f, device, carveouts[c]);
        }
        CHECK_CU(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                                    CU_SHAREDMEM_CARVEOUT_DEFAULT));
    }
}

static void test_against_calculator(void)
{
    cudaOccDeviceProp device = occupancy_device();
    for (size_t s = 0; s < sizeof static_shared / sizeof *static_shared; s++) {
        CUmodule module;
        CUfunction f = load_kernel(&module, static_shared[s]);
        if (f == NULL)
            continue;
        compare_kernel(f, &device);
        /* Opting in to more dynamic shared memory changes the answers. */
        CHECK_CU(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    200 * KIB - static_shared[s]));
        compare_kernel(f, &device);
        CHECK_CU(cuModuleUnload(module));
    }
}

/* ------------------------------------------------------- known answers */

static size_t shared_per_thread(int block_size)
{
    return (size_t)block_size * 64; /* 64 bytes a thread */
}

static void test_known_answers(void)
{
    CUmodule module;
    CUfunction f = load_kernel(&module, 0);
    if (f == NULL || !gpu_test_is_virtual() || !CHECK(set_registers(f, 32)))
        return;
    int n = -1;
    CHECK_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 256, 0));
    CHECK_EQ(n, 8); /* 2048 threads an SM */
    CHECK_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 32, 0));
    CHECK_EQ(n, 32); /* 32 blocks an SM */
    CHECK_CU(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        &n, f, 256, 100 * KIB, CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE));
    CHECK_EQ(n, 0); /* past the kernel's 48 KB of dynamic shared memory */
    CHECK_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 2048, 0));
    CHECK_EQ(n, 0); /* past 1024 threads a block */
    CHECK(set_registers(f, 128));
    CHECK_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 256, 0));
    CHECK_EQ(n, 2); /* 65,536 registers / (128 × 256) */

    int grid = -1, block = -1;
    CHECK_CU(cuOccupancyMaxPotentialBlockSize(&grid, &block, f, NULL, 0, 0));
    CHECK_EQ(block, 512); /* 128 registers: 512 threads an SM, in one block */
    CHECK_EQ(grid, 132);
    CHECK_CU(cuOccupancyMaxPotentialBlockSize(&grid, &block, f, NULL, 0, 100));
    /* Within 100 threads: 100 (4 warps) fit 4 to an SM, 96 fit 5, 64 fit 8 (512 threads). */
    CHECK_EQ(block, 64);
    CHECK_EQ(grid, 8 * 132);
    CHECK(set_registers(f, 32));
    CHECK_CU(cuOccupancyMaxPotentialBlockSizeWithFlags(&grid, &block, f, shared_per_thread, 0, 0,
                                                       CU_OCCUPANCY_DEFAULT));
    /* 64 bytes a thread: 1024 threads want 64 KB, past the kernel's 48 KB;
     * from the top, 512 threads (32 KB + 1 KB reserved each) are the first
     * to fill the SM's 2048 threads, 4 blocks. */
    CHECK_EQ(block, 512);
    CHECK_EQ(grid, 4 * 132);
    CHECK_CU(cuModuleUnload(module));
}

/* The callback may call the driver: it runs without the driver's lock. */
static size_t shared_asking_driver(int block_size)
{
    int warp = 0;
    cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0);
    return (size_t)(block_size / (warp > 0 ? warp : 32)) * 4;
}

static void test_errors(void)
{
    CUmodule module;
    CUfunction f = load_kernel(&module, 0);
    if (f == NULL)
        return;
    int n = 0, grid = 0, block = 0;
    CHECK_CU(cuOccupancyMaxPotentialBlockSize(&grid, &block, f, shared_asking_driver, 0, 0));
    CHECK(block > 0 && grid > 0);
    CHECK_CU_IS(cuOccupancyMaxActiveBlocksPerMultiprocessor(NULL, f, 128, 0),
                CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 0, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, -32, 0),
                CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, 128, 0, 0x100),
                CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuOccupancyMaxPotentialBlockSize(NULL, &block, f, NULL, 0, 0),
                CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuOccupancyMaxPotentialBlockSize(&grid, NULL, f, NULL, 0, 0),
                CUDA_ERROR_INVALID_VALUE);
    CHECK_CU_IS(cuOccupancyMaxPotentialBlockSizeWithFlags(&grid, &block, f, NULL, 0, 0, 0x100),
                CUDA_ERROR_INVALID_VALUE);
    int bogus_storage[16] = {0};
    CUfunction bogus = (CUfunction)(void *)bogus_storage;
    CHECK_CU_IS(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, bogus, 128, 0),
                CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU_IS(cuOccupancyMaxPotentialBlockSize(&grid, &block, bogus, NULL, 0, 0),
                CUDA_ERROR_INVALID_HANDLE);
    CHECK_CU(cuModuleUnload(module));
    CHECK_CU_IS(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 128, 0),
                CUDA_ERROR_INVALID_HANDLE); /* unloaded with its module */
}

int main(void)
{
    CUcontext context;
    if (!gpu_test_start(&context))
        return gpu_test_summary();
    test_against_calculator();
    test_known_answers();
    test_errors();
    CHECK_CU(cuCtxDestroy(context));
    return gpu_test_summary();
}
