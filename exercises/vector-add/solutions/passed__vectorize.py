# Known good: the course's add_ufunc under the exercise's name, a CUDA ufunc; kgrade launches numba's elementwise kernel, one thread per element.
from numba import vectorize


@vectorize(['float32(float32, float32)'], target='cuda')
def add_kernel(x, y):
    return x + y
