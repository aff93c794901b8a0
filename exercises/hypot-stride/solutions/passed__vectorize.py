# Known good: a CUDA ufunc; kgrade launches numba's elementwise kernel, one thread per element, instead of the 128 x 64 grid.
import math

from numba import vectorize


@vectorize(['float32(float32, float32)'], target='cuda')
def hypot_stride(a, b):
    return math.hypot(a, b)
