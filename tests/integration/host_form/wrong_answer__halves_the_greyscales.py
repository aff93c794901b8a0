# Computed on the GPU, copied back whole, but not the layer: the kernel form's first-mismatch
# message and inputs.
import numpy as np
from numba import cuda, vectorize


@vectorize(['float32(float32)'], target='cuda')
def half(values):
    return values / 2


# what the course passes (the grade job passes the module's own)
exp = normalize = weigh = activate = None


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    d_out = cuda.device_array(n, dtype=np.float32)
    half(cuda.to_device(greyscales), out=d_out)
    return d_out.copy_to_host()
