// Reduction 5, unrolling the last warp, written from
// the description in Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA,
// 2007, the slides of the CUDA SDK's reduction sample), kernel 5.
//
// Kernel 4, but once 32 or fewer threads remain the last warp finishes without
// __syncthreads() and without the loop: six additions in a row through a volatile
// pointer, as the slides do (warp-synchronous code that relies on a warp's lanes
// running together, which the virtual GPU's lockstep guarantees).
#define BLOCK 128

__device__ void warp_reduce(volatile int *s, unsigned t)
{
    s[t] += s[t + 32];
    s[t] += s[t + 16];
    s[t] += s[t + 8];
    s[t] += s[t + 4];
    s[t] += s[t + 2];
    s[t] += s[t + 1];
}

extern "C" __global__ void reduce_unroll_last_warp(const int *in, int *out, unsigned n)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x, i = blockIdx.x * 2 * BLOCK + t;
    s[t] = (i < n ? in[i] : 0) + (i + BLOCK < n ? in[i + BLOCK] : 0);
    __syncthreads();
    for (unsigned stride = BLOCK / 2; stride > 32; stride /= 2) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t < 32)
        warp_reduce(s, t);
    if (t == 0)
        out[blockIdx.x] = s[0];
}
