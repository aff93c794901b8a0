"""cuda.syncthreads() in Numba kernels on the virtual GPU, where numba's
code differs from NVRTC's: an exception a Numba kernel may raise (an
explicit raise; with the Python error model, every division too) is a
hidden early return of numba's error status, so the branches before a
barrier no longer reconverge at the barrier but at the function's end.

Found with the exercises' Numba solutions: a per-block histogram in shared
memory (a grid-stride loop that some threads of a warp skip, then
cuda.syncthreads(), then the shared counts read) lost counts on the virtual
GPU when n was smaller than the grid, while numba_compile.py still used
the Python error model. A real GPU (sm_70 and later) counts a barrier per
thread, so the diverged threads wait for the others there.
"""

import ctypes
import os
import unittest

import numpy as np

import numba_exercises as ne

# Thread 0 alone may raise (numba returns its error status there), the
# block waits, then thread 31 reads what thread 0 wrote.
DIVERGED_BEFORE_BARRIER = """\
from numba import cuda, float32


@cuda.jit
def k(x, out):
    s = cuda.shared.array(32, float32)
    t = cuda.threadIdx.x
    s[t] = 0
    cuda.syncthreads()
    if t < x.shape[0]:
        if x[t] < 0:
            raise ValueError("negative")
        s[t] = 1 / x[t]
    cuda.syncthreads()
    out[t] = s[31 - t]
"""


@unittest.skipUnless(os.path.exists(ne.EMULATOR), "no virtual GPU built at " + ne.EMULATOR)
class BarriersAfterDivergence(unittest.TestCase):
    @unittest.expectedFailure  # the virtual GPU lets the diverged lanes through
    def test_diverged_lanes_wait_at_the_barrier_for_the_others(self):
        gpu = ne.VirtualGPU()
        result = ne.numba_compile.compile_request({
            "source": DIVERGED_BEFORE_BARRIER, "file_name": "k.py", "cc": [9, 0],
            "cuda_home": ne.CUDA_HOME,
            "kernels": [{"name": "k", "signature": "void(float32[::1], float32[::1])"}]})
        self.assertEqual(result["status"], "ok", result.get("message"))
        function = gpu.function(gpu.load(result["ptx"]["k"]), result["entries"]["k"])
        x, out = np.array([4.0], np.float32), np.zeros(32, np.float32)
        values = []
        for array in (x, out):
            _, pointer = gpu.alloc(array.nbytes)
            gpu.upload(pointer, array)
            values += [ctypes.c_uint64(0), ctypes.c_uint64(0), ctypes.c_int64(array.size),
                       ctypes.c_int64(4), ctypes.c_uint64(pointer), ctypes.c_int64(array.size),
                       ctypes.c_int64(4)]
        self.assertIsNone(gpu.launch(function, [1], [32], values))
        self.assertEqual(gpu.download(values[-3].value, out)[31], 0.25)


if __name__ == "__main__":
    unittest.main()
