// sinexp, the reference: z[i] = sin(x[i]) * exp(y[i]), one thread per element.
extern "C" __global__ void sinexp(const float *x, const float *y, float *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        z[i] = sinf(x[i]) * expf(y[i]);
}
