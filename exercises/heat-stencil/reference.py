# heat-stencil, the Numba reference: one explicit step of the heat equation per launch, one thread per cell on the 2-D grid; the left edge is held at 100, the other edges at 0, as reference.cu does.
# Numba submissions are timed against it: in the course's Numba the Python float 4.0 makes the step's arithmetic float64.
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
