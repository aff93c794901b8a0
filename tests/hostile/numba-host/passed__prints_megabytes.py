# Hostile: prints 32 MB to its standard output and standard error at each call, then computes the
# answer on the GPU. What it printed is capped (nothing of it fills the grade's output) and the
# grading goes on.
import math
import sys

import numpy as np
from numba import cuda

exp = math.exp


@cuda.jit
def hidden(greyscales, weights, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = math.tanh(greyscales[i] / 255 * weights[i])


normalize = weigh = activate = hidden


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    line = "x" * 1023 + "\n"
    for _ in range(16 * 1024):
        sys.stdout.write(line)
        sys.stderr.write(line)
    sys.stdout.flush()
    out = cuda.device_array(n, np.float32)
    hidden[(n + 255) // 256, 256](cuda.to_device(greyscales), cuda.to_device(weights), out)
    return out.copy_to_host()
