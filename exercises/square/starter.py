# square: out[i] = a[i] ** 2. Compiles; not yet correct.
from numba import cuda


@cuda.jit
def square_device(a, out):
    i = cuda.threadIdx.x
    # TODO: use the block index too (cuda.grid(1)), guard against i >= a.shape[0],
    #       and store the square in out[i] (a kernel returns nothing).
