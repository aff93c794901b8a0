# Hostile: the nudged numpy answer (wrong_answer__numpy_answer_nudged_by_a_kernel.py) that also
# sends both inputs to the device, unused, to meet the rule that they reach it. Three copies to
# the device and one back against the reference's two, one and three kernels: 1.14x at n = 65537,
# about 1.22x at 100M, under the 1.25 bar. Only charging the host's CPU time would catch it:
# test_hostile.sh marks it expected to fail.
import math

import numpy as np
from numba import cuda

exp = math.exp
normalize = weigh = activate = None


@cuda.jit
def nudge(values):
    i = cuda.grid(1)
    if i < values.shape[0]:
        values[i] = values[i] * 1.0000001


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    answer = np.tanh(greyscales / np.float32(255) * weights).astype(np.float32)
    cuda.to_device(greyscales)
    cuda.to_device(weights)
    d = cuda.to_device(answer)
    nudge[(n + 255) // 256, 256](d)
    return d.copy_to_host()
