"""The host job: calls a student's Numba host function on a served GPU.

An exercise's host form (exercise.json's "numba_host": the course's
create_hidden_layer(n, greyscales, weights, exp, normalize, weigh,
activate)) is graded by calling the student's function with the
exercise's inputs as host numpy arrays. This script runs that function in
a sandboxed job of its own, as ``python3 -I -B numba_host.py``, started
by the grading (server/grading_job.c) with numba_loader.py and
numba_shims.py beside it. numba's CUDA driver is the virtual GPU's remote
client (NUMBA_CUDA_DRIVER, KGEMU_REMOTE_FD=4): every driver call is
served by the trusted grade job, which keeps the device, the timeline and
the copies made. On a GPU server it is the GPU's own driver (no
KGEMU_REMOTE_FD; fd 4 is there, unused), and the grade job times each call
by the wall clock (grader/host_wall.c). The reference's host function (the
course's intended answer) runs the same way, in another such job.

Standard input, JSON: {"source": "...", "file_name": "submission.py",
"function": "create_hidden_layer"} (and "cuda_home", the toolkit whose
libNVVM numba compiles with, /usr/local/cuda when absent).

It imports the module as the front end does (numba_loader.load_module:
the source in the line cache, numba's shims), then talks on fd 5 (an
AF_UNIX SOCK_SEQPACKET socket: one JSON text a packet, at most
PACKET_MAX bytes, descriptors by SCM_RIGHTS). It says {"ready": true},
or {"import_failed": TEXT} (the traceback's last lines) and ends; then
serves calls until the socket closes, and ends with status 0:

call:    {"call": "create_hidden_layer",
          "arguments": [{"int": 1000003}, {"array": {"dtype": "float32",
                        "shape": [1000003]}}, {"module": "exp"}, ...],
          "returns": {"dtype": "float32", "shape": [1000003]}}
         with a memfd per array argument, in order, then one for the
         returned array, of exactly its bytes. An array argument is mapped
         MAP_PRIVATE (the function may write it; the grade job's copy stays
         as it was), the returned array's memfd MAP_SHARED; a "module"
         argument is the module's own attribute of that name.
replies: {"returned": true}: the function returned a host numpy array of
         that dtype and shape, now copied into the returned array's memfd;
         {"wrong": MESSAGE}: it returned something else (a device array,
         other values, another shape, None), MESSAGE saying what and what
         to do;
         {"raised": TEXT}: the call raised; TEXT is the traceback's last
         lines, at the student's file and line.

Everything it sends comes from a process that runs the student's code:
the grade job reads it as hostile. A request this script cannot read is
the grade job's fault: it says why on standard error and ends (status 2).
"""

import errno
import json
import mmap
import os
import runpy
import socket
import struct
import sys
import types

# numba_loader.py, run from its path beside this script (see its docstring).
numba_loader = types.SimpleNamespace(**runpy.run_path(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "numba_loader.py")))

CHANNEL_FD = 5         # the seqpacket socket to the grade job
PACKET_MAX = 64 << 10  # bytes of one packet, either way
FDS_MAX = 32           # descriptors of one call: an exercise's arrays and the returned one
TEXT_MAX = 4000        # bytes of a traceback's text in a reply
DEFAULT_CUDA_HOME = "/usr/local/cuda"
DTYPES = ("int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64")
SHAPE_DIMS_MAX = 2


class Malformed(Exception):
    """A request of the grade job's this script cannot read."""


def prepare_numba(cuda_home):
    """numba's shims for this toolkit (the driver gives the compute
    capability); the numba version. Before the student's module runs:
    a failure here is kgrade's."""
    os.environ["NUMBA_DISABLE_PERFORMANCE_WARNINGS"] = "1"
    os.environ["NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS"] = "0"  # small correctness sizes
    numba_loader.numba_shims.apply(cuda_home)
    numba_loader.numba_shims.line_info_as_nvcc_gives_it()  # a fault says the student's line
    import numba
    if not numba_loader.numba_shims.is_supported(numba.__version__):
        raise numba_loader.numba_shims.ToolkitMissing(
            "numba %s is not one kgrade supports (%s)" %
            (numba.__version__, ", ".join(numba_loader.numba_shims.SUPPORTED_NUMBA)))


# ------------------------------------------------------------- the channel

class Channel:
    """The seqpacket socket at `fd`, through libc's send and recvmsg:
    Python's socket objects ask the kernel what a descriptor is
    (getsockname) as they wrap it, which the sandbox's seccomp filter
    forbids a job (it allows sending and receiving on its peer sockets,
    nothing else)."""

    def __init__(self, fd):
        import ctypes

        class IoVec(ctypes.Structure):
            _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]

        class MsgHdr(ctypes.Structure):
            _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32),
                        ("iov", ctypes.POINTER(IoVec)), ("iovlen", ctypes.c_size_t),
                        ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t),
                        ("flags", ctypes.c_int)]

        self.ctypes, self.fd = ctypes, fd
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.send.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
        self.libc.send.restype = ctypes.c_ssize_t
        self.libc.recvmsg.argtypes = [ctypes.c_int, ctypes.POINTER(MsgHdr), ctypes.c_int]
        self.libc.recvmsg.restype = ctypes.c_ssize_t
        self.data = ctypes.create_string_buffer(PACKET_MAX + 1)  # one more: a longer one is cut
        self.control = ctypes.create_string_buffer(socket.CMSG_SPACE(FDS_MAX * 4))
        self.iov = IoVec(ctypes.cast(self.data, ctypes.c_void_p), PACKET_MAX + 1)
        self.header = MsgHdr(None, 0, ctypes.pointer(self.iov), 1,
                             ctypes.cast(self.control, ctypes.c_void_p), 0, 0)

    def call(self, function, *arguments):
        """libc's `function`, again while a signal interrupts it."""
        while True:
            done = function(*arguments)
            if done >= 0:
                return done
            error = self.ctypes.get_errno()
            if error != errno.EINTR:
                raise OSError(error, os.strerror(error))

    def send(self, data):
        """One packet."""
        self.call(self.libc.send, self.fd, data, len(data), socket.MSG_NOSIGNAL)

    def receive(self):
        """The next packet's bytes and descriptors, and whether it was cut
        (over PACKET_MAX bytes or FDS_MAX descriptors)."""
        self.header.controllen, self.header.flags = len(self.control), 0
        size = self.call(self.libc.recvmsg, self.fd, self.ctypes.byref(self.header),
                         socket.MSG_CMSG_CLOEXEC)
        fds, control = [], self.control.raw[:self.header.controllen]
        offset, head = 0, struct.calcsize("Nii")  # struct cmsghdr
        while offset + head <= len(control):
            length, level, kind = struct.unpack_from("Nii", control, offset)
            if length < head:
                break
            if (level, kind) == (socket.SOL_SOCKET, socket.SCM_RIGHTS):
                count = (length - head) // 4
                fds += struct.unpack_from("%di" % count, control, offset + head)
            offset += socket.CMSG_SPACE(length - head)
        cut = size > PACKET_MAX or bool(self.header.flags & (socket.MSG_TRUNC |
                                                            socket.MSG_CTRUNC))
        return self.data.raw[:min(size, PACKET_MAX)], fds, cut


def send(channel, reply):
    """One reply, one packet."""
    channel.send(json.dumps(reply).encode("utf-8")[:PACKET_MAX])


def receive(channel):
    """The next request and its descriptors; (None, []) once the grade job
    has closed the socket."""
    data, fds, cut = channel.receive()
    if not data and not fds:
        return None, []
    try:
        if cut:
            raise Malformed("a request over %d bytes or %d descriptors" % (PACKET_MAX, FDS_MAX))
        request = json.loads(data.decode("utf-8"))
        if not isinstance(request, dict):
            raise Malformed("a request that is not a JSON object")
        return request, fds
    except (ValueError, Malformed):
        close_all(fds)
        raise


def close_all(fds):
    for fd in fds:
        os.close(fd)


# ---------------------------------------------------------------- a call

def array_type(said):
    """The dtype and shape of {"dtype": "float32", "shape": [N]}."""
    import numpy as np
    if not isinstance(said, dict) or said.get("dtype") not in DTYPES:
        raise Malformed("an array of no known dtype: %r" % (said,))
    shape = said.get("shape")
    if not isinstance(shape, list) or not 1 <= len(shape) <= SHAPE_DIMS_MAX or \
            not all(type(d) is int and d >= 0 for d in shape):
        raise Malformed("an array of no valid shape: %r" % (shape,))
    return np.dtype(said["dtype"]), tuple(shape)


def mapped(fd, said, private):
    """The array `said` in the memfd `fd`: MAP_PRIVATE (the function's
    writes stay in this process) or MAP_SHARED (the returned array's,
    which must be exactly its size)."""
    import numpy as np
    dtype, shape = array_type(said)
    count = int(np.prod(shape))
    size, held = count * dtype.itemsize, os.fstat(fd).st_size
    if held < size or (not private and held != size):
        raise Malformed("a memfd of %d bytes for an array of %d" % (held, size))
    if size == 0:
        return np.zeros(shape, dtype)  # no mapping of 0 bytes
    memory = mmap.mmap(fd, size, flags=mmap.MAP_PRIVATE if private else mmap.MAP_SHARED,
                       prot=mmap.PROT_READ | mmap.PROT_WRITE)
    return np.frombuffer(memory, dtype, count).reshape(shape)


class MissingName(Exception):
    """An argument names something the module does not define."""


def call_arguments(request, fds, namespace):
    """The call's arguments, in order, and the returned array's mapping."""
    said = request.get("arguments")
    if not isinstance(said, list) or len(fds) != 1 + sum(
            isinstance(a, dict) and "array" in a for a in said):
        raise Malformed("arguments that are not a list, each array with its memfd, and then "
                        "the returned array's")
    arguments, arrays = [], iter(fds)
    for argument in said:
        if isinstance(argument, dict) and type(argument.get("int")) is int:
            arguments.append(argument["int"])
        elif isinstance(argument, dict) and "array" in argument:
            arguments.append(mapped(next(arrays), argument["array"], private=True))
        elif isinstance(argument, dict) and isinstance(argument.get("module"), str):
            if argument["module"] not in namespace:
                raise MissingName(argument["module"])
            arguments.append(namespace[argument["module"]])
        else:
            raise Malformed("an argument of no known kind: %r" % (argument,))
    return arguments, mapped(next(arrays), request.get("returns"), private=False)


def shape_text(shape):
    """A shape as numpy says it: "(1000003,)"."""
    return str(tuple(shape))


def wrong_result(name, result, returned):
    """What is wrong with `result` against the array expected (`returned`,
    its mapping), or None when it is a host array of its dtype and shape."""
    import numpy as np
    wanted = "a host array (numpy) of %s, shape %s" % (returned.dtype, shape_text(returned.shape))
    if result is None:
        return "%s returned None: return the output, %s" % (name, wanted)
    if hasattr(result, "__cuda_array_interface__"):
        what = "numba's DeviceNDArray" if hasattr(result, "copy_to_host") else \
            type(result).__name__
        return ("%s returned a device array (%s): return a host array, e.g. "
                "d_out.copy_to_host()" % (name, what))
    if not isinstance(result, np.ndarray):
        return "%s returned a %s: return the output, %s" % (name, type(result).__name__, wanted)
    if result.dtype != returned.dtype:
        return "%s returned %s values: the output is %s" % (name, result.dtype, returned.dtype)
    if result.shape != returned.shape:
        return "%s returned shape %s: expected %s" % (name, shape_text(result.shape),
                                                     shape_text(returned.shape))
    return None


def call(request, fds, namespace, file_name):
    """The reply to one call request (see the module's docstring)."""
    name = request.get("call")
    function = namespace.get(name) if isinstance(name, str) else None
    if not callable(function):
        close_all(fds)
        raise Malformed("a call of %r, which the module does not define" % (name,))
    try:
        arguments, returned = call_arguments(request, fds, namespace)
    except MissingName as missing:
        return {"raised": "%s is called as the course calls it, with the module's own '%s', "
                          "which the module does not define: define it (as the course's "
                          "arguments pass it)" % (name, missing)}
    finally:
        close_all(fds)  # each mapping holds its own
    try:
        result = function(*arguments)
        wrong = wrong_result(name, result, returned)
        if wrong is None:
            returned[...] = result
    except BaseException as error:  # the student's code: SystemExit included
        return {"raised": numba_loader.traceback_text(error, file_name, TEXT_MAX)}
    return {"wrong": wrong} if wrong else {"returned": True}


# ----------------------------------------------------------------- the job

def start(request, channel):
    """The student's module, imported; None when it failed, said on the
    channel."""
    file_name = request.get("file_name") or "submission.py"
    name = request.get("function")
    try:
        namespace = numba_loader.load_module(request["source"], file_name)
    except BaseException as error:
        send(channel, {"import_failed": numba_loader.traceback_text(error, file_name, TEXT_MAX)})
        return None
    if not callable(namespace.get(name)):
        send(channel, {"import_failed": "the module defines no function '%s'" % name})
        return None
    send(channel, {"ready": True})
    return namespace


def serve(request, channel, namespace):
    """Calls until the grade job closes the channel."""
    file_name = request.get("file_name") or "submission.py"
    while True:
        asked, fds = receive(channel)
        if asked is None:
            return
        send(channel, call(asked, fds, namespace, file_name))


def main():
    request = json.loads(sys.stdin.read())
    numba_loader.forbid_exec()  # before any student code runs
    channel = Channel(CHANNEL_FD)
    try:
        prepare_numba(request.get("cuda_home") or DEFAULT_CUDA_HOME)
    except numba_loader.numba_shims.ToolkitMissing as error:
        sys.stderr.write("numba_host.py: %s\n" % error)
        numba_loader.exit_now(2)
    namespace = start(request, channel)
    try:
        if namespace is not None:
            serve(request, channel, namespace)
    except (Malformed, ValueError, OSError) as error:
        sys.stderr.write("numba_host.py: the grade job's request is not valid: %s\n" % error)
        numba_loader.exit_now(2)
    numba_loader.exit_now(0)


if __name__ == "__main__":
    main()
