# Known bad: no test of i against the length: the extra threads of the last block go past the end of the arrays (line 17).
import math

from numba import cuda


@cuda.jit(device=True)
def polar_to_cartesian(rho, theta):
    x = rho * math.cos(theta)
    y = rho * math.sin(theta)
    return x, y


@cuda.jit
def polar_distance(rho1, theta1, rho2, theta2, out):
    i = cuda.grid(1)
    x1, y1 = polar_to_cartesian(rho1[i], theta1[i])
    x2, y2 = polar_to_cartesian(rho2[i], theta2[i])
    out[i] = ((x1 - x2) ** 2 + (y1 - y2) ** 2) ** 0.5
