# Known bad: calls the course's CPU helpers, which are plain Python functions (no @cuda.jit(device=True)), from the kernel: numba cannot type them.
import math

from numba import cuda


def normalize(greyscale):
    return greyscale / 255


def activate(value):
    return math.tanh(value)


@cuda.jit
def hidden_layer(greyscales, weights, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = activate(normalize(greyscales[i]) * weights[i])
