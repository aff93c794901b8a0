# Known good: thread cuda.grid(1) adds up the squares of its row in a local variable, as the course's l2_norm does.
import math

from numba import cuda


@cuda.jit
def l2_norm(m, out):
    r = cuda.grid(1)
    if r < m.shape[0]:
        acc = 0.0
        for c in range(m.shape[1]):
            acc += m[r, c] ** 2
        out[r] = math.sqrt(acc)
