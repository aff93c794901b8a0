# Known bad: the course's starting point, numpy on the host and no device work: its result was never copied back from the GPU, so it does not pass however right its values.
import numpy as np

from numpy import exp


def normalize(grayscales):
    return grayscales / 255


def weigh(values, weights):
    return values * weights


def activate(values):
    return ( exp(values) - exp(-values) ) / ( exp(values) + exp(-values) )


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    normalized = normalize(greyscales)
    weighted = weigh(normalized, weights)
    activated = activate(weighted)
    return activated.astype(np.float32)
