# Known good: the course's zero_suppress as a kernel, one thread per element; values equal to the threshold are kept.
from numba import cuda


@cuda.jit
def zero_suppress(waveform, threshold, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        if waveform[i] < threshold:
            out[i] = 0
        else:
            out[i] = waveform[i]
