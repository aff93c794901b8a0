# Known bad: forgets the max(..., 0): the sine's negative half comes through.
import math

from numba import cuda


@cuda.jit
def make_pulses(t, period, amplitude, pulses):
    i = cuda.grid(1)
    if i < t.shape[0]:
        pulses[i] = (math.sin(t[i] / period) - 0.3) * amplitude


@cuda.jit
def add_ufunc(x, y, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = x[i] + y[i]
