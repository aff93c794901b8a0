# polar-distance: out[i] = the distance between two points in polar coordinates. Compiles; not yet correct.
import math  # noqa: F401 (math.cos, math.sin, math.sqrt)

from numba import cuda


@cuda.jit(device=True)
def polar_to_cartesian(rho, theta):
    # TODO: return (x, y) = (rho cos theta, rho sin theta).
    return rho, theta


@cuda.jit
def polar_distance(rho1, theta1, rho2, theta2, out):
    i = cuda.threadIdx.x
    # TODO: use the block index too (cuda.grid(1)), guard against i >= out.shape[0],
    #       convert both points with polar_to_cartesian and compute their distance.
