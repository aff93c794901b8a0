# monte-carlo-pi: count the samples inside the quarter circle, then estimate pi. Compiles; not yet correct.
# The statement's generator, in 32-bit unsigned arithmetic: sample s draws
# u = hash32(2s) / 2^32 and v = hash32(2s + 1) / 2^32.
from numba import cuda, float32, uint32


@cuda.jit(device=True)
def hash32(x):
    x = uint32(x)
    x = uint32(x ^ (x >> 16))
    x = uint32(x * uint32(0x7feb352d))
    x = uint32(x ^ (x >> 15))
    x = uint32(x * uint32(0x846ca68b))
    return uint32(x ^ (x >> 16))


@cuda.jit(device=True)
def in_circle(s):
    u = float32(hash32(2 * s)) * float32(2.3283064e-10)
    v = float32(hash32(2 * s + 1)) * float32(2.3283064e-10)
    return u * u + v * v < float32(1.0)


@cuda.jit
def count_inside(nsamples, inside):
    # TODO: every sample s from 0 to nsamples - 1, counted once, with cuda.atomic.add.
    if cuda.grid(1) == 0:
        inside[0] = in_circle(0)


@cuda.jit
def estimate_pi(inside, nsamples, pi):
    if cuda.grid(1) == 0:
        pi[0] = float32(4.0) * float32(inside[0]) / float32(nsamples)
