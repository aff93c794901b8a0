# vector-add, the Numba reference: out[i] = x[i] + y[i], the course's add_kernel, one thread per element, as reference.cu does.
# Numba submissions are timed against it, like with like (Numba's 64-bit index arithmetic included).
from numba import cuda


@cuda.jit
def add_kernel(x, y, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = x[i] + y[i]
