# Hostile: computes the answer on the GPU and returns it, leaving a thread that launches a kernel
# that never ends, so that the virtual GPU (which the reference's job shares) is busy when the
# reference is called next. The reference's call cannot end: the grading is stopped at its limit, a
# timeout, never passed and never kgrade's internal_error.
import math
import threading

import numpy as np
from numba import cuda

exp = math.exp


@cuda.jit
def hidden(greyscales, weights, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = math.tanh(greyscales[i] / 255 * weights[i])


@cuda.jit("void(int32[:])")  # compiled at import: the thread only launches it, at once
def spin(flag):
    while flag[0] == 0:
        cuda.atomic.add(flag, 1, 1)


normalize = weigh = activate = hidden


def hog():
    flag = cuda.to_device(np.zeros(2, np.int32))
    spin[1, 1](flag)
    cuda.synchronize()


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    out = cuda.device_array(n, np.float32)
    hidden[(n + 255) // 256, 256](cuda.to_device(greyscales), cuda.to_device(weights), out)
    result = out.copy_to_host()
    threading.Thread(target=hog, daemon=True).start()
    return result
