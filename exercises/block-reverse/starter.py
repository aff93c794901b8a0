# block-reverse: reverse each block's 256 elements. Compiles; not yet correct.
from numba import cuda, float32  # noqa: F401 (float32: the shared array's type)


@cuda.jit
def block_reverse(x, out):
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * 256
    # TODO: stage the block's elements in a cuda.shared.array(256, float32),
    #       wait for the whole block (cuda.syncthreads()), write them reversed.
    out[base + t] = x[base + t]
