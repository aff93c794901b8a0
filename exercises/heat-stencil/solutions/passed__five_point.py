# Known good: one thread per cell on the 2-D grid (x along the columns); edge cells write their fixed temperature.
from numba import cuda


@cuda.jit
def heat_step(u, u_next, alpha):
    col, row = cuda.grid(2)
    rows, cols = u.shape
    if row < rows and col < cols:
        if col == 0:
            u_next[row, col] = 100.0
        elif row == 0 or row == rows - 1 or col == cols - 1:
            u_next[row, col] = 0.0
        else:
            u_next[row, col] = u[row, col] + alpha * (u[row - 1, col] + u[row + 1, col] +
                                                      u[row, col - 1] + u[row, col + 1] -
                                                      4.0 * u[row, col])
