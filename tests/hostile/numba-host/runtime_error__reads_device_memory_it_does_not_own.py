# Hostile: looks for the reference's arrays on the device it shares with the student's: copies to
# the host (cuMemcpyDtoH, through numba's driver API) from addresses around its own allocations,
# outside them. Had any copy worked, its bytes would be returned (they came back from the GPU, as
# the provenance rule asks); every one is refused, and the module raises, saying how many it tried.
import ctypes
import math

import numpy as np
from numba import cuda
from numba.cuda.cudadrv.driver import driver

exp = math.exp
normalize = weigh = activate = None

STEP = 4096
REACH = 64 << 20  # bytes either side of its own allocations


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    own = [cuda.to_device(greyscales), cuda.to_device(weights), cuda.device_array(n, np.float32)]
    ranges = [(a.device_ctypes_pointer.value, a.device_ctypes_pointer.value + a.nbytes) for a in own]
    found = np.zeros(n, np.float32)
    driver.cuMemcpyDtoH(found.ctypes.data, ranges[0][0], found.nbytes)  # its own: this call works
    tried = refused = 0
    for start, end in ranges:
        for address in range(max(start - REACH, STEP), end + REACH, STEP):
            if any(s <= address < e for s, e in ranges):
                continue
            tried += 1
            try:
                driver.cuMemcpyDtoH(found.ctypes.data, address, found.nbytes)
                return found  # another context's bytes
            except Exception:
                refused += 1
    raise RuntimeError("refused %d of %d" % (refused, tried))
