# Known bad: loads the tiles without testing the edges, so the last tiles read past the end of a (line 16).
from numba import cuda, float32

TPB = 16


@cuda.jit
def matmul(a, b, c):
    sa = cuda.shared.array((TPB, TPB), float32)
    sb = cuda.shared.array((TPB, TPB), float32)
    x, y = cuda.grid(2)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    n = a.shape[0]
    tmp = float32(0.0)
    for k0 in range(0, n, TPB):
        sa[ty, tx] = a[y, k0 + tx]
        sb[ty, tx] = b[k0 + ty, x]
        cuda.syncthreads()
        for k in range(TPB):
            tmp += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    if y < n and x < n:
        c[y, x] = tmp
