"""numba's kernels in the virtual GPU's compiled tier (emulator/JIT.md):
what numba's PTX is made of — generic loads of global memory, a local
array indexed at run time, libdevice's float64 cos and pow, 64-bit index
arithmetic — runs as native code, not in the interpreter, and gives what
numpy computes; under KGEMU_TIER=compare (a child process: the tier is
chosen once a process) both tiers give the same bits, counters and
modeled time, or the driver aborts, large arguments included (libdevice
reduces those in a function of its own, with an array in local memory,
which the interpreter runs: calls are the interpreter's).

Run with Debian's python3 (python3-numba): python3 -m unittest discover
-s tests/numba (tests/run-tests.sh's numba section)."""

import ctypes
import os
import subprocess
import sys
import unittest

import numpy as np

from numba_exercises import EMULATOR, VirtualGPU, numba_compile

SOURCE = """import math
from numba import cuda, float64

@cuda.jit
def wavy(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        taps = cuda.local.array(8, float64)
        for k in range(8):
            taps[k] = math.cos(x[i] * (k + 1))
        j = int(abs(x[i]) * 1000.0) % 8
        out[i] = (taps[j] ** 2 + taps[(j + 3) % 8] ** 2) ** 0.5
"""
# numba's shared arrays are reached by generic loads and stores of a
# cvta.shared's address: a tile reversed through shared memory, read back
# with a stride of 4 (four-way bank conflicts) and at its row
TILED_SOURCE = """from numba import cuda, float32

@cuda.jit
def tiled(x, out):
    tile = cuda.shared.array(128, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    tile[t] = x[i] * 2.0
    cuda.syncthreads()
    out[i] = tile[127 - t] + tile[(t * 4) % 128]
"""
N = 4096
THREADS = 128
# of the warp instructions: cos's table, read as vectors, the depot's mov,
# the call of pow's __internal_accurate_pow and its parameters (0.56 before
# the compiled tier covered numba, 0.31 with the called function interpreted)
INTERPRETED_SHARE_MAX = 0.1


def inputs(large):
    """Angles, and with `large` some that take libdevice's slow reduction."""
    rng = np.random.default_rng(3)
    x = rng.uniform(-20.0, 20.0, N)
    if large:
        x[::17] = rng.uniform(1e6, 1e9, x[::17].size)
    return x


def run_wavy(large):
    """Compiles and launches the kernel (compiled at once, as the grader
    has it); returns its output and the launch's counters."""
    return run_kernel(SOURCE, "wavy", "float64", inputs(large))


def run_kernel(source, name, element, x):
    """Compiles kernel `name` of `source`, taking x and an output of its
    `element` type, and launches it on N threads (compiled at once, as the
    grader has it); returns its output and the launch's counters."""
    result = numba_compile.compile_request({
        "source": source, "file_name": "kernel.py", "cc": [9, 0],
        "kernels": [{"name": name, "signature": "void(%s[::1], %s[::1])" % (element, element)}]})
    if result["status"] != "ok":
        raise AssertionError(result)
    gpu = VirtualGPU(EMULATOR)
    function = gpu.function(gpu.load(result["ptx"][name]), result["entries"][name])
    gpu.check(gpu.cu.kgemu_compile(function), "kgemu_compile")
    out = np.zeros(N, x.dtype)
    values = []
    for array in (x, out):
        _, pointer = gpu.alloc(array.nbytes)
        gpu.upload(pointer, array)
        values += [ctypes.c_uint64(0), ctypes.c_uint64(0), ctypes.c_int64(array.size),
                   ctypes.c_int64(array.itemsize), ctypes.c_uint64(pointer),
                   ctypes.c_int64(array.size), ctypes.c_int64(array.itemsize)]
    fault = gpu.launch(function, [N // THREADS], [THREADS], values)
    if fault:
        raise AssertionError(fault)
    return gpu.download(values[11].value, out), gpu.counters()


def tiled_inputs():
    return np.random.default_rng(5).uniform(-1.0, 1.0, N).astype(np.float32)


def tiled_wanted():
    tiles = (tiled_inputs() * np.float32(2.0)).reshape(-1, THREADS)
    t = np.arange(THREADS)
    return (tiles[:, THREADS - 1 - t] + tiles[:, (t * 4) % THREADS]).reshape(-1)


def wanted(large):
    x = inputs(large)
    k = np.arange(1, 9)
    taps = np.cos(x[:, None] * k[None, :])
    j = (np.abs(x) * 1000.0).astype(np.int64) % 8
    rows = np.arange(N)
    return np.sqrt(taps[rows, j] ** 2 + taps[rows, (j + 3) % 8] ** 2)


@unittest.skipUnless(os.path.exists(EMULATOR), "no virtual GPU built at " + EMULATOR)
class NumbaKernelsRunCompiled(unittest.TestCase):
    def test_numbas_code_runs_natively_and_computes_what_numpy_does(self):
        got, counters = run_wavy(False)
        np.testing.assert_allclose(got, wanted(False), rtol=1e-12, atol=1e-15)
        total = counters.compiled_instructions + counters.interpreted_instructions
        self.assertGreater(total, 0)
        self.assertLess(counters.interpreted_instructions / total, INTERPRETED_SHARE_MAX,
                        "%d of %d warp instructions ran in the interpreter" %
                        (counters.interpreted_instructions, total))

    def test_shared_arrays_compute_what_numpy_does_with_their_bank_conflicts(self):
        got, counters = run_kernel(TILED_SOURCE, "tiled", "float32", tiled_inputs())
        np.testing.assert_array_equal(got, tiled_wanted())
        self.assertGreater(counters.shared_requests, 0)
        self.assertEqual(counters.worst_bank_conflict_ways, 4)

    def test_both_tiers_agree_on_numbas_code(self):
        env = dict(os.environ, KGEMU_TIER="compare", KGRADE_EMULATOR=EMULATOR)  # absolute
        child = subprocess.run([sys.executable, "-W", "ignore", __file__, "--child"], env=env,
                               cwd=os.path.dirname(os.path.abspath(__file__)),
                               capture_output=True, text=True, timeout=300)
        self.assertEqual(child.returncode, 0, child.stderr[-3000:])
        self.assertIn("agreed", child.stdout)


if __name__ == "__main__" and sys.argv[1:] == ["--child"]:
    got, _ = run_wavy(True)  # under KGEMU_TIER=compare: a difference aborts the process
    np.testing.assert_allclose(got, wanted(True), rtol=1e-12, atol=1e-15)
    got, _ = run_kernel(TILED_SOURCE, "tiled", "float32", tiled_inputs())
    np.testing.assert_array_equal(got, tiled_wanted())
    print("agreed")
elif __name__ == "__main__":
    unittest.main()
