# Known good: the course's zero_suppress body in a kernel, one thread per element; values equal to the threshold are kept.
from numba import cuda


@cuda.jit
def zero_suppress(waveform, threshold, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        if waveform[i] < threshold:
            result = 0
        else:
            result = waveform[i]
        out[i] = result
