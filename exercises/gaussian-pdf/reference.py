# gaussian-pdf, the Numba reference: out[i] = the normal density at x[i], the course's formula, one thread per element, as reference.cu does.
# Numba submissions are timed against it: in the course's formula the Python float -0.5 and ** 2 make the arithmetic float64.
import math

import numpy as np
from numba import cuda

SQRT_2PI = np.float32((2 * math.pi) ** 0.5)


@cuda.jit
def gaussian_pdf(x, mean, sigma, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = math.exp(-0.5 * ((x[i] - mean) / sigma) ** 2) / (sigma * SQRT_2PI)
