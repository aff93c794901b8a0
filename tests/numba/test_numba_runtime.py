"""numba's own CUDA runtime (numba.cuda) on kgrade's virtual GPU:
NUMBA_CUDA_DRIVER names build/emulator/libcuda.so.1 and
grader/numba_compile.py's shims are applied, as for the course's
notebooks. Device arrays and kernel launches; pinned, mapped, registered
and managed host memory a kernel reads and writes; streams with a callback
and events around them; profiler start and stop; IPC refused as
unsupported; cuda.close() with frees pending, then work in a new context.

numba binds every driver call of its drvapi.py when it first starts; a
call the library lacked became a Python stub that ctypes refused
(cuIpcOpenMemHandle), and the linker refused numba's PTX, whose size does
not count its terminator. Each scenario runs numba_runtime_program.py in a
process of its own, which must also exit clean: numba tears its context
down at exit.
"""

import json
import os
import subprocess
import sys
import unittest

from numba_exercises import EMULATOR

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "numba_runtime_program.py")
TIMEOUT_S = 300


def run_numba(*scenarios):
    """Runs the scenarios in a fresh process on the virtual GPU; returns
    (their results, the process's standard error)."""
    env = dict(os.environ, NUMBA_CUDA_DRIVER=os.path.abspath(EMULATOR))
    done = subprocess.run([sys.executable, PROGRAM, *scenarios], env=env, capture_output=True,
                          text=True, timeout=TIMEOUT_S)
    if done.returncode != 0:
        raise AssertionError("numba_runtime_program.py %s failed (%d):\n%s"
                             % (" ".join(scenarios), done.returncode, done.stderr))
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


@unittest.skipUnless(os.path.exists(EMULATOR), "no virtual GPU built at " + EMULATOR)
class NumbaRuntime(unittest.TestCase):
    def assert_clean(self, stderr):
        """No error numba reported or ignored, at exit included."""
        for sign in ("Traceback", "Exception ignored", "CudaAPIError", "CudaSupportError"):
            self.assertNotIn(sign, stderr)

    def test_kernel_on_device_arrays(self):
        results, stderr = run_numba("launch")
        self.assertEqual(results["launch"]["max_error"], 0.0)
        self.assertIn("emulated", results["launch"]["device"].lower())
        self.assert_clean(stderr)

    def test_host_memory_streams_events(self):
        results, stderr = run_numba("pinned", "mapped", "managed", "streams_events", "profiler",
                                    "ipc")
        self.assertEqual(results["pinned"], {"pinned_ok": True, "registered_ok": True})
        self.assertEqual(results["mapped"], {"mapped_ok": True, "registered_ok": True})
        self.assertEqual(results["managed"], {"managed_ok": True})
        streams = results["streams_events"]
        self.assertTrue(streams["result_ok"])
        self.assertGreater(streams["elapsed_ms"], 0)  # the launch's modeled time
        self.assertEqual(streams["callbacks"], [[0, "done"]])
        self.assertEqual(results["profiler"], {"ok": True})
        self.assertIn("CUDA_ERROR_NOT_SUPPORTED", results["ipc"]["error"])
        self.assert_clean(stderr)

    def test_transfers_take_modeled_time(self):
        """cuda.event_elapsed_time around copies reads as on the modeled
        H100: a pinned copy at most the PCIe 5.0 x16 link's 63 GB/s and at
        least 60 % of it, a pageable one slower, a registered one pinned; a
        copy and a kernel in two streams overlap; kgemu_device_time spans a
        host function as events around it do."""
        results, stderr = run_numba("transfers")
        t = results["transfers"]
        link = 32e9 * 16 * 128 / 130 / 8
        for direction in ("htod", "dtoh"):
            rate = t["bytes"] / (t[direction + "_pinned"] / 1e3)
            self.assertTrue(0.6 * link <= rate <= link, "%s: %.1f GB/s" % (direction, rate / 1e9))
            self.assertGreaterEqual(t[direction + "_pageable"], 1.2 * t[direction + "_pinned"])
        self.assertAlmostEqual(t["htod_registered"], t["htod_pinned"], places=6)
        self.assertLess(t["both"], t["kernel"] + t["copy"] - 0.5 * min(t["kernel"], t["copy"]))
        self.assertGreaterEqual(t["both"], max(t["kernel"], t["copy"]))
        self.assertGreater(t["host_function"], t["htod_pageable"] + t["dtoh_pageable"])
        self.assertAlmostEqual(t["host_function"], t["host_function_events"],
                               delta=1e-5 * t["host_function"])
        self.assert_clean(stderr)

    def test_mapped_memory_is_checked(self):
        """Past the end of a mapped array: the context's sticky fault, so
        numba's teardown after it fails too, as on a GPU (not asserted)."""
        results, _ = run_numba("mapped_fault")
        self.assertIn("[700]", results["mapped_fault"]["error"])  # CUDA_ERROR_ILLEGAL_ADDRESS
        self.assertIn("element [100] of the 100-element host buffer #1",
                      results["mapped_fault"]["message"])

    def test_close_and_teardown(self):
        results, stderr = run_numba("close")
        self.assertEqual(results["close"], {"first": 0.0, "second": 0.0})
        self.assert_clean(stderr)


if __name__ == "__main__":
    unittest.main()
