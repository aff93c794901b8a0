# Hostile: computes the answer with numpy on the host, uploads its bytes to the device in two halves
# (cuMemcpyHtoD through numba's driver API) and copies it back whole: no kernel ran. The provenance
# rule compares whole copies (the copy back is not any one copy to the device), so this passes until
# host data is tracked per page (branch provenance: kgemu_copy_record.host_bytes); test_hostile.sh
# marks it expected to fail until then.
import math

import numpy as np
from numba import cuda
from numba.cuda.cudadrv.driver import driver

exp = math.exp
normalize = weigh = activate = None


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    answer = np.tanh(greyscales / np.float32(255) * weights).astype(np.float32)
    d = cuda.device_array(n, np.float32)
    device, host, half = d.device_ctypes_pointer.value, answer.ctypes.data, answer.nbytes // 2
    driver.cuMemcpyHtoD(device, host, half)
    driver.cuMemcpyHtoD(device + half, host + half, answer.nbytes - half)
    return d.copy_to_host()
