# Known bad: no cuda.syncthreads() between the shared stores and loads, so a thread reads tile[255 - t] before its owner (a later warp) wrote it.
from numba import cuda, float32


@cuda.jit
def block_reverse(x, out):
    tile = cuda.shared.array(256, float32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * 256
    tile[t] = x[base + t]
    out[base + t] = tile[255 - t]
