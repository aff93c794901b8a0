# Known bad: weighs after the activation: tanh(g / 255) * w instead of tanh(g / 255 * w).
import math

from numba import cuda


@cuda.jit
def hidden_layer(greyscales, weights, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = math.tanh(greyscales[i] / 255.0) * weights[i]
