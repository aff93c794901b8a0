"""A numba program whose CUDA driver is the remote driver's client, for
tests/gpu/test_remote_served.c, which serves it on a thread of its own
(kgemu_serve_start) and checks its session's copy records against the
bytes it computes itself: x = (i * 5) % 4096 as float32 to the device,
y = 2x + 1 by a @cuda.jit kernel, y back. It also tries cuda.pinned_array
and cuda.mapped_array, which the remote driver refuses
(CUDA_ERROR_NOT_SUPPORTED: page-locked memory would be the server's).
Then it says it is done on the control socket (argv[1]) and waits there
until the server, having stopped the session, closes it.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "grader"))
import numba_compile  # noqa: E402

numba_compile.apply_shims(os.environ.get("CUDA_HOME_FOR_TESTS", "/usr/local/cuda"), (9, 0))

import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402

N = 300_000  # test_remote_served.c's NUMBA_FLOATS
SEED = 5


@cuda.jit
def twice(x, y):
    i = cuda.grid(1)
    if i < y.size:
        y[i] = 2 * x[i] + 1


def refused(make):
    """Whether `make` raises numba's CudaAPIError for CUDA_ERROR_NOT_SUPPORTED."""
    try:
        make(4, dtype=np.float32)
    except cuda.cudadrv.driver.CudaAPIError as error:
        return "CUDA_ERROR_NOT_SUPPORTED" in str(error)
    return False


def main():
    control = int(sys.argv[1])
    failures = []
    x = ((np.arange(N, dtype=np.uint64) * SEED) % 4096).astype(np.float32)
    d_x = cuda.to_device(x)
    d_y = cuda.device_array_like(d_x)
    twice[(N + 255) // 256, 256](d_x, d_y)
    y = d_y.copy_to_host()
    if not np.array_equal(y, 2 * x + 1):
        failures.append("twice(x) differs")
    for make in (cuda.pinned_array, cuda.mapped_array):
        if not refused(make):
            failures.append("%s was not refused with CUDA_ERROR_NOT_SUPPORTED" % make.__name__)
    for failure in failures:
        print("FAIL", failure)
    os.write(control, b"d")
    os.read(control, 1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
