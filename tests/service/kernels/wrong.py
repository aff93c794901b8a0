# tiny-add in Numba, wrong: subtracts.
from numba import cuda


@cuda.jit
def add_kernel(x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] - y[i]
