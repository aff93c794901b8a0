// Known bad: no barrier: a warp reads elements other warps have not written yet.
extern "C" __global__ void block_reverse(const float *in, float *out)
{
    __shared__ float tile[256];
    int base = blockIdx.x * 256;
    tile[threadIdx.x] = in[base + threadIdx.x];
    out[base + threadIdx.x] = tile[255 - threadIdx.x];
}
