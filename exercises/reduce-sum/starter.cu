// reduce-sum: *sum = x[0] + ... + x[n-1]. Compiles; not yet correct.
extern "C" __global__ void reduce_sum(const float *x, float *sum, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // TODO: sum the block's elements in shared memory, then add the block's total to *sum.
    if (i == 0)
        *sum = x[0];
}
