# Known bad (speed): correct, but thread 0 of the grid adds every element alone while the other threads idle.
from numba import cuda


@cuda.jit
def add_kernel(x, y, out):
    if cuda.grid(1) == 0:
        for i in range(out.shape[0]):
            out[i] = x[i] + y[i]
