// Transpose table, the transpose without bank conflicts, written from
// the description in Greg Ruetsch and Paulius Micikevicius, "Optimizing Matrix Transpose
// in CUDA" (NVIDIA, 2009), and Mark Harris, "An Efficient Matrix Transpose in CUDA
// C/C++" (NVIDIA Developer Blog, 2013): the coalesced transpose with a padded tile.
//
// The coalesced transpose with one unused column in the shared tile (32 x 33): the
// words of a column then fall in 32 different banks, so reading a column costs one
// shared-memory wavefront instead of 32. Square matrices whose side is a multiple of 32.
#define TILE 32
#define ROWS 8

extern "C" __global__ void transpose_conflict_free(const float *in, float *out, int width)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}
