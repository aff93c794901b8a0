# Known good: the Italian course's sinexp as a CUDA ufunc (float32 only); kgrade launches numba's elementwise kernel over the arrays.
import math

from numba import vectorize


@vectorize(['float32(float32, float32)'], target='cuda')
def sinexp(x, y):
    return math.sin(x) * math.exp(y)
