# Known bad: row, col = cuda.grid(2) takes x (which runs along the columns) as the row; on a matrix that is not square part of c is never written.
from numba import cuda


@cuda.jit
def matrix_add(a, b, c):
    row, col = cuda.grid(2)
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = a[row, col] + b[row, col]
