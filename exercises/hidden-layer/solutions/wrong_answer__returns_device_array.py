# Known bad: the layer computed on the device but returned as a device array: the course's assess() expects a host array (copy_to_host).
import numpy as np
from numba import cuda, vectorize

from math import exp


@vectorize(['float32(float32)'], target='cuda')
def normalize(grayscales):
    return grayscales / 255


@vectorize(['float32(float32, float32)'], target='cuda')
def weigh(values, weights):
    return values * weights


@vectorize(['float32(float32)'], target='cuda')
def activate(values):
    return ( exp(values) - exp(-values) ) / ( exp(values) + exp(-values) )


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    d_greyscales = cuda.to_device(greyscales)
    d_weights = cuda.to_device(weights)
    d_out = cuda.device_array(n, dtype=np.float32)
    activate(weigh(normalize(d_greyscales), d_weights), out=d_out)
    return d_out
