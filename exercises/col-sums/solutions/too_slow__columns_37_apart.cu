// Known bad (speed): neighbouring threads take columns 37 apart (a permutation when cols is no multiple of 37): uncoalesced.
extern "C" __global__ void col_sums(const float *m, float *out, int rows, int cols)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= cols)
        return;
    int c = (int)(((long long)t * 37) % cols);
    float total = 0.0f;
    for (int r = 0; r < rows; r++)
        total += m[r * cols + c];
    out[c] = total;
}
