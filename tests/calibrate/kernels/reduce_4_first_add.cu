// Reduction 4, first add during load, written from
// the description in Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA,
// 2007, the slides of the CUDA SDK's reduction sample), kernel 4.
//
// Kernel 3 with half the blocks: each thread loads two elements a block apart and
// stores their sum, so no thread idles during the first step. A block covers 256
// elements.
#define BLOCK 128

extern "C" __global__ void reduce_first_add(const int *in, int *out, unsigned n)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x, i = blockIdx.x * 2 * BLOCK + t;
    s[t] = (i < n ? in[i] : 0) + (i + BLOCK < n ? in[i + BLOCK] : 0);
    __syncthreads();
    for (unsigned stride = BLOCK / 2; stride > 0; stride /= 2) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}
