# Known bad: applies the stencil on the edges too; on the bottom row u[row + 1, col] is past the end of u (line 10; u[row - 1] at the top wraps around silently).
from numba import cuda


@cuda.jit
def heat_step(u, u_next, alpha):
    col, row = cuda.grid(2)
    rows, cols = u.shape
    if row < rows and col < cols:
        lap = u[row - 1, col] + u[row + 1, col] + u[row, col - 1] + u[row, col + 1] - 4.0 * u[row, col]
        u_next[row, col] = 100.0 if col == 0 else u[row, col] + alpha * lap
