# Known good: the course's square_device as a kernel, one thread per element, guarded by the array's length.
from numba import cuda


@cuda.jit
def square_device(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i] = a[i] ** 2
