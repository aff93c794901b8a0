# Known bad: the loop runs to a.shape[0] inclusive, so one thread reads and writes one element past the end (line 12).
import math

from numba import cuda


@cuda.jit
def hypot_stride(a, b, c):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, a.shape[0] + 1, stride):
        c[i] = math.hypot(a[i], b[i])
