# Known bad: no test of i against the length: the extra threads of the last block go past the end of the arrays (line 8).
from numba import cuda


@cuda.jit
def square_device(a, out):
    i = cuda.grid(1)
    out[i] = a[i] ** 2
