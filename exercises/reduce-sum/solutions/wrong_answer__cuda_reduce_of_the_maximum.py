# Known bad: a @cuda.reduce whose function keeps the larger of a and b: the largest element, not the sum.
from numba import cuda


@cuda.reduce
def reduce_sum(a, b):
    return max(a, b)
