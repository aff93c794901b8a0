# gray-scott, the Numba reference: the initial state from the seed, then explicit steps with a wrapping 5-point Laplacian (a device function), u in rows 0 .. rows-1 of uv and v below it, as reference.cu does.
# Numba submissions are timed against it: in the course's Numba the Python floats 4.0 and 1.0 make the step's arithmetic float64.
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


@cuda.jit(device=True)
def laplacian(uv, top, r, c, rows, cols):
    up, down = (r + rows - 1) % rows, (r + 1) % rows
    left, right = (c + cols - 1) % cols, (c + 1) % cols
    return (uv[top + up, c] + uv[top + down, c] + uv[top + r, left] + uv[top + r, right]
            - 4.0 * uv[top + r, c])


@cuda.jit
def gs_step(uv, uv_next, du, dv, f, k):
    c, r = cuda.grid(2)
    rows, cols = uv.shape[0] // 2, uv.shape[1]
    if r < rows and c < cols:
        u, v = uv[r, c], uv[rows + r, c]
        uvv = u * v * v
        uv_next[r, c] = u + du * laplacian(uv, 0, r, c, rows, cols) - uvv + f * (1.0 - u)
        uv_next[rows + r, c] = v + dv * laplacian(uv, rows, r, c, rows, cols) + uvv - (f + k) * v
