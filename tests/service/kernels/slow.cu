// Correct, and slow to grade: it spins a while first (a job a kill can
// interrupt while it is running).
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    volatile float x = 0;
    for (int k = 0; k < 600000; k++)
        x += 1.0f;
    if (i < n)
        c[i] = a[i] + b[i];
}
