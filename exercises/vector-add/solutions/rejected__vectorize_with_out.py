# Known bad: a @vectorize ufunc takes the inputs and returns the output; this one also takes out, three inputs where the form has two.
from numba import vectorize


@vectorize(['float32(float32, float32, float32)'], target='cuda')
def add_kernel(x, y, out):
    return x + y
