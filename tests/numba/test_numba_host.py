"""Tests of the host job (grader/numba_host.py, installed as build/numba_host.py):
a student's host function called as the grade job calls it, on the real
remote driver, without the sandbox.

This test plays the grade job: it loads the virtual GPU
(build/emulator/libcuda.so.1) with ctypes and serves the host job's driver
session (kgemu_serve) on a thread, over a stream socketpair whose other
end is the job's fd 4; the job's numba has the remote client as its
driver (NUMBA_CUDA_DRIVER=build/emulator/remote/libcuda.so.1,
KGEMU_REMOTE_FD=4). Calls go over a seqpacket pair (the job's fd 5) with
the arrays in sealed memfds, as section 5 of the host form's design says.
The sandboxed run is server/grading_job.c's; its seccomp rules are
tested by tests/unit/test_sandbox_remote.c.
"""

import ctypes
import fcntl
import json
import mmap
import os
import socket
import subprocess
import threading
import unittest

import numpy as np

from numba_exercises import CUDA_HOME, EMULATOR, ROOT, is_host_form, load, numba_compile

BUILD = os.path.dirname(os.path.dirname(EMULATOR))
CLIENT = os.path.join(os.path.dirname(EMULATOR), "remote", "libcuda.so.1")
HOST_JOB = os.path.join(BUILD, "numba_host.py")
PYTHON = "/usr/bin/python3"
CHILD_FDS = (4, 5)  # the driver's stream socket, the calls' seqpacket socket
HIGH_FD = 10        # the child's ends wait there until they are put at CHILD_FDS
N = 1000
JOB_SECONDS = 120

HIDDEN_LAYER = os.path.join(ROOT, "exercises", "hidden-layer")
# The host form's solutions are among the kernel form's, told apart by the
# function they define (tests/integration/test_grade.sh grades every
# solutions/*.py by its name's verdict).
SOLUTIONS = os.path.join(HIDDEN_LAYER, "solutions")
COURSE_ANSWER = os.path.join(SOLUTIONS, "passed__course_host_answer.py")
# What the host job replies to each solution's call; the verdict its name
# says is the grade job's (the time, and where the returned array came
# from: numpy on the host, or a host result copied to the device and back,
# returns the right values and is not passed).
REPLIES = {
    "passed__course_host_answer.py": "returned",
    "too_slow__ufuncs_on_host_arrays.py": "returned",
    "wrong_answer__numpy_on_host.py": "returned",
    "wrong_answer__host_result_round_trip.py": "returned",
    "wrong_answer__numpy_uploaded_in_halves.py": "returned",
    "wrong_answer__numpy_through_a_copy_kernel.py": "returned",
    "wrong_answer__returns_device_array.py": "wrong",
    "runtime_error__raises.py": "raised",
}

# The course's answer with more functions, each a way the call goes wrong,
# and one that writes into its input (line numbers matter: see RAISES_LINE).
MISTAKES = """

def returns_device(n, greyscales, weights, exp, normalize, weigh, activate):
    return cuda.to_device(greyscales)


def returns_float64(n, greyscales, weights, exp, normalize, weigh, activate):
    return greyscales.astype(np.float64)


def returns_short(n, greyscales, weights, exp, normalize, weigh, activate):
    return greyscales[:5].copy()


def returns_none(n, greyscales, weights, exp, normalize, weigh, activate):
    normalize(greyscales)


def raises(n, greyscales, weights, exp, normalize, weigh, activate):
    return greyscales[n + 1]


def writes_its_input(n, greyscales, weights, exp, normalize, weigh, activate):
    greyscales[:] = 7
    weights *= 2
    return create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate)
"""


def read(path):
    with open(path) as f:
        return f.read()


def expected_layer(greyscales, weights):
    """The course's hidden layer, in float32 as its ufuncs compute it."""
    return np.tanh((greyscales / np.float32(255)) * weights).astype(np.float32)


def sealed_memfd(name, array):
    """A memfd holding `array`'s bytes, sealed as the grade job seals its
    inputs (no write, no resize)."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.write(fd, array.tobytes())
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK |
                fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
    return fd


def memfd_bytes(fd, size):
    return os.pread(fd, size, 0)


class Server:
    """kgemu_serve on one end of a stream socketpair, on a thread; the
    client's modeled device time once it has ended."""

    def __init__(self, fd):
        self.library = ctypes.CDLL(EMULATOR)
        self.fd, self.served, self.device_ms = fd, None, None
        self.thread = threading.Thread(target=self.serve)

    def serve(self):
        library = self.library
        self.served = library.kgemu_serve(self.fd)
        milliseconds, context = ctypes.c_double(), ctypes.c_void_p()
        if library.kgemu_device_time(ctypes.byref(milliseconds)) == 0:
            self.device_ms = milliseconds.value
        if library.cuCtxGetCurrent(ctypes.byref(context)) == 0 and context.value:
            library.cuCtxDestroy_v2(context)
        os.close(self.fd)


class HostJob:
    """numba_host.py started as the grade job starts it (without the
    sandbox), its driver served by a Server."""

    def __init__(self, source, function="create_hidden_layer"):
        driver, driver_child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.channel, channel_child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ends = [fcntl.fcntl(s.fileno(), fcntl.F_DUPFD_CLOEXEC, HIGH_FD)
                for s in (driver_child, channel_child)]
        driver_child.close()
        channel_child.close()
        env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
               "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1",
               "NUMBA_CUDA_DRIVER": CLIENT, "KGEMU_REMOTE_FD": str(CHILD_FDS[0])}

        def put_ends():  # in the child, before exec: its ends at fds 4 and 5, inherited
            for end, fd in zip(ends, CHILD_FDS):
                os.dup2(end, fd)

        # started before the server's thread: put_ends runs in a child of a
        # process with no other thread
        self.process = subprocess.Popen(
            [PYTHON, "-I", "-B", HOST_JOB], stdin=subprocess.PIPE, stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL, env=env, close_fds=False, preexec_fn=put_ends)
        for end in ends:
            os.close(end)
        self.server = Server(driver.detach())
        self.server.thread.start()
        self.process.stdin.write(json.dumps({
            "source": source, "file_name": "submission.py", "function": function,
            "cuda_home": CUDA_HOME}).encode())
        self.process.stdin.close()
        self.process.stdin = None  # communicate() then only reads
        self.channel.settimeout(JOB_SECONDS)

    def said(self):
        return json.loads(self.channel.recv(64 << 10).decode())

    def call(self, function, greyscales, weights, returns=(np.float32, (N,))):
        """The job's reply to a call of `function` as the course calls
        create_hidden_layer, and the returned array's memfd's content."""
        dtype, shape = np.dtype(returns[0]), returns[1]
        inputs = [sealed_memfd("greyscales", greyscales), sealed_memfd("weights", weights)]
        out = os.memfd_create("out", os.MFD_CLOEXEC)
        size = int(np.prod(shape)) * dtype.itemsize
        os.ftruncate(out, size)
        array = {"dtype": "float32", "shape": [len(greyscales)]}
        request = {"call": function, "arguments": [
            {"int": len(greyscales)}, {"array": array}, {"array": array},
            {"module": "exp"}, {"module": "normalize"}, {"module": "weigh"},
            {"module": "activate"}], "returns": {"dtype": dtype.name, "shape": list(shape)}}
        socket.send_fds(self.channel, [json.dumps(request).encode()], inputs + [out])
        reply = self.said()
        returned = np.frombuffer(memfd_bytes(out, size), dtype).reshape(shape)
        kept = [memfd_bytes(fd, a.nbytes) for fd, a in zip(inputs, (greyscales, weights))]
        for fd in inputs + [out]:
            os.close(fd)
        return reply, returned, kept

    def end(self):
        """Closes the channel (once); the job's exit status and standard
        error."""
        if self.channel.fileno() >= 0:
            self.channel.close()
            try:
                _, errors = self.process.communicate(timeout=JOB_SECONDS)
                self.errors = errors.decode(errors="replace")
            finally:
                self.process.kill()
                self.server.thread.join(JOB_SECONDS)
        return self.process.returncode, self.errors


def inputs():
    generator = np.random.default_rng(34)
    greyscales = np.floor(generator.uniform(0, 255, N)).astype(np.float32)
    weights = generator.normal(0.5, 0.1, N).astype(np.float32)
    return greyscales, weights


@unittest.skipUnless(os.path.exists(EMULATOR) and os.path.exists(CLIENT) and
                     os.path.exists(HOST_JOB),
                     "no virtual GPU, remote driver or host job built under " + BUILD)
class HostFunctionCalls(unittest.TestCase):
    """One host job of the course's answer serves every call."""

    @classmethod
    def setUpClass(cls):
        cls.job = HostJob(read(COURSE_ANSWER) + MISTAKES)
        cls.ready = cls.job.said()

    @classmethod
    def tearDownClass(cls):
        cls.job.end()

    def setUp(self):
        self.assertEqual(self.ready, {"ready": True})

    def test_the_courses_answer_returns_the_hidden_layer(self):
        greyscales, weights = inputs()
        reply, returned, _ = self.job.call("create_hidden_layer", greyscales, weights)
        self.assertEqual(reply, {"returned": True})
        np.testing.assert_allclose(returned, expected_layer(greyscales, weights),
                                   rtol=1e-5, atol=1e-6)

    def test_writing_into_an_input_leaves_the_grade_jobs_copy(self):
        greyscales, weights = inputs()
        reply, returned, kept = self.job.call("writes_its_input", greyscales, weights)
        self.assertEqual(reply, {"returned": True})
        # the function saw its own writes...
        np.testing.assert_allclose(returned, expected_layer(np.full(N, 7, np.float32),
                                                            weights * 2), rtol=1e-5, atol=1e-6)
        # ...which never reached the memfds
        self.assertEqual(kept, [greyscales.tobytes(), weights.tobytes()])

    def test_a_device_array_is_wrong(self):
        reply, _, _ = self.job.call("returns_device", *inputs())
        self.assertEqual(reply, {"wrong": "returns_device returned a device array (numba's "
                                          "DeviceNDArray): return a host array, e.g. "
                                          "d_out.copy_to_host()"})

    def test_other_values_are_wrong(self):
        reply, _, _ = self.job.call("returns_float64", *inputs())
        self.assertEqual(reply, {"wrong": "returns_float64 returned float64 values: the output "
                                          "is float32"})

    def test_another_shape_is_wrong(self):
        reply, _, _ = self.job.call("returns_short", *inputs())
        self.assertEqual(reply, {"wrong": "returns_short returned shape (5,): expected (%d,)" %
                                          N})

    def test_none_is_wrong(self):
        reply, _, _ = self.job.call("returns_none", *inputs())
        self.assertIn("wrong", reply)
        self.assertTrue(reply["wrong"].startswith("returns_none returned None: "), reply)

    def test_a_call_that_raises_says_the_students_line(self):
        source = read(COURSE_ANSWER) + MISTAKES
        line = source.splitlines().index("    return greyscales[n + 1]") + 1
        reply, _, _ = self.job.call("raises", *inputs())
        self.assertIn("raised", reply)
        self.assertIn('File "submission.py", line %d, in raises' % line, reply["raised"])
        self.assertIn("return greyscales[n + 1]", reply["raised"])
        self.assertIn("IndexError", reply["raised"])

    def test_zz_the_job_ends_when_the_channel_closes(self):  # last: it ends the job
        status, errors = self.job.end()
        self.assertEqual(status, 0, errors)
        self.assertEqual(self.job.server.served, 0)
        self.assertGreater(self.job.server.device_ms, 0)


@unittest.skipUnless(os.path.exists(EMULATOR) and os.path.exists(CLIENT) and
                     os.path.exists(HOST_JOB),
                     "no virtual GPU, remote driver or host job built under " + BUILD)
class ModulesThatFail(unittest.TestCase):
    def import_failed(self, source):
        job = HostJob(source)
        said = job.said()
        status, errors = job.end()
        self.assertEqual(status, 0, errors)
        self.assertIn("import_failed", said)
        return said["import_failed"]

    def test_a_module_that_raises_says_its_line(self):
        text = self.import_failed("import numpy as np\n\nscale = np.float32(1) / undefined\n")
        self.assertIn('File "submission.py", line 3, in <module>', text)
        self.assertIn("scale = np.float32(1) / undefined", text)
        self.assertIn("NameError: name 'undefined' is not defined", text)

    def test_a_syntax_error_says_its_line(self):
        text = self.import_failed("def create_hidden_layer(n:\n    pass\n")
        self.assertIn('File "submission.py", line 1', text)
        self.assertIn("SyntaxError", text)

    def test_a_request_over_a_packet_ends_the_job_saying_so(self):
        job = HostJob("def create_hidden_layer(*arguments):\n    pass\n")
        self.assertEqual(job.said(), {"ready": True})
        job.channel.send(b" " * (65 << 10))
        status, errors = job.end()
        self.assertEqual(status, 2)
        self.assertIn("the grade job's request is not valid: a request over 65536 bytes", errors)

    def test_a_module_without_the_function_fails(self):
        text = self.import_failed("def hidden_layer():\n    pass\n")
        self.assertEqual(text, "the module defines no function 'create_hidden_layer'")


@unittest.skipUnless(os.path.exists(EMULATOR) and os.path.exists(CLIENT) and
                     os.path.exists(HOST_JOB),
                     "no virtual GPU, remote driver or host job built under " + BUILD)
class TheHostFormsFiles(unittest.TestCase):
    """hidden-layer's reference_host.py and host-form solutions, each
    called once in a host job of its own."""

    def reply(self, path):
        job = HostJob(read(path))
        self.assertEqual(job.said(), {"ready": True}, path)
        greyscales, weights = inputs()
        reply, returned, _ = job.call("create_hidden_layer", greyscales, weights)
        status, errors = job.end()
        self.assertEqual(status, 0, errors)
        if "returned" in reply:
            np.testing.assert_allclose(returned, expected_layer(greyscales, weights),
                                       rtol=1e-5, atol=1e-6, err_msg=path)
        return reply

    def test_the_reference_returns_the_hidden_layer(self):
        self.assertEqual(self.reply(os.path.join(HIDDEN_LAYER, "reference_host.py")),
                         {"returned": True})

    def test_each_solution_is_the_host_form_and_replies_as_expected(self):
        exercise = load("hidden-layer")
        host_form = [name for name in os.listdir(SOLUTIONS) if name.endswith(".py") and
                     is_host_form(exercise, read(os.path.join(SOLUTIONS, name)))]
        self.assertEqual(sorted(host_form), sorted(REPLIES))
        for name, kind in REPLIES.items():
            with self.subTest(name):
                path = os.path.join(SOLUTIONS, name)
                front_end = numba_compile.compile_request({
                    "source": read(path), "file_name": "submission.py", "cc": [9, 0],
                    "cuda_home": CUDA_HOME, "kernels": [],
                    "numba_host": {"function": "create_hidden_layer"}})
                self.assertEqual(front_end.get("form"), "host", front_end)
                self.assertEqual(list(self.reply(path)), [kind])


if __name__ == "__main__":
    unittest.main()
