# Known bad: the course's first add_kernel, with no test of idx against the length: the extra threads of the last block go past the end (line 8).
from numba import cuda


@cuda.jit
def add_kernel(x, y, out):
    idx = cuda.grid(1)
    out[idx] = x[idx] + y[idx]
