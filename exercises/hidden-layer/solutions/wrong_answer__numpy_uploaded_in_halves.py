# Known bad: numpy on the host, its result uploaded to the device in two halves and copied back whole: it came back as the host left it, no kernel computed it, so it does not pass however right its values.
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
    device = cuda.device_array(n, dtype=np.float32)
    half = n // 2
    device[:half].copy_to_device(activated[:half])
    device[half:].copy_to_device(activated[half:])
    return device.copy_to_host()
