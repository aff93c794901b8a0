# Known good: the course notebook's tile_transpose (offsets from cuda.blockDim, a 32 x 33 tile) with 32 x 8 blocks: each thread moves the rows k * cuda.blockDim.y of its column.
from numba import cuda, float32


@cuda.jit
def tile_transpose(a, transposed):
    tile = cuda.shared.array((32, 33), float32)
    a_col = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    a_row = cuda.blockIdx.y * cuda.blockDim.x + cuda.threadIdx.y
    for k in range(4):
        row = a_row + k * cuda.blockDim.y
        if row < a.shape[0] and a_col < a.shape[1]:
            tile[cuda.threadIdx.y + k * cuda.blockDim.y, cuda.threadIdx.x] = a[row, a_col]
    cuda.syncthreads()
    t_col = cuda.blockIdx.y * cuda.blockDim.x + cuda.threadIdx.x
    t_row = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.y
    for k in range(4):
        row = t_row + k * cuda.blockDim.y
        if row < transposed.shape[0] and t_col < transposed.shape[1]:
            transposed[row, t_col] = tile[cuda.threadIdx.x, cuda.threadIdx.y + k * cuda.blockDim.y]
