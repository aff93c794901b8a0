// hidden-layer: out[i] = tanh(greyscales[i] / 255 * weights[i]) for i < n.
// Compiles; not yet correct: it only normalizes the greyscales.
__global__ void hidden_layer(const float *greyscales, const float *weights, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float normalized = greyscales[i] / 255.0f;
        // TODO: weigh the normalized value by weights[i].
        // TODO: apply the activation function, tanh (tanhf in CUDA C), to the weighted value.
        out[i] = normalized;
    }
}
