// Corpus: device function pointers, in a table initialized with function
// addresses and called indirectly.
typedef float (*binary_op)(float, float);

__device__ float add(float a, float b) { return a + b; }
__device__ float multiply(float a, float b) { return a * b; }
__device__ binary_op operations[2] = {add, multiply};

__global__ void apply(float *x, const float *y, int which, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    binary_op op = operations[which];
    if (i < n)
        x[i] = op(x[i], y[i]);
}
