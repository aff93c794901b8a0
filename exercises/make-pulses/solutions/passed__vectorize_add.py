# Known good: make_pulses as a kernel, and add_ufunc as the course writes it, a CUDA ufunc that kgrade launches over the arrays.
import math

from numba import cuda, vectorize


@cuda.jit
def make_pulses(t, period, amplitude, pulses):
    i = cuda.grid(1)
    if i < t.shape[0]:
        pulses[i] = max(math.sin(t[i] / period) - 0.3, 0.0) * amplitude


@vectorize(['float32(float32, float32)'], target='cuda')
def add_ufunc(x, y):
    return x + y
