# Known bad: create_hidden_layer raises (the weights indexed past their end): a runtime_error with the student's line.
import numpy as np
from numba import cuda, vectorize

from math import exp


@vectorize(['float32(float32, float32)'], target='cuda')
def hidden_layer(greyscale, weight):
    value = greyscale / 255 * weight
    return ( exp(value) - exp(-value) ) / ( exp(value) + exp(-value) )


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    last_weight = weights[n]
    return hidden_layer(greyscales, weights * last_weight)


normalize = weigh = activate = hidden_layer
