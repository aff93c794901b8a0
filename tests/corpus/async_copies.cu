// Corpus: cp.async through the pipeline primitives and through
// cuda::memcpy_async with a cuda::barrier (mbarrier), as the
// globalToShmemAsyncCopy sample stages tiles.
#include <cuda/barrier>
#include <cuda_pipeline.h>

__global__ void pipeline_reverse(const float *in, float *out)
{
    __shared__ float stage[256];
    __pipeline_memcpy_async(&stage[threadIdx.x], &in[threadIdx.x], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[threadIdx.x] = stage[blockDim.x - 1 - threadIdx.x];
}

__global__ void barrier_reverse(const float *in, float *out)
{
    __shared__ float stage[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> ready;
    if (threadIdx.x == 0)
        init(&ready, blockDim.x);
    __syncthreads();
    cuda::memcpy_async(&stage[threadIdx.x], &in[threadIdx.x], sizeof(float), ready);
    ready.arrive_and_wait();
    out[threadIdx.x] = stage[blockDim.x - 1 - threadIdx.x];
}
