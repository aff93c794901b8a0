// Known bad: edge threads read neighbours outside the plate.
extern "C" __global__ void heat_step(const float *u, float *u_next, int rows, int cols, float alpha)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= rows || col >= cols)
        return;
    int i = row * cols + col;
    float next = u[i] + alpha * (u[i - cols] + u[i + cols] + u[i - 1] + u[i + 1] - 4.0f * u[i]);
    u_next[i] = col == 0 ? 100.0f : (row == 0 || row == rows - 1 || col == cols - 1) ? 0.0f : next;
}
