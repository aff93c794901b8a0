# Known bad: add_ufunc does not test i against the length: the extra threads of the last block go past the end (line 17).
import math

from numba import cuda


@cuda.jit
def make_pulses(t, period, amplitude, pulses):
    i = cuda.grid(1)
    if i < t.shape[0]:
        pulses[i] = max(math.sin(t[i] / period) - 0.3, 0.0) * amplitude


@cuda.jit
def add_ufunc(x, y, out):
    i = cuda.grid(1)
    out[i] = x[i] + y[i]
