# Known bad: the course's @vectorize zero_suppress(waveform_value, threshold); kgrade launches a ufunc only where every parameter is an array, and threshold is a scalar.
from numba import vectorize


@vectorize(['int16(int16, int32)'], target='cuda')
def zero_suppress(waveform_value, threshold):
    if waveform_value < threshold:
        result = 0
    else:
        result = waveform_value
    return result
