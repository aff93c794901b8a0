# Known bad: a while loop whose index never advances ('i + stride' where 'i += stride' was meant): the threads with work never finish.
import math

from numba import cuda


@cuda.jit
def hidden_layer(greyscales, weights, out):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < out.shape[0]:
        out[i] = math.tanh(greyscales[i] / 255.0 * weights[i])
        i + stride
