# Known bad: sums along row c instead of down column c (and only while c is a row).
from numba import cuda


@cuda.jit
def col_sums(m, out):
    c = cuda.grid(1)
    if c < m.shape[1]:
        total = 0.0
        if c < m.shape[0]:
            for k in range(m.shape[1]):
                total += m[c, k]
        out[c] = total
