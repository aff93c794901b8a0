// Known good: multiplies by 1/255 instead of dividing; the rounding differs from the reference by about an ulp, well within rtol 1e-5.
__global__ void hidden_layer(const float *__restrict__ greyscales, const float *__restrict__ weights,
                             float *__restrict__ out, int n)
{
    const float inv255 = 1.0f / 255.0f;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tanhf(greyscales[i] * inv255 * weights[i]);
}
