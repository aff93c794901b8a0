# Known bad: x[i] - y[i] instead of x[i] + y[i].
from numba import cuda


@cuda.jit
def add_kernel(x, y, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = x[i] - y[i]
