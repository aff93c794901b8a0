# Known bad: no test of r against the number of rows: the threads past the last row read past the end of m (line 12).
import math

from numba import cuda


@cuda.jit
def l2_norm(m, out):
    r = cuda.grid(1)
    acc = 0.0
    for c in range(m.shape[1]):
        acc += m[r, c] ** 2
    out[r] = math.sqrt(acc)
