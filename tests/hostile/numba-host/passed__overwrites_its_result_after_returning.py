# Hostile: computes the answer on the GPU and returns it, leaving a thread that, once the call has
# replied, writes NaN over and over into the returned array's shared memfd (the runner's mapping,
# found in its caller's frame). The grade job judges the copy it took of the array at the reply,
# once: the later writes change nothing.
import math
import sys
import threading
import time

import numpy as np
from numba import cuda

exp = math.exp


@cuda.jit
def hidden(greyscales, weights, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = math.tanh(greyscales[i] / 255 * weights[i])


normalize = weigh = activate = hidden


def spoil(returned):
    time.sleep(0.5)  # the reply has long been read
    for _ in range(200):
        returned[:] = np.nan
        time.sleep(0.01)


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    returned = sys._getframe(1).f_locals["returned"]
    threading.Thread(target=spoil, args=(returned,), daemon=True).start()
    out = cuda.device_array(n, np.float32)
    hidden[(n + 255) // 256, 256](cuda.to_device(greyscales), cuda.to_device(weights), out)
    return out.copy_to_host()
