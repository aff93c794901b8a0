# Known bad (speed): neighbouring threads take columns 37 apart (a permutation when cols is no multiple of 37), so a warp's reads are scattered.
from numba import cuda


@cuda.jit
def col_sums(m, out):
    t = cuda.grid(1)
    cols = m.shape[1]
    if t < cols:
        c = (t * 37) % cols
        total = 0.0
        for r in range(m.shape[0]):
            total += m[r, c]
        out[c] = total
