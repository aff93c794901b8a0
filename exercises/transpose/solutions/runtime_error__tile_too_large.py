# Known bad: a 256 x 257 float32 tile (257 KB) to stage more of a per block: more shared memory than a block may have, so the launch is refused.
from numba import cuda, float32

TILE = 32
BLOCK_ROWS = 8
BIG = 256
BIG_PADDED = 257


@cuda.jit
def tile_transpose(a, transposed):
    tile = cuda.shared.array((BIG, BIG_PADDED), float32)
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
