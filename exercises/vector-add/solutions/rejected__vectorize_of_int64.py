# Known bad: the course's first CUDA ufunc, declared for int64 (its add_ufunc) where the arrays are float32: numba refuses such a call (a GPU ufunc takes arrays of its exact types), so kgrade does too.
from numba import vectorize


@vectorize(['int64(int64, int64)'], target='cuda')
def add_kernel(x, y):
    return x + y
