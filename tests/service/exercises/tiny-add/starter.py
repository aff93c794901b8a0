# tiny-add in Numba: out[i] = x[i] + y[i], one thread per element.
from numba import cuda


@cuda.jit
def add_kernel(x, y, out):
    i = cuda.grid(1)
    # your code here
