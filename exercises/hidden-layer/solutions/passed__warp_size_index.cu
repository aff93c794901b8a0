// hidden-layer, known good: the index computed warp by warp with warpSize
// (which compiles to the PTX constant WARP_SZ), as warp-level code writes it.
__global__ void hidden_layer(const float *greyscales, const float *weights, float *out, int n)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    int i = warp * warpSize + threadIdx.x % warpSize;
    if (i < n)
        out[i] = tanhf(greyscales[i] / 255.0f * weights[i]);
}
