# Hostile: a right answer from one kernel on the GPU, plus a second of the host's CPU in every
# call (what a host computation of the answer costs at the assessed size, whatever the kernels
# do). The device's timeline is the reference's or better, so only the host's CPU time, measured
# from outside the host job (its /proc/PID/stat, opened by the worker before the module ran),
# tells: too_slow.
import math
import time

from numba import cuda

exp = math.exp
normalize = weigh = activate = None


@cuda.jit
def hidden_layer(greyscales, weights, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = math.tanh(greyscales[i] / 255 * weights[i])


def burn_cpu(seconds):
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    burn_cpu(1.0)
    d_greyscales = cuda.to_device(greyscales)
    d_weights = cuda.to_device(weights)
    out = cuda.device_array_like(d_greyscales)
    hidden_layer[(n + 255) // 256, 256](d_greyscales, d_weights, out)
    return out.copy_to_host()
