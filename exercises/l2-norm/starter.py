# l2-norm: out[r] = the Euclidean norm of row r of m, one row per thread. Compiles; not yet correct.
import math  # noqa: F401 (math.sqrt)

from numba import cuda


@cuda.jit
def l2_norm(m, out):
    r = cuda.grid(1)
    # TODO: loop over the row's m.shape[1] columns, adding up the squares, then take the root.
    if r < m.shape[0]:
        out[r] = m[r, 0]
