# Known bad (speed): correct, but one cuda.atomic.add on inside per sample inside the circle: every warp queues on the same counter (the compiler makes a warp's adds one atomic, so over a few thousand samples it keeps up; the tests grade it at n = 2000000).
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
    for s in range(cuda.grid(1), nsamples, cuda.gridsize(1)):
        if in_circle(s):
            cuda.atomic.add(inside, 0, 1)


@cuda.jit
def estimate_pi(inside, nsamples, pi):
    if cuda.grid(1) == 0:
        pi[0] = float32(4.0) * float32(inside[0]) / float32(nsamples)
