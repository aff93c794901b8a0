# Known bad: named after the C kernel, vector_add; the Numba form is the course's add_kernel(x, y, out).
from numba import cuda


@cuda.jit
def vector_add(x, y, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = x[i] + y[i]
