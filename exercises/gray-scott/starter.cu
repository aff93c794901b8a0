// gray-scott: an initial state, then reaction-diffusion steps. Compiles; not yet correct.
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
    // TODO: the reaction-diffusion update of u and v (see the statement).
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        uv_next[r * cols + c] = uv[r * cols + c];
        uv_next[rows * cols + r * cols + c] = uv[rows * cols + r * cols + c];
    }
}
