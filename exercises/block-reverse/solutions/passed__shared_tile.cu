// Known good: shared tile, a barrier, reversed write.
extern "C" __global__ void block_reverse(const float *in, float *out)
{
    __shared__ float tile[256];
    int base = blockIdx.x * 256;
    tile[threadIdx.x] = in[base + threadIdx.x];
    __syncthreads();
    out[base + threadIdx.x] = tile[255 - threadIdx.x];
}
