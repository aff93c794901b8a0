// Known bad: no bounds check; in the correctness cases n is not a multiple of 256, so the last block reads and writes past the end of the arrays.
__global__ void hidden_layer(const float *greyscales, const float *weights, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tanhf(greyscales[i] / 255.0f * weights[i]);
}
