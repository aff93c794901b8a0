# Known bad: np.sin and np.exp on NumPy arrays inside a kernel: NumPy's array functions do not exist on the device (use math.sin on elements).
import numpy as np
from numba import cuda


@cuda.jit
def sinexp(x, y, z):
    z[:] = np.sin(x) * np.exp(y)
