// Known bad: takes the sizes as size_t instead of int, so its parameters do not match the exercise's.
extern "C" __global__ void transpose(const float *in, float *out, size_t rows, size_t cols)
{
    __shared__ float tile[32][33];
    size_t c = blockIdx.x * 32 + threadIdx.x;
    size_t r = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        if (c < cols && r + j < rows)
            tile[threadIdx.y + j][threadIdx.x] = in[(r + j) * cols + c];
    __syncthreads();
    c = blockIdx.y * 32 + threadIdx.x;
    r = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        if (c < rows && r + j < cols)
            out[(r + j) * rows + c] = tile[threadIdx.x][threadIdx.y + j];
}
