// Transpose table, the naive transpose, written from
// the description in Greg Ruetsch and Paulius Micikevicius, "Optimizing Matrix Transpose
// in CUDA" (NVIDIA, 2009), and Mark Harris, "An Efficient Matrix Transpose in CUDA
// C/C++" (NVIDIA Developer Blog, 2013): the naive transpose.
//
// The copy's reads (coalesced), but each element is written to its transposed place:
// the 32 lanes of a warp write 32 different rows of the output (a width-float stride),
// so every write touches 32 sectors. Square matrices whose side is a multiple of 32.
#define TILE 32
#define ROWS 8

extern "C" __global__ void transpose_naive(const float *in, float *out, int width)
{
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[x * width + y + j] = in[(y + j) * width + x];
}
