// A 2 GiB __device__ array: the student's own mistake, a compile_error that
// says what is too big (never internal_error from a driver that cannot load it).
__device__ char scratch[2u << 30];

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        scratch[i] = 1;
        c[i] = a[i] + b[i];
    }
}
