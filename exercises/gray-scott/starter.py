# gray-scott: an initial state, then reaction-diffusion steps. Compiles; not yet correct.
# uv has 2 * rows rows: u in rows 0 .. rows - 1, v in rows rows .. 2 * rows - 1.
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
    # TODO: the reaction-diffusion update of u and v (see the statement), with
    #       a Laplacian that wraps around the plate's edges.
    if r < rows and c < cols:
        uv_next[r, c] = uv[r, c]
        uv_next[rows + r, c] = uv[rows + r, c]
