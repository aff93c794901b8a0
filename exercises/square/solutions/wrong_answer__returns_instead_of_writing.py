# Known bad: returns the square, as the CPU function did, instead of storing it in out: a kernel's return value goes nowhere and out keeps its garbage.
from numba import cuda


@cuda.jit
def square_device(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        return a[i] ** 2
