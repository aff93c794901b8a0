# Known bad: forgets to divide by sigma * sqrt(2 pi).
import math

from numba import cuda


@cuda.jit
def gaussian_pdf(x, mean, sigma, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = math.exp(-0.5 * ((x[i] - mean) / sigma) ** 2)
