# hypot-stride, the Numba reference: c[i] = hypot(a[i], b[i]) by the course's grid-stride loop, from cuda.grid(1) in steps of cuda.gridsize(1), as reference.cu does.
# Numba submissions are timed against it, like with like (Numba's 64-bit index arithmetic included).
import math

from numba import cuda


@cuda.jit
def hypot_stride(a, b, c):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, a.shape[0], stride):
        c[i] = math.hypot(a[i], b[i])
