# Known bad (speed): correct, but a 32 x 32 tile: the 32 elements of a column share one bank, and reading a column is a 32-way bank conflict, charged as in C (the tests grade it at n = 2048: at 1001, the launch overhead keeps it near the bar).
from numba import cuda, float32

TILE = 32
BLOCK_ROWS = 8


@cuda.jit
def tile_transpose(a, transposed):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col = cuda.blockIdx.x * TILE + tx
    row = cuda.blockIdx.y * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        if row + j < a.shape[0] and col < a.shape[1]:
            tile[ty + j, tx] = a[row + j, col]
    cuda.syncthreads()
    col = cuda.blockIdx.y * TILE + tx
    row = cuda.blockIdx.x * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        if row + j < transposed.shape[0] and col < transposed.shape[1]:
            transposed[row + j, col] = tile[tx, ty + j]
