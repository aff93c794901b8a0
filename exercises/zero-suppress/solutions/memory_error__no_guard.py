# Known bad: no test of i against the length: the extra threads of the last block go past the end of the arrays (line 8).
from numba import cuda


@cuda.jit
def zero_suppress(waveform, threshold, out):
    i = cuda.grid(1)
    if waveform[i] < threshold:
        out[i] = 0
    else:
        out[i] = waveform[i]
