// matmul-tiled: c = a x b for n x n matrices. Compiles; not yet correct.
extern "C" __global__ void matmul(const float *a, const float *b, float *c, int n)
{
    int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    // TODO: c[row][col] = sum over k of a[row][k] * b[k][col], through shared-memory tiles.
    if (row < n && col < n)
        c[row * n + col] = a[row * n + col] * b[row * n + col];
}
