# Known bad: adds sin(x) and exp(y) instead of multiplying them.
import math

from numba import cuda


@cuda.jit
def sinexp(x, y, z):
    i = cuda.grid(1)
    if i < z.shape[0]:
        z[i] = math.sin(x[i]) + math.exp(y[i])
