// Reduction 1, interleaved addressing with divergent branching, written from
// the description in Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA,
// 2007, the slides of the CUDA SDK's reduction sample), kernel 1.
//
// Each block of 128 threads loads 128 ints into shared memory and sums them as a tree:
// at step s (1, 2, 4, ...) the threads whose index is a multiple of 2s add the element s
// further on. Half the threads of every warp idle at the first step (divergence) and the
// modulo is slow. Writes one partial sum per block; the host launches it again on the
// partial sums until one is left. Elements past n count as 0.
#define BLOCK 128

extern "C" __global__ void reduce_interleaved_divergent(const int *in, int *out, unsigned n)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    s[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned stride = 1; stride < BLOCK; stride *= 2) {
        if (t % (2 * stride) == 0)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}
