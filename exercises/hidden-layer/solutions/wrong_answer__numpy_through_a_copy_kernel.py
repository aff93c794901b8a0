# Known bad: numpy on the host, its result uploaded and moved by a one-line copy kernel into another device array, then copied back: a kernel wrote the array copied back, but its bytes are the ones the host had sent to the device, so it does not pass however right its values.
import numpy as np
from numba import cuda

from numpy import exp


def normalize(grayscales):
    return grayscales / 255


def weigh(values, weights):
    return values * weights


def activate(values):
    return ( exp(values) - exp(-values) ) / ( exp(values) + exp(-values) )


@cuda.jit
def copy(src, dst):
    i = cuda.grid(1)
    if i < dst.size:
        dst[i] = src[i]


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    activated = activate(weigh(normalize(greyscales), weights)).astype(np.float32)
    uploaded = cuda.to_device(activated)
    device = cuda.device_array_like(uploaded)
    copy[(n + 255) // 256, 256](uploaded, device)
    return device.copy_to_host()
