# Hostile: launches a kernel that never ends and waits for it inside create_hidden_layer. The grade
# job stops waiting at the call's limit: a timeout naming the function; the device's session, busy
# with the kernel, is left to end with the grading.
import math

import numpy as np
from numba import cuda

exp = math.exp
normalize = weigh = activate = None


@cuda.jit
def spin(flag):
    while flag[0] == 0:
        cuda.atomic.add(flag, 1, 1)


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    flag = cuda.to_device(np.zeros(2, np.int32))
    spin[1, 1](flag)
    return flag.copy_to_host()
