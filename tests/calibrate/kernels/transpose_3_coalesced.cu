// Transpose table, the coalesced transpose through shared memory, written from
// the description in Greg Ruetsch and Paulius Micikevicius, "Optimizing Matrix Transpose
// in CUDA" (NVIDIA, 2009), and Mark Harris, "An Efficient Matrix Transpose in CUDA
// C/C++" (NVIDIA Developer Blog, 2013): the coalesced transpose.
//
// A block reads its 32 x 32 tile row by row into shared memory (coalesced), waits for
// the whole tile, and writes the transposed tile row by row (coalesced) by reading a
// column of the shared tile. The 32 words of a column lie in one bank of the 32 x 32
// tile: each such read is a 32-way bank conflict. Square matrices whose side is a
// multiple of 32.
#define TILE 32
#define ROWS 8

extern "C" __global__ void transpose_coalesced(const float *in, float *out, int width)
{
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}
