// Corpus: warpSize (WARP_SZ in PTX) in index arithmetic and warp reductions,
// as the CUDA samples' reductions write them.
__global__ void warp_sums(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    if (threadIdx.x % warpSize == 0)
        out[i / warpSize] = v;
}
