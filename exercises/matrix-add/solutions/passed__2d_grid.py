# Known good: cuda.grid(2) gives (column, row), x along the columns; both are checked against the shape.
from numba import cuda


@cuda.jit
def matrix_add(a, b, c):
    col, row = cuda.grid(2)
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = a[row, col] + b[row, col]
