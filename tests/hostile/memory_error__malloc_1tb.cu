// Asks the device heap for 1 TB and uses the answer without looking.
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float *scratch = (float *)malloc(1ull << 40);
    scratch[threadIdx.x] = a[i];
    if (i < n)
        c[i] = scratch[threadIdx.x] + b[i];
}
