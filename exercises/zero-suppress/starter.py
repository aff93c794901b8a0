# zero-suppress: out[i] = 0 where waveform[i] < threshold, else waveform[i]. Compiles; not yet correct.
from numba import cuda


@cuda.jit
def zero_suppress(waveform, threshold, out):
    i = cuda.threadIdx.x
    # TODO: use the block index too (cuda.grid(1)), guard against i >= out.shape[0],
    #       and compute the formula.
