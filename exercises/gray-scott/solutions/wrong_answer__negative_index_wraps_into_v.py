# Known bad: trusts Python's negative indices to wrap: uv[r - 1] at r = 0 is the last row of v, not of u, and row r + 1 past the last row of u is v's first.
from numba import cuda


@cuda.jit
def gs_init(seed, uv):
    c, r = cuda.grid(2)
    rows, cols = seed.shape
    if r < rows and c < cols:
        if seed[r, c] > 0.9:
            uv[r, c] = 0.5
            uv[rows + r, c] = 0.25
        else:
            uv[r, c] = 1.0
            uv[rows + r, c] = 0.0


@cuda.jit
def gs_step(uv, uv_next, du, dv, f, k):
    c, r = cuda.grid(2)
    rows, cols = uv.shape[0] // 2, uv.shape[1]
    if r < rows and c < cols:
        u, v = uv[r, c], uv[rows + r, c]
        right = (c + 1) % cols
        lap_u = uv[r - 1, c] + uv[r + 1, c] + uv[r, c - 1] + uv[r, right] - 4.0 * u
        vr = rows + r
        lap_v = uv[vr - 1, c] + uv[(vr + 1) % (2 * rows), c] + uv[vr, c - 1] + uv[vr, right] - 4.0 * v
        uvv = u * v * v
        uv_next[r, c] = u + du * lap_u - uvv + f * (1.0 - u)
        uv_next[vr, c] = v + dv * lap_v + uvv - (f + k) * v
