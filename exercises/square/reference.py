# square, the Numba reference: out[i] = a[i] ** 2, the course's square_device as a kernel, one thread per element, as reference.cu does.
# Numba submissions are timed against it, like with like (Numba's 64-bit index arithmetic included).
from numba import cuda


@cuda.jit
def square_device(a, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a[i] ** 2
