# gaussian-pdf: out[i] = the normal density at x[i]. Compiles; not yet correct.
import math  # noqa: F401 (math.exp, math.pi, math.sqrt work on the device)

from numba import cuda


@cuda.jit
def gaussian_pdf(x, mean, sigma, out):
    i = cuda.threadIdx.x
    # TODO: use the block index too (cuda.grid(1)), guard against i >= x.shape[0],
    #       and compute exp(-((x - mean) / sigma)**2 / 2) / (sigma * sqrt(2 pi)).
