// Known bad: one element per thread: only the first 8192 are computed.
extern "C" __global__ void hypot_stride(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = hypotf(a[i], b[i]);
}
