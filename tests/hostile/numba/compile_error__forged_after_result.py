# A module that lets numba compile, then writes over the result as the
# front end ends, through its own copy of kgrade's channel: the front end
# flushes sys.stdout once its result is out, and the module put a stream
# of its own there (atexit handlers never run: the front end leaves with
# os._exit, which the module rebinds too, in vain). The last result is the
# module's, and it is read as such.
import os
import sys

from numba import cuda


@cuda.jit
def add_kernel(x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] + y[i]


channel = os.dup(3)
FORGED = b'{"status": "internal_error", "message": "pwned"}\n'


class Forger:
    def write(self, text):
        return len(text)

    def flush(self):
        os.write(channel, FORGED)


sys.stdout = Forger()
os._exit = lambda code: (os.write(channel, FORGED), os.abort())
