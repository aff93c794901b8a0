// Known bad: correct, but one thread adds every element while the rest idle.
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        for (int i = 0; i < n; i++)
            c[i] = a[i] + b[i];
}
