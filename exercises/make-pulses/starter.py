# make-pulses: two kernels, the pulses kept on the device between them. Compiles; not yet correct.
import math  # noqa: F401 (math.sin)

from numba import cuda


@cuda.jit
def make_pulses(t, period, amplitude, pulses):
    i = cuda.grid(1)
    if i < t.shape[0]:
        pulses[i] = 0.0  # TODO: the clipped sine


@cuda.jit
def add_ufunc(x, y, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = x[i]  # TODO: add y
