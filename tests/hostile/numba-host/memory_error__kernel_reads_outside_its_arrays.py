# Hostile: a kernel that indexes its own input far out of bounds (numba checks no bounds), around
# it, to read the reference's arrays on the shared virtual GPU and return them through a copy back
# from the GPU. The device checks every access against the student's context's allocations: the
# kernel faults (an illegal address), numba raises, nothing of the reference is read, and the
# verdict is the kernel form's memory_error at the student's line.
import math

import numpy as np
from numba import cuda

exp = math.exp
normalize = weigh = activate = None

REACH = 1 << 24  # elements either side (64 MB)
STEP = 1024      # elements: one page


@cuda.jit
def peek(own, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        offset = (i - out.shape[0] // 2) * STEP
        if offset < 0 or offset >= own.shape[0]:
            out[i] = own[offset]


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    own = cuda.to_device(greyscales)
    out = cuda.device_array(2 * REACH // STEP, np.float32)
    peek[(out.shape[0] + 255) // 256, 256](own, out)
    return out.copy_to_host()[:n]
