# Known bad: keeps the C kernel's n parameter; the Numba form is hidden_layer(greyscales, weights, out) (the arrays carry their length).
import math

from numba import cuda


@cuda.jit
def hidden_layer(greyscales, weights, out, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = math.tanh(greyscales[i] / 255.0 * weights[i])
