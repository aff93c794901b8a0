// make-pulses, the reference: pulses from a clipped sine, then pulses + noise.
extern "C" __global__ void make_pulses(const float *t, float *pulses, float period, float amplitude, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        pulses[i] = fmaxf(sinf(t[i] / period) - 0.3f, 0.0f) * amplitude;
}

extern "C" __global__ void add(const float *a, const float *b, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a[i] + b[i];
}
