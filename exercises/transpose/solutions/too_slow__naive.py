# Known bad (speed): correct, but writes transposed straight from a: a warp's 32 writes land a.shape[0] floats apart, uncoalesced.
from numba import cuda


@cuda.jit
def tile_transpose(a, transposed):
    col = cuda.blockIdx.x * 32 + cuda.threadIdx.x
    row = cuda.blockIdx.y * 32 + cuda.threadIdx.y
    for j in range(0, 32, 8):
        if row + j < a.shape[0] and col < a.shape[1]:
            transposed[col, row + j] = a[row + j, col]
