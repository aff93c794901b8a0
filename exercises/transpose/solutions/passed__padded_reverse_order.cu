// Known good: the 32x33 tile, each thread walking its 4 rows from the bottom of the tile up.
extern "C" __global__ void transpose(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x;
    for (int k = 3; k >= 0; k--) {
        int ty = threadIdx.y + 8 * k;
        int y = blockIdx.y * 32 + ty;
        if (x < cols && y < rows)
            tile[ty][threadIdx.x] = in[(size_t)y * cols + x];
    }
    __syncthreads();
    int ox = blockIdx.y * 32 + threadIdx.x;
    for (int k = 3; k >= 0; k--) {
        int ty = threadIdx.y + 8 * k;
        int oy = blockIdx.x * 32 + ty;
        if (ox < rows && oy < cols)
            out[(size_t)oy * rows + ox] = tile[threadIdx.x][ty];
    }
}
