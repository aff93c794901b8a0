# Known good: the course's grid-stride add_kernel; with kgrade's launch each thread takes one element.
from numba import cuda


@cuda.jit
def add_kernel(x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        out[i] = x[i] + y[i]
