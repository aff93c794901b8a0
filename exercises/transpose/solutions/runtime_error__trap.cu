// Known bad: aborts with __trap() because it expects blocks of 32x32 threads, not the 32x8 the exercise launches.
extern "C" __global__ void transpose(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[32][33];
    if (blockDim.y != 32)
        __trap();
    int c = blockIdx.x * 32 + threadIdx.x;
    int r = blockIdx.y * 32 + threadIdx.y;
    if (c < cols && r < rows)
        tile[threadIdx.y][threadIdx.x] = in[(size_t)r * cols + c];
    __syncthreads();
    c = blockIdx.y * 32 + threadIdx.x;
    r = blockIdx.x * 32 + threadIdx.y;
    if (c < rows && r < cols)
        out[(size_t)r * rows + c] = tile[threadIdx.x][threadIdx.y];
}
