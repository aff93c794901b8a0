"""A numba program whose CUDA driver is the remote driver's client, for
tests/gpu/test_remote_driver.c, which serves it (kgemu_serve) and sets
NUMBA_CUDA_DRIVER to build/emulator/remote/libcuda.so.1 and KGEMU_REMOTE_FD.

It applies grader/numba_compile.py's shims as numba_runtime_program.py does,
then runs what the course teaches: CUDA ufuncs on device arrays with out=,
a @cuda.jit kernel, a copy back, streams and events. It exits 0 when every
result is right and prints what went wrong otherwise.
"""

import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "grader"))
import numba_compile  # noqa: E402

numba_compile.apply_shims(os.environ.get("CUDA_HOME_FOR_TESTS", "/usr/local/cuda"), (9, 0))

import numpy as np  # noqa: E402
from numba import cuda, vectorize  # noqa: E402

N = 100_000


@vectorize(["float32(float32)"], target="cuda")
def normalize(x):
    return x / 255


@vectorize(["float32(float32, float32)"], target="cuda")
def weigh(x, w):
    return x * w


@cuda.jit
def activate(values, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = math.exp(values[i])


def main():
    failures = []
    greyscales = np.arange(N, dtype=np.float32) % 256
    weights = np.full(N, 0.5, dtype=np.float32)
    stream = cuda.stream()
    start, end = cuda.event(), cuda.event()
    start.record(stream)
    d_grey = cuda.to_device(greyscales, stream=stream)
    d_weights = cuda.to_device(weights, stream=stream)
    d_norm = cuda.device_array_like(d_grey, stream=stream)
    normalize(d_grey, out=d_norm, stream=stream)
    d_weighed = weigh(d_norm, d_weights, stream=stream)
    d_out = cuda.device_array_like(d_grey, stream=stream)
    activate[(N + 127) // 128, 128, stream](d_weighed, d_out)
    got = d_out.copy_to_host(stream=stream)
    end.record(stream)
    end.synchronize()
    want = np.exp(greyscales / np.float32(255) * np.float32(0.5))
    if not np.allclose(got, want, rtol=1e-6):
        failures.append("activate(weigh(normalize)) differs: %r" % (np.abs(got - want).max(),))
    if not cuda.event_elapsed_time(start, end) > 0:
        failures.append("no time between the events")
    host_result = normalize(greyscales)
    if not np.allclose(host_result, greyscales / np.float32(255)):
        failures.append("normalize on a host array differs")
    try:
        cuda.pinned_array(4, dtype=np.float32)
        failures.append("a pinned array was made: its memory would be the server's")
    except cuda.cudadrv.driver.CudaAPIError as error:
        if "CUDA_ERROR_NOT_SUPPORTED" not in str(error):
            failures.append("pinned_array: %s" % error)
    name = cuda.get_current_device().name
    if not name:
        failures.append("the device has no name")
    for failure in failures:
        print("FAIL", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
