# Known bad: subtracts b instead of adding it.
from numba import cuda


@cuda.jit
def matrix_add(a, b, c):
    col, row = cuda.grid(2)
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = a[row, col] - b[row, col]
