# matmul-tiled, the Numba reference: 16 x 16 tiles of a and b staged in shared arrays, as reference.cu does.
# Numba submissions are timed against it: with Numba's 64-bit index arithmetic the same loop runs about 1.5x the C reference's time.
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
        sa[ty, tx] = 0
        sb[ty, tx] = 0
        if y < n and k0 + tx < n:
            sa[ty, tx] = a[y, k0 + tx]
        if x < n and k0 + ty < n:
            sb[ty, tx] = b[k0 + ty, x]
        cuda.syncthreads()
        for k in range(TPB):
            tmp += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    if y < n and x < n:
        c[y, x] = tmp
