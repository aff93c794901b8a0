# sum-rows: out[r] = the sum of row r of m, one row per thread. Compiles; not yet correct.
from numba import cuda


@cuda.jit
def sum_rows(m, out):
    r = cuda.grid(1)
    # TODO: loop over the row's m.shape[1] columns.
    if r < m.shape[0]:
        out[r] = m[r, 0]
