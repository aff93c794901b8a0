# monte-carlo-pi, the Numba reference: the statement's generator in uint32 arithmetic, a grid-stride count per thread, a shared total per block, one atomic per block, then pi from the count, as reference.cu does.
# Numba submissions are timed against it, like with like (Numba's 64-bit index arithmetic included).
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
    block_total = cuda.shared.array(1, uint32)
    if cuda.threadIdx.x == 0:
        block_total[0] = 0
    cuda.syncthreads()
    mine = 0
    for s in range(cuda.grid(1), nsamples, cuda.gridsize(1)):
        if in_circle(s):
            mine += 1
    cuda.atomic.add(block_total, 0, mine)
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        cuda.atomic.add(inside, 0, block_total[0])


@cuda.jit
def estimate_pi(inside, nsamples, pi):
    if cuda.grid(1) == 0:
        pi[0] = float32(4.0) * float32(inside[0]) / float32(nsamples)
