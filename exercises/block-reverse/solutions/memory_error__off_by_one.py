# Known bad: x[base + 256 - t] reads one past the block, and past the array's end in the last block (line 10).
from numba import cuda


@cuda.jit
def block_reverse(x, out):
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * 256
    # reversed without shared memory, but off by one
    out[base + t] = x[base + 256 - t]
