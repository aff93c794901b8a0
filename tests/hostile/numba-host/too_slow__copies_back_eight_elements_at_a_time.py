# Hostile to the grade job's provenance check: computes the answer on the GPU and copies it back eight
# elements at a time (thousands of copies back, each of the same size, to be matched with
# the returned array). The check ends in bounded time; the values are right and the copies cost
# their modeled time: too_slow.
import math

import numpy as np
from numba import cuda

exp = math.exp


@cuda.jit
def hidden(greyscales, weights, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = math.tanh(greyscales[i] / 255 * weights[i])


normalize = weigh = activate = hidden


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    d = cuda.device_array(n, np.float32)
    hidden[(n + 255) // 256, 256](cuda.to_device(greyscales), cuda.to_device(weights), d)
    out = np.empty(n, np.float32)
    for i in range(0, n, 8):
        d[i:i + 8].copy_to_host(out[i:i + 8])
    return out
