// Known bad (speed): threads along x walk down a column, so a warp touches 32 rows: uncoalesced. Correct on a square matrix.
extern "C" __global__ void matrix_add(const float *a, const float *b, float *c, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols)
        c[col * rows + row] = a[col * rows + row] + b[col * rows + row];
}
