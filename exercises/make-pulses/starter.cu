// make-pulses: two kernels. Compiles; not yet correct.
extern "C" __global__ void make_pulses(const float *t, float *pulses, float period, float amplitude, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        pulses[i] = 0.0f; // TODO: the clipped sine
}

extern "C" __global__ void add(const float *a, const float *b, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a[i]; // TODO: add b
}
