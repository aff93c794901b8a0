// Corpus: static and extern __shared__ memory in one kernel (the shfl_scan
// and threadFenceReduction samples), and kernels of different static sizes
// in one module.
__global__ void static_and_dynamic(const int *in, int *out)
{
    __shared__ int count;
    extern __shared__ int dynamic[];
    if (threadIdx.x == 0)
        count = in[0];
    dynamic[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = dynamic[blockDim.x - 1 - threadIdx.x] + count;
}

__global__ void large_tile(float *out)
{
    __shared__ float tile[8192];
    tile[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}

__global__ void small_tile(float *out)
{
    __shared__ float tile[32];
    tile[threadIdx.x % 32] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = tile[31 - threadIdx.x % 32];
}
