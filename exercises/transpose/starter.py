# transpose: transposed[c, r] = a[r, c]. Compiles and is correct, but too slow: its writes are not coalesced.
# Launched with blocks of 32 x 8 threads and a grid of ceil(cols / 32) x
# ceil(rows / 32) blocks: each block owns a 32 x 32 tile of a, and each thread
# handles 4 of its rows (j = 0, 8, 16, 24).
from numba import cuda, float32  # noqa: F401 (float32: the shared tile's type)

TILE = 32
BLOCK_ROWS = 8


@cuda.jit
def tile_transpose(a, transposed):
    # TODO: declare a cuda.shared.array tile (its shape made of constants) and
    #       stage the block's 32 x 32 tile in it.
    col = cuda.blockIdx.x * TILE + cuda.threadIdx.x
    row = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    for j in range(0, TILE, BLOCK_ROWS):
        if row + j < a.shape[0] and col < a.shape[1]:
            # TODO: this writes straight to the transposed place, with writes
            #       a.shape[0] floats apart; go through the tile so that
            #       writes are coalesced too.
            transposed[col, row + j] = a[row + j, col]
    # TODO: wait for the whole tile (cuda.syncthreads()) before reading it back.
