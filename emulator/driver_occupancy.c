/*
 * Occupancy calls: cuOccupancyMaxActiveBlocksPerMultiprocessor(WithFlags)
 * and cuOccupancyMaxPotentialBlockSize(WithFlags).
 *
 * They ask occupancy.c, which the timing model asks too, about the kernel
 * as cuFuncGetAttribute describes it: its registers (ptxas's count when
 * the program gave it, else the estimate from the PTX), its static shared
 * memory, its dynamic shared memory limit and its carveout preference.
 * So a program that runs cuda_occupancy.h on those attributes gets the
 * same answers.
 *
 * The block-size search is the CUDA runtime's (cuda_runtime.h): every
 * multiple of the warp size from the largest block allowed down, keeping
 * the one with the most resident threads, the largest on a tie. The
 * caller's block-size-to-shared-memory callback runs without the driver
 * lock held, so it may call the driver itself.
 */
#include "driver.h"

/* The flags cuda.h defines. CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE concerns
 * partitioned global caching, which none of the modeled parts has. */
#define OCCUPANCY_FLAGS (CU_OCCUPANCY_DEFAULT | CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE)

/* What occupancy.c needs about one kernel, taken under the lock. */
struct occupancy_kernel {
    const struct emu_device_model *device;
    struct emu_occupancy_input input; /* threads and dynamic shared memory left to fill */
    int max_threads;                  /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK */
};

/* Takes the lock and describes `func`; the caller ends with driver_leave().
 * CUDA_ERROR_INVALID_VALUE unless `valid` and `flags` are. */
static CUresult occupancy_begin(CUfunction func, bool valid, unsigned flags,
                                struct occupancy_kernel *kernel)
{
    CUresult rc = driver_begin();
    if (rc == CUDA_SUCCESS && (!valid || (flags & ~OCCUPANCY_FLAGS) != 0))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS && !driver_handle_live(DRIVER_FUNCTION, func))
        rc = CUDA_ERROR_INVALID_HANDLE;
    if (rc != CUDA_SUCCESS)
        return rc;
    const struct emu_function_info *info = emu_function_info(func->function);
    kernel->device = driver.device;
    kernel->input = (struct emu_occupancy_input){
        .registers = info->registers,
        .static_shared_bytes = info->static_shared_bytes,
        .max_dynamic_shared_bytes = func->max_dynamic_shared,
        .shared_carveout = func->carveout,
    };
    kernel->max_threads = driver_function_max_threads(func, driver.device);
    return CUDA_SUCCESS;
}

static int occupancy_blocks(const struct occupancy_kernel *kernel, int threads, size_t shared)
{
    struct emu_occupancy_input input = kernel->input;
    input.threads_per_block = threads;
    input.dynamic_shared_bytes = shared;
    return emu_occupancy_blocks(kernel->device, &input);
}

EMU_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
    struct occupancy_kernel kernel;
    CUresult rc = occupancy_begin(func, numBlocks != NULL && blockSize > 0, flags, &kernel);
    if (rc == CUDA_SUCCESS)
        *numBlocks = occupancy_blocks(&kernel, blockSize, dynamicSMemSize);
    return driver_leave(rc);
}

EMU_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func,
                                                                int blockSize,
                                                                size_t dynamicSMemSize)
{
    return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        numBlocks, func, blockSize, dynamicSMemSize, CU_OCCUPANCY_DEFAULT);
}

/* The runtime's search (cuda_runtime.h's
 * cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags). */
static void occupancy_search(const struct occupancy_kernel *kernel, CUoccupancyB2DSize shared_of,
                             size_t shared, int limit, int *min_grid, int *block)
{
    const struct emu_device_model *d = kernel->device;
    int warp = d->warp_size;
    int best_threads = 0, best_block = 0, best_blocks = 0;
    for (int aligned = (limit + warp - 1) / warp * warp; aligned > 0; aligned -= warp) {
        int threads = aligned < limit ? aligned : limit;
        int blocks = occupancy_blocks(kernel, threads, shared_of ? shared_of(threads) : shared);
        if (threads * blocks > best_threads) {
            best_threads = threads * blocks;
            best_block = threads;
            best_blocks = blocks;
        }
        if (best_threads == d->max_threads_per_sm)
            break;
    }
    *min_grid = best_blocks * d->sm_count;
    *block = best_block;
}

EMU_EXPORT CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(
    int *minGridSize, int *blockSize, CUfunction func,
    CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit,
    unsigned int flags)
{
    struct occupancy_kernel kernel;
    bool valid = minGridSize != NULL && blockSize != NULL && blockSizeLimit >= 0;
    CUresult rc = occupancy_begin(func, valid, flags, &kernel);
    driver_leave(rc);
    if (rc != CUDA_SUCCESS)
        return rc;
    int limit = kernel.max_threads; /* at most the device's */
    if (blockSizeLimit > 0 && blockSizeLimit < limit)
        limit = blockSizeLimit;
    occupancy_search(&kernel, blockSizeToDynamicSMemSize, dynamicSMemSize, limit, minGridSize,
                     blockSize);
    return CUDA_SUCCESS;
}

EMU_EXPORT CUresult cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize,
                                                     CUfunction func,
                                                     CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                     size_t dynamicSMemSize, int blockSizeLimit)
{
    return cuOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func,
                                                     blockSizeToDynamicSMemSize, dynamicSMemSize,
                                                     blockSizeLimit, CU_OCCUPANCY_DEFAULT);
}
