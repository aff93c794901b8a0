# Known bad: greyscales[i] // 255 is Python's floor division, 0 for every grey level below 255, so every output is tanh(0) = 0.
import math

from numba import cuda


@cuda.jit
def hidden_layer(greyscales, weights, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = math.tanh(greyscales[i] // 255 * weights[i])
