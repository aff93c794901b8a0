// Reduction 6, completely unrolled, written from
// the description in Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA,
// 2007, the slides of the CUDA SDK's reduction sample), kernel 6.
//
// Kernel 5 with the block size known when compiling (the slides use a template
// parameter; here BLOCK), so every step of the tree is unrolled and the tests of the
// steps a block of BLOCK threads does not need disappear.
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

extern "C" __global__ void reduce_complete_unroll(const int *in, int *out, unsigned n)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x, i = blockIdx.x * 2 * BLOCK + t;
    s[t] = (i < n ? in[i] : 0) + (i + BLOCK < n ? in[i + BLOCK] : 0);
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
