# vector-add: out[i] = x[i] + y[i]. Compiles; not yet correct.
from numba import cuda


@cuda.jit
def add_kernel(x, y, out):
    i = cuda.threadIdx.x
    # TODO: use the block index too (cuda.grid(1)), and guard against i >= out.shape[0].
    out[i] = x[i]
