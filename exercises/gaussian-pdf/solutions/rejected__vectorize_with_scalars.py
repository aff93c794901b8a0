# Known bad: the course's @vectorize gaussian_pdf(x, mean, sigma); kgrade launches a ufunc only where every parameter is an array, and here mean and sigma are scalars.
import math

import numpy as np
from numba import vectorize

SQRT_2PI = np.float32((2 * math.pi) ** 0.5)


@vectorize(['float32(float32, float32, float32)'], target='cuda')
def gaussian_pdf(x, mean, sigma):
    return math.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * SQRT_2PI)
