# zero-suppress, the Numba reference: out[i] = 0 where waveform[i] is below the threshold, else waveform[i], the course's zero_suppress body, one thread per element, as reference.cu does.
# Numba submissions are timed against it, like with like (Numba's 64-bit index arithmetic included).
from numba import cuda


@cuda.jit
def zero_suppress(waveform, threshold, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        if waveform[i] < threshold:
            out[i] = 0
        else:
            out[i] = waveform[i]
