# Hostile: computes the answer with numpy on the host, uploads it, and has a kernel change each
# value by less than the tolerance (one unit in the last place) before copying it back: the copy
# back is from memory a kernel wrote and is no copy to the device, and its bytes are none the
# program uploaded, though the GPU computed nothing. Its inputs never reach the device: a
# wrong_answer ("not computed on the GPU from its inputs").
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
    d = cuda.to_device(answer)
    nudge[(n + 255) // 256, 256](d)
    return d.copy_to_host()
