# matrix-add, the Numba reference: one thread per element on a 2-D grid, cuda.grid(2) giving (column, row), as reference.cu does.
# Numba submissions are timed against it, like with like (Numba's 64-bit index arithmetic included).
from numba import cuda


@cuda.jit
def matrix_add(a, b, c):
    col, row = cuda.grid(2)
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = a[row, col] + b[row, col]
