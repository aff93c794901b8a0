# Known bad (speed): correct, numba's own @cuda.reduce as the Italian course writes it, launched as numba launches it: at most 64 blocks of 128 threads stride over x, about 2x the reference's time at n = 100M.
from numba import cuda


@cuda.reduce
def reduce_sum(a, b):
    return a + b
