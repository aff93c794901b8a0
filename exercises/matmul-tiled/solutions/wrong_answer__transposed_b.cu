// Known bad: multiplies by the transpose of b.
extern "C" __global__ void matmul(const float *a, const float *b, float *c, int n)
{
    int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    if (row >= n || col >= n)
        return;
    float total = 0.0f;
    for (int k = 0; k < n; k++)
        total += a[row * n + k] * b[col * n + k];
    c[row * n + col] = total;
}
