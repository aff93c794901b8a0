// matmul-tiled, the reference: 16 x 16 tiles of a and b staged in shared memory.
extern "C" __global__ void matmul(const float *a, const float *b, float *c, int n)
{
    __shared__ float ta[16][16], tb[16][16];
    int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    float total = 0.0f;
    for (int k0 = 0; k0 < n; k0 += 16) {
        ta[threadIdx.y][threadIdx.x] = row < n && k0 + threadIdx.x < n ? a[row * n + k0 + threadIdx.x] : 0.0f;
        tb[threadIdx.y][threadIdx.x] = col < n && k0 + threadIdx.y < n ? b[(k0 + threadIdx.y) * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < 16; k++)
            total += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        __syncthreads();
    }
    if (row < n && col < n)
        c[row * n + col] = total;
}
