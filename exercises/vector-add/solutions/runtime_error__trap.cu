// Known bad: aborts the kernel when it finds the launch not as it expects.
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockDim.x != 128)
        __trap();
    if (i < n)
        c[i] = a[i] + b[i];
}
