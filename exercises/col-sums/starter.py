# col-sums: out[c] = the sum of column c of the 2-D array m. Compiles; not yet correct.
from numba import cuda


@cuda.jit
def col_sums(m, out):
    c = cuda.grid(1)
    # TODO: add up the whole column (m.shape[0] rows), not just its first element.
    if c < m.shape[1]:
        out[c] = m[0, c]
