# Known bad: no test of i against the length: the extra threads of the last block go past the end of the arrays (line 8).
from numba import cuda


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    out[i] = a * x[i] + y[i]
