# Known bad (a cheat): the layer computed with numpy on the host, sent to the device and copied back, so that the returned array did come from a device-to-host copy: what it holds is what the host put there, not what a kernel computed.
import numpy as np
from numba import cuda

from numpy import exp


def normalize(grayscales):
    return grayscales / 255


def weigh(values, weights):
    return values * weights


def activate(values):
    return ( exp(values) - exp(-values) ) / ( exp(values) + exp(-values) )


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    activated = activate(weigh(normalize(greyscales), weights)).astype(np.float32)
    return cuda.to_device(activated).copy_to_host()
