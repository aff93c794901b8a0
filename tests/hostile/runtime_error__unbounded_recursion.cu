// Recursion without end: the stack overflows.
__device__ float deeper(float x, int depth)
{
    return deeper(x + 1.0f, depth + 1) * 0.5f + (float)depth;
}
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = deeper(a[i], 0) + b[i];
}
