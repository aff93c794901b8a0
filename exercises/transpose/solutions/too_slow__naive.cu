// Known bad: correct, but writes out straight from in: a warp's 32 writes land 'rows' floats apart, uncoalesced.
extern "C" __global__ void transpose(const float *in, float *out, int rows, int cols)
{
    int c = blockIdx.x * 32 + threadIdx.x;
    int r = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        if (c < cols && r + j < rows)
            out[(size_t)c * rows + r + j] = in[(size_t)(r + j) * cols + c];
}
