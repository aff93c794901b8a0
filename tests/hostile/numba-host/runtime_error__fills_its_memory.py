# Hostile: fills 4 GB of host memory with numpy (little enough for the kernel to hand out, more
# than the grading's 1536 MB). The sandbox kills the host job at its memory limit; the verdict says
# so: the student's runtime_error, never kgrade's internal_error.
import math

import numpy as np

exp = math.exp
normalize = weigh = activate = None


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    huge = np.ones(10**9, np.float32)  # every page touched
    return huge[:n]
