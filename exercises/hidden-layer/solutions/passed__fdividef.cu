// Known good: the fast intrinsic __fdividef (2 ulp for these divisors) for the normalization; within rtol 1e-5.
__global__ void hidden_layer(const float *greyscales, const float *weights, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tanhf(__fdividef(greyscales[i], 255.0f) * weights[i]);
}
