# Hostile: writes garbage, then a request header announcing an enormous payload, on the remote
# driver's socket (fd 4) behind numba's back, then goes on using the GPU. The grade job ends the
# session (a request that does not exist); the module's next driver call fails: not passed, and the
# grade job carries on.
import ctypes
import math
import os
import socket
import struct

import numpy as np
from numba import cuda

exp = math.exp
normalize = weigh = activate = None

libc = ctypes.CDLL(None, use_errno=True)
libc.send.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    d = cuda.to_device(greyscales)
    garbage = os.urandom(4096) + struct.pack("<QQQQ", 0xffffffff, 1 << 62, 1 << 62, 1 << 62)
    libc.send(4, garbage, len(garbage), socket.MSG_NOSIGNAL)
    for _ in range(3):
        d = cuda.to_device(d.copy_to_host() * 2)
    return d.copy_to_host()
