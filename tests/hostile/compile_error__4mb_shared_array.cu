// 4 MB of shared memory per block: far beyond any GPU's 228 KB.
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    __shared__ float huge[1024 * 1024];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    huge[threadIdx.x] = a[i];
    __syncthreads();
    if (i < n)
        c[i] = huge[threadIdx.x] + b[i];
}
