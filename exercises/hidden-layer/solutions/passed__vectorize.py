# Known good: the course's first section, a CUDA ufunc: kgrade launches numba's elementwise kernel, one thread per element.
import math

from numba import vectorize


@vectorize(['float32(float32, float32)'], target='cuda')
def hidden_layer(greyscales, weights):
    return math.tanh(greyscales / 255.0 * weights)
