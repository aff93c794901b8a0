# matrix-add: c = a + b on a 2-D grid. Compiles; not yet correct.
from numba import cuda


@cuda.jit
def matrix_add(a, b, c):
    col = cuda.threadIdx.x
    row = cuda.threadIdx.y
    # TODO: add the block's offset in each dimension (cuda.grid(2) gives (x, y):
    #       x runs along the columns) and guard both against c.shape.
    c[row, col] = a[row, col] + b[row, col]
