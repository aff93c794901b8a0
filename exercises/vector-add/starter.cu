// vector-add: c[i] = a[i] + b[i] for i < n. Compiles; not yet correct.
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = threadIdx.x;
    // TODO: use the block index too, and guard against i >= n.
    c[i] = a[i];
}
