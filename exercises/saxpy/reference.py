# saxpy, the Numba reference: out[i] = a * x[i] + y[i], one thread per element, as reference.cu does.
# Numba submissions are timed against it, like with like (Numba's 64-bit index arithmetic included).
from numba import cuda


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a * x[i] + y[i]
