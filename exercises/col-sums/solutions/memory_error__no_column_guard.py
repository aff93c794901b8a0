# Known bad: no test of c against the number of columns: the threads past the last column read past the end of m (line 10).
from numba import cuda


@cuda.jit
def col_sums(m, out):
    c = cuda.grid(1)
    total = 0.0
    for r in range(m.shape[0]):
        total += m[r, c]
    out[c] = total
