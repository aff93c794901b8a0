# Computed on the GPU, but wrong (normalized by 256): the kernel form's first-mismatch message and inputs.
import numpy as np
from numba import cuda, vectorize

from math import exp


@vectorize(['float32(float32)'], target='cuda')
def normalize(grayscales):
    return grayscales / 256


@vectorize(['float32(float32, float32)'], target='cuda')
def weigh(values, weights):
    return values * weights


@vectorize(['float32(float32)'], target='cuda')
def activate(values):
    return ( exp(values) - exp(-values) ) / ( exp(values) + exp(-values) )


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    d_greyscales = cuda.to_device(greyscales)
    d_weights = cuda.to_device(weights)

    normalized = cuda.device_array(n, dtype=np.float32)
    weighted = cuda.device_array(n, dtype=np.float32)
    activated = cuda.device_array(n, dtype=np.float32)

    normalize(d_greyscales, out=normalized)
    weigh(normalized, d_weights, out=weighted)
    activate(weighted, out=activated)

    return activated.copy_to_host()
