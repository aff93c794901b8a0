// Known bad: uses `normalized` without declaring it, which NVRTC rejects.
__global__ void hidden_layer(const float *greyscales, const float *weights, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        normalized = greyscales[i] / 255.0f;
        out[i] = tanhf(normalized * weights[i]);
    }
}
