// Known bad: updates u in place, so neighbours read a mix of old and new values.
extern "C" __global__ void heat_step(float *u, float *u_next, int rows, int cols, float alpha)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= rows || col >= cols)
        return;
    int i = row * cols + col;
    if (col == 0)
        u_next[i] = 100.0f; /* the hot left edge */
    else if (row == 0 || row == rows - 1 || col == cols - 1)
        u_next[i] = 0.0f; /* the cold other edges */
    else
        u[i] = u_next[i] = u[i] + alpha * (u[i - cols] + u[i + cols] + u[i - 1] + u[i + 1] - 4.0f * u[i]);
}
