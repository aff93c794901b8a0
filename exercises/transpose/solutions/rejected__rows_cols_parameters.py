# Known bad: passes the sizes as the C kernel does; the Numba form is tile_transpose(a, transposed), whose arrays carry their shapes.
from numba import cuda


@cuda.jit
def tile_transpose(a, transposed, rows, cols):
    col = cuda.blockIdx.x * 32 + cuda.threadIdx.x
    row = cuda.blockIdx.y * 32 + cuda.threadIdx.y
    for j in range(0, 32, 8):
        if row + j < rows and col < cols:
            transposed[col, row + j] = a[row + j, col]
