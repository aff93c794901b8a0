// vector-add, the reference, made slow on purpose: one thread adds every
// element in turn, 192 times over, so that a kernel with a thread per
// element is about 300 times faster (most of its loads hit in the L1), for
// the tests of how ratios under 0.005 read ("0.00×" before issue 16).
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        for (int pass = 0; pass < 192; pass++)
            for (int i = 0; i < n; i++)
                c[i] = a[i] + b[i];
}
