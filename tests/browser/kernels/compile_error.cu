// Does not compile: line 4 uses a name that is not declared.
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
