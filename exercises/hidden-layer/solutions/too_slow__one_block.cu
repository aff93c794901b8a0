// Known bad: correct, but only block 0 works (a block-stride loop) while the other blocks idle, so one SM does everything.
__global__ void hidden_layer(const float *greyscales, const float *weights, float *out, int n)
{
    if (blockIdx.x != 0)
        return;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        out[i] = tanhf(greyscales[i] / 255.0f * weights[i]);
}
