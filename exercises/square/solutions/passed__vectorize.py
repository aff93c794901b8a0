# Known good: the scalar function as a CUDA ufunc, as the course says it could be; kgrade launches numba's elementwise kernel.
from numba import vectorize


@vectorize(['float32(float32)'], target='cuda')
def square_device(a):
    return a ** 2
