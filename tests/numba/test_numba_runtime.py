"""numba's own CUDA runtime (numba.cuda: device arrays, kernel launches)
on kgrade's virtual GPU: NUMBA_CUDA_DRIVER names build/emulator/libcuda.so.1
and grader/numba_compile.py's shims are applied, as for the course's
notebooks.

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


if __name__ == "__main__":
    unittest.main()
