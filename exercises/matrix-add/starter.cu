// matrix-add: c = a + b on a 2-D grid. Compiles; not yet correct.
extern "C" __global__ void matrix_add(const float *a, const float *b, float *c, int rows, int cols)
{
    int col = threadIdx.x;
    int row = threadIdx.y;
    // TODO: add the block's offset in each dimension and guard both.
    c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
}
