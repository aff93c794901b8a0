# saxpy: out[i] = a * x[i] + y[i]. Compiles; not yet correct.
from numba import cuda


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.threadIdx.x
    # TODO: use the block index too (cuda.grid(1)), guard against i >= out.shape[0],
    #       and compute the formula.
