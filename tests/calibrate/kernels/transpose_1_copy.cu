// Transpose table, the copy that bounds it, written from
// the description in Greg Ruetsch and Paulius Micikevicius, "Optimizing Matrix Transpose
// in CUDA" (NVIDIA, 2009), and Mark Harris, "An Efficient Matrix Transpose in CUDA
// C/C++" (NVIDIA Developer Blog, 2013): the simple copy.
//
// A block of 32 x 8 threads moves one 32 x 32 tile, each thread 4 elements 8 rows
// apart, reading and writing the same place: both sides coalesced, the bandwidth a
// transpose can at best reach. Square matrices whose side is a multiple of 32.
#define TILE 32
#define ROWS 8

extern "C" __global__ void transpose_copy(const float *in, float *out, int width)
{
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(y + j) * width + x] = in[(y + j) * width + x];
}
