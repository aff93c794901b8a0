# make-pulses, the Numba reference: pulses from a clipped sine, then pulses + noise, two kernels of one thread per element, as reference.cu does; the pulses stay in device memory between them.
# Numba submissions are timed against it: in the course's formula the Python floats 0.3 and 0.0 make the arithmetic float64.
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
    if i < out.shape[0]:
        out[i] = x[i] + y[i]
