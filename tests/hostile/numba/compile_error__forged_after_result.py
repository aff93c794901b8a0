# A module that lets numba compile, then writes over the result at exit
# through its own copy of kgrade's channel (an atexit handler runs after
# the front end wrote its result): the last result is the module's, and it
# is read as such.
import atexit
import os

from numba import cuda


@cuda.jit
def add_kernel(x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] + y[i]


channel = os.dup(3)
atexit.register(lambda: os.write(channel, b'{"status": "internal_error", "message": "pwned"}\n'))
