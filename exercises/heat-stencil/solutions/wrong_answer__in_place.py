# Known bad: updates u in place (and leaves u_next alone), so neighbours read a mix of old and new values.
from numba import cuda


@cuda.jit
def heat_step(u, u_next, alpha):
    col, row = cuda.grid(2)
    rows, cols = u.shape
    if row < rows and col < cols:
        if col == 0:
            u[row, col] = 100.0
        elif row == 0 or row == rows - 1 or col == cols - 1:
            u[row, col] = 0.0
        else:
            u[row, col] = u[row, col] + alpha * (u[row - 1, col] + u[row + 1, col] +
                                                 u[row, col - 1] + u[row, col + 1] -
                                                 4.0 * u[row, col])
