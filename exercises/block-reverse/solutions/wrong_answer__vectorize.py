# Known bad: an elementwise @vectorize ufunc sees one element at a time and cannot reverse anything: it copies x.
from numba import vectorize


@vectorize(['float32(float32)'], target='cuda')
def block_reverse(x):
    return x
