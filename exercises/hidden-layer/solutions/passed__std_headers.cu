// Known good: the standard headers a kernel compiled with nvcc may include (<cstdio>, <cstdint>, <cmath>), with std::tanh, int64_t indexing and a grid-stride loop; NVRTC ships none of them, kgrade supplies them.
#include <cmath>
#include <cstdint>
#include <cstdio>

__global__ void hidden_layer(const float *greyscales, const float *weights, float *out, int n)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float normalized = greyscales[i] / 255.0f;
        out[i] = std::tanh(normalized * weights[i]);
    }
}
