# Hostile: asks the virtual GPU for 1 TB. The device refuses it (out of memory): numba raises, and
# the verdict is the student's runtime_error, never kgrade's internal_error.
import math

import numpy as np
from numba import cuda

exp = math.exp
normalize = weigh = activate = None


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    d = cuda.device_array(1 << 38, np.float32)  # 1 TiB
    return d[:n].copy_to_host()
