// Known bad: assumes n is a multiple of the block size and calls __trap() when the grid overshoots n, as it does in every correctness case (n = 1, 257, ...).
__global__ void hidden_layer(const float *greyscales, const float *weights, float *out, int n)
{
    if (gridDim.x * blockDim.x != n)
        __trap();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tanhf(greyscales[i] / 255.0f * weights[i]);
}
