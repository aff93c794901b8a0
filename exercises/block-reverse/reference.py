# block-reverse, the Numba reference: each block stages its 256 elements in a shared array, waits at cuda.syncthreads(), then writes them reversed, as reference.cu does.
# Numba submissions are timed against it, like with like (Numba's 64-bit index arithmetic included).
from numba import cuda, float32


@cuda.jit
def block_reverse(x, out):
    tile = cuda.shared.array(256, float32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * 256
    tile[t] = x[base + t]
    cuda.syncthreads()
    out[base + t] = tile[255 - t]
