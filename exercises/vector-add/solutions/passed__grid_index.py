# Known good: the course's add_kernel, one thread per element: cuda.grid(1), guarded by the array's length.
from numba import cuda


@cuda.jit
def add_kernel(x, y, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = x[i] + y[i]
