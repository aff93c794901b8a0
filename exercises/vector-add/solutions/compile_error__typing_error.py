# Known bad: stores a string into a float32 array: numba's typing refuses it (line 9).
from numba import cuda


@cuda.jit
def add_kernel(x, y, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = "x[i] + y[i]"
