# reduce-sum, the Numba reference: a tree reduction of each block's 256 elements in a shared array (threads past the end give 0), then one cuda.atomic.add per block, as reference.cu does.
# Numba submissions are timed against it, like with like (Numba's 64-bit index arithmetic included).
from numba import cuda, float32


@cuda.jit
def reduce_sum(x, out):
    partial = cuda.shared.array(256, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < x.shape[0]:
        partial[t] = x[i]
    else:
        partial[t] = 0
    cuda.syncthreads()
    half = cuda.blockDim.x // 2
    while half > 0:
        if t < half:
            partial[t] += partial[t + half]
        cuda.syncthreads()
        half //= 2
    if t == 0:
        cuda.atomic.add(out, 0, partial[0])
