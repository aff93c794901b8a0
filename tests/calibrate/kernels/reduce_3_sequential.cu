// Reduction 3, sequential addressing, written from
// the description in Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA,
// 2007, the slides of the CUDA SDK's reduction sample), kernel 3.
//
// The tree folds the upper half onto the lower half: at step s (64, 32, ... 1) thread
// t < s adds element t + s to element t. Contiguous threads, contiguous words: no
// divergence in full warps and no bank conflicts; half the threads idle from the
// first step.
#define BLOCK 128

extern "C" __global__ void reduce_sequential(const int *in, int *out, unsigned n)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    s[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned stride = BLOCK / 2; stride > 0; stride /= 2) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}
