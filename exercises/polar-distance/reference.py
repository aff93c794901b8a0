# polar-distance, the Numba reference: out[i] = the distance between two points in polar coordinates, one thread per element, through the course's device function.
# Numba submissions are timed against it: the course's Numba (** 0.5, float64 where a literal is a Python float, 64-bit indices) runs about 1.6x the C reference's time.
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
    if i < out.shape[0]:
        x1, y1 = polar_to_cartesian(rho1[i], theta1[i])
        x2, y2 = polar_to_cartesian(rho2[i], theta2[i])
        out[i] = ((x1 - x2) ** 2 + (y1 - y2) ** 2) ** 0.5
