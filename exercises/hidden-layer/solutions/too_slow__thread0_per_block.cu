// Known bad: correct, but only thread 0 of each block works, looping over its block's 256 elements one at a time while 255 threads idle.
__global__ void hidden_layer(const float *greyscales, const float *weights, float *out, int n)
{
    if (threadIdx.x != 0)
        return;
    int start = blockIdx.x * blockDim.x;
    int end = min(start + (int)blockDim.x, n);
    for (int i = start; i < end; i++)
        out[i] = tanhf(greyscales[i] / 255.0f * weights[i]);
}
