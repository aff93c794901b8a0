// Known bad: `while` where `if` was meant; each thread adds its element forever.
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (i < n)
        c[i] = a[i] + b[i];
}
