# Known bad: the course's trap ("you will need to modify this import"): numpy's exp, kept from the CPU version, in the device function activate; numba cannot call it on the GPU: the error is at line 9, where exp is called, not at the kernel's call (line 16).
from numpy import exp

from numba import cuda


@cuda.jit(device=True)
def activate(value):
    return (exp(value) - exp(-value)) / (exp(value) + exp(-value))


@cuda.jit
def hidden_layer(greyscales, weights, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = activate(greyscales[i] / 255 * weights[i])
