# Known bad: a while loop that never adds the stride to i: the threads with an element store it forever.
from numba import cuda


@cuda.jit
def add_kernel(x, y, out):
    i = cuda.grid(1)
    while i < out.shape[0]:
        out[i] = x[i] + y[i]
