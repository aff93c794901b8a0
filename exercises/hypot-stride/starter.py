# hypot-stride: a fixed launch of 128 x 64 threads. Compiles; not yet correct.
import math

from numba import cuda


@cuda.jit
def hypot_stride(a, b, c):
    i = cuda.grid(1)
    # TODO: 8192 threads, many more elements: loop with a stride of cuda.gridsize(1).
    if i < a.shape[0]:
        c[i] = math.hypot(a[i], b[i])
