// Known bad: loads tiles past the edge of the matrices.
extern "C" __global__ void matmul(const float *a, const float *b, float *c, int n)
{
    __shared__ float ta[16][16], tb[16][16];
    int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    float total = 0.0f;
    for (int k0 = 0; k0 < n; k0 += 16) {
        ta[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
        tb[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < 16; k++)
            total += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        __syncthreads();
    }
    if (row < n && col < n)
        c[row * n + col] = total;
}
