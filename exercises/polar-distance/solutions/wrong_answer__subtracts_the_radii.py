# Known bad: subtracts the radii (the distance of two points on one ray) instead of converting both points to Cartesian coordinates.
from numba import cuda


@cuda.jit
def polar_distance(rho1, theta1, rho2, theta2, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = abs(rho1[i] - rho2[i])
