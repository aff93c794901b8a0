# Known good: one thread per element, guarded by the array's length; a is an ordinary float32 argument.
from numba import cuda


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a * x[i] + y[i]
