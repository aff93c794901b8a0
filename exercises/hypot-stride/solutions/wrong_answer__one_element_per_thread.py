# Known bad: one element per thread, no grid-stride loop: the 8,192 threads of the fixed launch leave the rest of c untouched.
import math

from numba import cuda


@cuda.jit
def hypot_stride(a, b, c):
    i = cuda.grid(1)
    if i < a.shape[0]:
        c[i] = math.hypot(a[i], b[i])
