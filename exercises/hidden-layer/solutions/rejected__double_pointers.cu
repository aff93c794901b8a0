// Known bad: takes double pointers where the exercise passes float buffers, so its parameters do not match the signature.
__global__ void hidden_layer(const double *greyscales, const double *weights, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tanh(greyscales[i] / 255.0 * weights[i]);
}
