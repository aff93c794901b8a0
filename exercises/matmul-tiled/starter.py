# matmul-tiled: c = a @ b for n x n matrices. Compiles; not yet correct.
from numba import cuda, float32  # noqa: F401 (float32: the shared tiles' type)

TPB = 16  # threads per block in each direction: the tiles are TPB x TPB


@cuda.jit
def matmul(a, b, c):
    x, y = cuda.grid(2)  # x: the column of c, y: its row
    n = a.shape[0]
    # TODO: c[y, x] = the sum over k of a[y, k] * b[k, x], through
    #       cuda.shared.array((TPB, TPB), float32) tiles of a and b.
    if y < n and x < n:
        c[y, x] = a[y, x] * b[y, x]
