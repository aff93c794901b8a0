// Known bad: subtracts instead of adding.
extern "C" __global__ void matrix_add(const float *a, const float *b, float *c, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols)
        c[row * cols + col] = a[row * cols + col] - b[row * cols + col];
}
