# Known bad (speed): correct, but every thread reads a whole row of a and column of b from global memory: no tiles.
from numba import cuda, float32


@cuda.jit
def matmul(a, b, c):
    x, y = cuda.grid(2)
    n = a.shape[0]
    if y < n and x < n:
        tmp = float32(0.0)
        for k in range(n):
            tmp += a[y, k] * b[k, x]
        c[y, x] = tmp
