# Known bad: computes a * (x + y) instead of a * x + y.
from numba import cuda


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a * (x[i] + y[i])
