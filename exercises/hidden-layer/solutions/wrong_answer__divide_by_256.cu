// Known bad: normalizes by 256 instead of 255, so every nonzero output is off by about 0.4%, far beyond rtol 1e-5.
__global__ void hidden_layer(const float *greyscales, const float *weights, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tanhf(greyscales[i] / 256.0f * weights[i]);
}
