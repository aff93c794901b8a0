# Known bad: a @vectorize ufunc that forgets the square root: it returns the squared distance.
import math

from numba import cuda, vectorize


@cuda.jit(device=True)
def polar_to_cartesian(rho, theta):
    x = rho * math.cos(theta)
    y = rho * math.sin(theta)
    return x, y


@vectorize(['float32(float32, float32, float32, float32)'], target='cuda')
def polar_distance(rho1, theta1, rho2, theta2):
    x1, y1 = polar_to_cartesian(rho1, theta1)
    x2, y2 = polar_to_cartesian(rho2, theta2)
    return (x1 - x2) ** 2 + (y1 - y2) ** 2
