# Known bad (speed): within each 16 x 16 tile, threadIdx.x walks down the rows, so a warp touches 16 rows and its accesses are scattered.
from numba import cuda


@cuda.jit
def matrix_add(a, b, c):
    row = cuda.blockIdx.y * 16 + cuda.threadIdx.x
    col = cuda.blockIdx.x * 16 + cuda.threadIdx.y
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = a[row, col] + b[row, col]
