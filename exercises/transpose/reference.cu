// transpose, the reference: out[c * rows + r] = in[r * cols + c], through a
// 32x33 shared-memory tile (the extra column keeps the column reads free of
// bank conflicts). Blocks of 32x8 threads; each thread moves 4 rows of a tile.
#define TILE 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];

    // Read the tile at (tile row blockIdx.y, tile column blockIdx.x) of in,
    // one row of 32 consecutive floats per warp: coalesced.
    int c = blockIdx.x * TILE + threadIdx.x;
    int r = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        if (c < cols && r + j < rows)
            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(r + j) * cols + c];

    __syncthreads();

    // Write it to the transposed place in out, again one row of 32
    // consecutive floats per warp, reading the tile down a column.
    int out_c = blockIdx.y * TILE + threadIdx.x;  // a row index of in
    int out_r = blockIdx.x * TILE + threadIdx.y;  // a column index of in
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        if (out_c < rows && out_r + j < cols)
            out[(size_t)(out_r + j) * rows + out_c] = tile[threadIdx.x][threadIdx.y + j];
}
