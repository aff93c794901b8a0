// Known good: neighbouring threads, neighbouring columns.
extern "C" __global__ void col_sums(const float *m, float *out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols)
        return;
    float total = 0.0f;
    for (int r = 0; r < rows; r++)
        total += m[r * cols + c];
    out[c] = total;
}
