# Known bad: a shared array of 65536 floats (256 KB) 'for any block size', more shared memory than a block may have: the launch is refused.
from numba import cuda, float32

SLOTS = 65536


@cuda.jit
def reduce_sum(x, out):
    partial = cuda.shared.array(SLOTS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    partial[t] = x[i] if i < x.shape[0] else 0
    cuda.syncthreads()
    half = cuda.blockDim.x // 2
    while half > 0:
        if t < half:
            partial[t] += partial[t + half]
        cuda.syncthreads()
        half //= 2
    if t == 0:
        cuda.atomic.add(out, 0, partial[0])
