// Known good: a wrapping 5-point Laplacian.
// The 5-point Laplacian of one field at (r, c), the plate wrapping around.
__device__ float laplacian(const float *field, int r, int c, int rows, int cols)
{
    int up = (r + rows - 1) % rows, down = (r + 1) % rows;
    int left = (c + cols - 1) % cols, right = (c + 1) % cols;
    return field[up * cols + c] + field[down * cols + c] + field[r * cols + left] +
           field[r * cols + right] - 4.0f * field[r * cols + c];
}

extern "C" __global__ void gs_init(const float *seed, float *uv, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols)
        return;
    int i = r * cols + c, cells = rows * cols;
    bool seeded = seed[i] > 0.9f;
    uv[i] = seeded ? 0.5f : 1.0f;
    uv[cells + i] = seeded ? 0.25f : 0.0f;
}

extern "C" __global__ void gs_step(const float *uv, float *uv_next, int rows, int cols, float du, float dv, float f, float k)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols)
        return;
    int i = r * cols + c, cells = rows * cols;
    const float *u = uv, *v = uv + cells;
    float uvv = u[i] * v[i] * v[i];
    uv_next[i] = u[i] + du * laplacian(u, r, c, rows, cols) - uvv + f * (1.0f - u[i]);
    uv_next[cells + i] = v[i] + dv * laplacian(v, r, c, rows, cols) + uvv - (f + k) * v[i];
}
