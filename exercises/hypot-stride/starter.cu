// hypot-stride: a fixed launch of 128 x 64 threads. Compiles; not yet correct.
extern "C" __global__ void hypot_stride(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // TODO: 8192 threads, n elements: loop with a stride.
    if (i < n)
        c[i] = hypotf(a[i], b[i]);
}
