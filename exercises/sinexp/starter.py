# sinexp: z[i] = sin(x[i]) * exp(y[i]). Compiles; not yet correct.
import math  # noqa: F401 (math.sin, math.exp)

from numba import cuda


@cuda.jit
def sinexp(x, y, z):
    i = cuda.threadIdx.x
    # TODO: use the block index too (cuda.grid(1)), guard against i >= z.shape[0],
    #       and compute the formula.
