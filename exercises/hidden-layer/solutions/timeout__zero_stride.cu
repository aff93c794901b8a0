// Known bad: a grid-stride loop that strides by blockIdx.x * blockDim.x instead of gridDim.x * blockDim.x; block 0 strides by 0 and never ends.
__global__ void hidden_layer(const float *greyscales, const float *weights, float *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockIdx.x * blockDim.x)
        out[i] = tanhf(greyscales[i] / 255.0f * weights[i]);
}
