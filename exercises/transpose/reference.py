# transpose, the Numba reference: transposed[c, r] = a[r, c] through a 32 x 33 shared tile (the extra column keeps the column reads free of bank conflicts), as reference.cu does.
# Numba submissions are timed against it: with Numba's 64-bit index arithmetic the same tile is issue-bound at about 1.4x the C reference's time on the virtual H200 (on the virtual H100 both are bound by DRAM: 1.0x).
from numba import cuda, float32

TILE = 32
BLOCK_ROWS = 8
PADDED = TILE + 1  # a module constant: numba needs the shared array's shape as constants


@cuda.jit
def tile_transpose(a, transposed):
    tile = cuda.shared.array((TILE, PADDED), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    # read the tile at (tile row blockIdx.y, tile column blockIdx.x) of a,
    # one row of 32 consecutive floats per warp: coalesced
    col = cuda.blockIdx.x * TILE + tx
    row = cuda.blockIdx.y * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        if row + j < a.shape[0] and col < a.shape[1]:
            tile[ty + j, tx] = a[row + j, col]
    cuda.syncthreads()
    # write it to its transposed place, again 32 consecutive floats per
    # warp, reading the tile down a column
    col = cuda.blockIdx.y * TILE + tx
    row = cuda.blockIdx.x * TILE + ty
    for j in range(0, TILE, BLOCK_ROWS):
        if row + j < transposed.shape[0] and col < transposed.shape[1]:
            transposed[row + j, col] = tile[tx, ty + j]
