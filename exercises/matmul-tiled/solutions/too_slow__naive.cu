// Known bad (speed): every product reads a and b from global memory.
extern "C" __global__ void matmul(const float *a, const float *b, float *c, int n)
{
    int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    if (row >= n || col >= n)
        return;
    float total = 0.0f;
    for (int k = 0; k < n; k++)
        total += a[row * n + k] * b[k * n + col];
    c[row * n + col] = total;
}
