// transpose: out[c * rows + r] = in[r * cols + c]. Compiles; not yet correct.
// Launched with blocks of 32x8 threads and a grid of
// ceil(cols / 32) x ceil(rows / 32) blocks: each block owns a 32x32 tile of
// in, and each thread handles 4 of its rows (j = 0, 8, 16, 24).
extern "C" __global__ void transpose(const float *in, float *out, int rows, int cols)
{
    // TODO: declare a shared-memory tile and stage the block's 32x32 tile in it.
    int c = blockIdx.x * 32 + threadIdx.x;
    int r = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        if (c < cols && r + j < rows)
            // TODO: this copies in to out; write the element to its
            // transposed place instead, with coalesced writes.
            out[(size_t)(r + j) * cols + c] = in[(size_t)(r + j) * cols + c];
    // TODO: wait for the whole tile (__syncthreads) before reading it back.
}
