// heat-stencil: one step of heat diffusion. Compiles; not yet correct.
extern "C" __global__ void heat_step(const float *u, float *u_next, int rows, int cols, float alpha)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    // TODO: the edges (left 100, others 0), and the 5-point update inside.
    if (row < rows && col < cols)
        u_next[row * cols + col] = u[row * cols + col];
}
