# Known bad: no test of r against the number of rows: the threads past the last row read past the end of m (line 10).
from numba import cuda


@cuda.jit
def sum_rows(m, out):
    r = cuda.grid(1)
    total = 0.0
    for c in range(m.shape[1]):
        total += m[r, c]
    out[r] = total
