# Known bad: no test of i against the length: the last block's extra threads go past the end (line 13).
import math

import numpy as np
from numba import cuda

SQRT_2PI = np.float32((2 * math.pi) ** 0.5)


@cuda.jit
def gaussian_pdf(x, mean, sigma, out):
    i = cuda.grid(1)
    out[i] = math.exp(-0.5 * ((x[i] - mean) / sigma) ** 2) / (sigma * SQRT_2PI)
