# Known bad: a[i] ** 3 instead of a[i] ** 2.
from numba import cuda


@cuda.jit
def square_device(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i] ** 3
