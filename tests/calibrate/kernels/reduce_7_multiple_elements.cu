// Reduction 7, multiple elements per thread, written from
// the description in Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA,
// 2007, the slides of the CUDA SDK's reduction sample), kernel 7.
//
// Kernel 6 with fewer blocks than elements call for (algorithm cascading): each thread
// first adds, in a loop that strides by the whole grid, pairs of elements a block
// apart, then the block's tree runs once. The host picks the grid (at most a few
// blocks per SM), so each thread sums many elements sequentially.
#define BLOCK 128

__device__ void warp_reduce(volatile int *s, unsigned t)
{
    if (BLOCK >= 64)
        s[t] += s[t + 32];
    if (BLOCK >= 32)
        s[t] += s[t + 16];
    if (BLOCK >= 16)
        s[t] += s[t + 8];
    if (BLOCK >= 8)
        s[t] += s[t + 4];
    if (BLOCK >= 4)
        s[t] += s[t + 2];
    if (BLOCK >= 2)
        s[t] += s[t + 1];
}

extern "C" __global__ void reduce_multiple_elements(const int *in, int *out, unsigned n)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x, i = blockIdx.x * 2 * BLOCK + t, grid = 2 * BLOCK * gridDim.x;
    s[t] = 0;
    while (i < n) {
        s[t] += in[i] + (i + BLOCK < n ? in[i + BLOCK] : 0);
        i += grid;
    }
    __syncthreads();
    if (BLOCK >= 512) {
        if (t < 256)
            s[t] += s[t + 256];
        __syncthreads();
    }
    if (BLOCK >= 256) {
        if (t < 128)
            s[t] += s[t + 128];
        __syncthreads();
    }
    if (BLOCK >= 128) {
        if (t < 64)
            s[t] += s[t + 64];
        __syncthreads();
    }
    if (t < 32)
        warp_reduce(s, t);
    if (t == 0)
        out[blockIdx.x] = s[0];
}
