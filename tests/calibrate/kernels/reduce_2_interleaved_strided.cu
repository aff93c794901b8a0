// Reduction 2, interleaved addressing with a strided index, written from
// the description in Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA,
// 2007, the slides of the CUDA SDK's reduction sample), kernel 2.
//
// Kernel 1's tree, but at step s thread t works on element 2·s·t: the active threads
// are contiguous (no divergence within a warp until fewer than 32 work), and the
// strided accesses to shared memory conflict in its banks.
#define BLOCK 128

extern "C" __global__ void reduce_interleaved_strided(const int *in, int *out, unsigned n)
{
    __shared__ int s[BLOCK];
    unsigned t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    s[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned stride = 1; stride < BLOCK; stride *= 2) {
        unsigned at = 2 * stride * t;
        if (at < BLOCK)
            s[at] += s[at + stride];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}
