// Known good: a 32x32 tile with an XOR-swizzled column (x ^ row), so a column read hits 32 banks.
extern "C" __global__ void transpose(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[32][32];
    int tx = threadIdx.x, ty = threadIdx.y;
    int c = blockIdx.x * 32 + tx;
    int r = blockIdx.y * 32 + ty;
    for (int j = 0; j < 32; j += 8) {
        int row = ty + j;
        if (c < cols && r + j < rows)
            tile[row][tx ^ row] = in[(size_t)(r + j) * cols + c];
    }
    __syncthreads();
    c = blockIdx.y * 32 + tx;
    r = blockIdx.x * 32 + ty;
    for (int j = 0; j < 32; j += 8) {
        int col = ty + j;  // the column of the tile this thread reads, at row tx
        if (c < rows && r + j < cols)
            out[(size_t)(r + j) * rows + c] = tile[tx][col ^ tx];
    }
}
