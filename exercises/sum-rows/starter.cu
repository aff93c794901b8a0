// sum-rows: one row per thread. Compiles; not yet correct.
extern "C" __global__ void sum_rows(const float *m, float *out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    // TODO: guard r, loop over the row's columns.
    if (r < rows)
        out[r] = m[r * cols];
}
