// Known good: tanh written out as the course's (e^x - e^-x) / (e^x + e^-x) with expf; the cancellation near x = 0 stays under atol 1e-6.
__global__ void hidden_layer(const float *greyscales, const float *weights, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = greyscales[i] / 255.0f * weights[i];
        float ep = expf(x), em = expf(-x);
        out[i] = (ep - em) / (ep + em);
    }
}
