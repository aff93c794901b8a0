# Hostile: fills 100 GB of host memory with numpy. The host job's memory limit stops it: the
# student's runtime_error, never kgrade's internal_error.
import math

import numpy as np

exp = math.exp
normalize = weigh = activate = None


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    huge = np.ones(25 * 10**9, np.float32)  # 100 GB, every page touched
    return huge[:n]
