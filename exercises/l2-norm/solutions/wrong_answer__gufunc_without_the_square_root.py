# Known bad: the course's l2_norm gufunc that forgets the square root: out[0] is the sum of the squares.
from numba import guvectorize


@guvectorize(['(float32[:], float32[:])'], '(i)->()', target='cuda')
def l2_norm(vec, out):
    acc = 0.0
    for value in vec:
        acc += value**2
    out[0] = acc
