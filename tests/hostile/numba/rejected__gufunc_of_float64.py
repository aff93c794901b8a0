# A gufunc declared for float64 where the exercise's arrays are float32:
# numba would cast, kgrade passes the arrays as they are, so it is refused,
# with the signature the exercise wants.
from numba import guvectorize


@guvectorize(['void(float64, float64, float64[:])'], '(),()->()', target='cuda')
def add_kernel(x, y, out):
    out[0] = x + y
