// Corpus: the ways samples read and write memory: __ldg and the cache
// hint intrinsics, vector types, volatile, local arrays, device malloc,
// printf and the last-block pattern of threadFenceReduction.
#include <cstdio>

__device__ unsigned blocks_done = 0;

__global__ void reduce_last_block(const float4 *in, float *partial, float *total, int n)
{
    __shared__ float sums[256];
    __shared__ bool last;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 v = i < n ? __ldg(&in[i]) : make_float4(0, 0, 0, 0);
    float local[4] = {v.x, v.y, v.z, v.w};
    float s = 0;
    for (int k = 0; k < 4; k++)
        s += local[(k + threadIdx.x) % 4];
    sums[threadIdx.x] = s + __ldcs(&partial[0]) * 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride)
            sums[threadIdx.x] += sums[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        __stcg(&partial[blockIdx.x], sums[0]);
        __threadfence();
        last = atomicInc(&blocks_done, gridDim.x) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        volatile float *p = partial;
        float t = 0;
        for (unsigned b = 0; b < gridDim.x; b++)
            t += p[b];
        *total = t;
        float *scratch = (float *)malloc(16);
        if (scratch) {
            scratch[0] = t;
            printf("total %f\n", scratch[0]);
            free(scratch);
        }
    }
}
