# Hostile: at import, in the host job only (the front end, which imports the module to see its form,
# has no fd 5), the module says {"ready": true} on the call channel itself, through libc (Python's
# socket objects are stopped by the sandbox), before numba_host.py does. The runner's own "ready"
# then waits on the channel when the first call comes: the program spoke before it was called, and
# its answer, though computed right on the GPU, is never asked for.
import ctypes
import math
import os
import socket

from numba import cuda

exp = math.exp
normalize = weigh = activate = None

libc = ctypes.CDLL(None, use_errno=True)
libc.send.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]

try:
    os.fstat(5)
    libc.send(5, b'{"ready": true}', 15, socket.MSG_NOSIGNAL)
except OSError:
    pass


@cuda.jit
def hidden_layer(greyscales, weights, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = math.tanh(greyscales[i] / 255 * weights[i])


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    d_greyscales = cuda.to_device(greyscales)
    d_weights = cuda.to_device(weights)
    d_out = cuda.device_array_like(d_greyscales)
    hidden_layer[(n + 255) // 256, 256](d_greyscales, d_weights, d_out)
    return d_out.copy_to_host()
