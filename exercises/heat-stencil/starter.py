# heat-stencil: one step of heat diffusion on the 2-D plate u. Compiles; not yet correct.
from numba import cuda


@cuda.jit
def heat_step(u, u_next, alpha):
    col, row = cuda.grid(2)
    # TODO: the edges (left 100, others 0), and the 5-point update inside.
    if row < u.shape[0] and col < u.shape[1]:
        u_next[row, col] = u[row, col]
