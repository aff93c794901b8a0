# sinexp, the Numba reference: z[i] = sin(x[i]) * exp(y[i]) with math.sin and math.exp, one thread per element, as reference.cu does.
# Numba submissions are timed against it, like with like (Numba's 64-bit index arithmetic included).
import math

from numba import cuda


@cuda.jit
def sinexp(x, y, z):
    i = cuda.grid(1)
    if i < z.shape[0]:
        z[i] = math.sin(x[i]) * math.exp(y[i])
