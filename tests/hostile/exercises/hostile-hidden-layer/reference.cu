// hidden-layer, the reference: out[i] = tanh(greyscales[i] / 255 * weights[i]),
// normalization, weighting and activation fused, one thread per element.
__global__ void hidden_layer(const float *greyscales, const float *weights, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tanhf(greyscales[i] / 255.0f * weights[i]);
}
