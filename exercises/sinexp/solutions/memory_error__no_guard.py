# Known bad: no test of i against the length: the extra threads of the last block go past the end of the arrays (line 10).
import math

from numba import cuda


@cuda.jit
def sinexp(x, y, z):
    i = cuda.grid(1)
    z[i] = math.sin(x[i]) * math.exp(y[i])
