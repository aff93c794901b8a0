// hypot-stride, the reference: c[i] = hypot(a[i], b[i]) by a grid-stride loop.
extern "C" __global__ void hypot_stride(const float *a, const float *b, float *c, int n)
{
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        c[i] = hypotf(a[i], b[i]);
}
