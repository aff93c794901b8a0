"""Compiles a student's Numba CUDA kernels to PTX, without a GPU.

kgrade's Numba front end. It runs inside the grading sandbox as
``python3 -I grader/numba_compile.py`` (the job's view holds Python, numba,
llvmlite, numpy, the toolkit's libNVVM and numba_shims.py beside this file;
never the exercise folder), reads
one JSON request on standard input and writes on fd 3 (the sandbox's result
descriptor; standard output, which the student's module may print to, goes
nowhere) a line {"phase": "started"} once numba is ready, before the
student's module runs, a line {"phase": "call", "call": "os.mkdir"} before
each call of the module's that the sandbox may forbid (watch_calls), then
one JSON result. With --no-exec (as the sandbox
runs it) it first forbids itself execve, as the C worker does:

request: {"source": "...", "file_name": "kernel.py", "cc": [9, 0],
          "cuda_home": "/usr/local/cuda",
          "kernels": [{"name": "hidden_layer",
                       "signature": "void(float32[::1], float32[::1], float32[::1])",
                       "params": ["greyscales", "weights", "out"], "elementwise": true}]}
result:  {"status": "ok", "ptx": {"hidden_layer": "..."},
          "entries": {"hidden_layer": "_ZN6cudapy..."},
          "vectorized": {"hidden_layer": false}, "numba": "0.56.4"}
      or {"status": "compile_error" | "rejected", "message": "what is wrong",
          "log": "numba's whole error", "line": N, "column": C}
          (log, line and column when known)

The student's module is imported here and nowhere else: its module-level code
runs in the sandbox. A kernel is a ``@cuda.jit`` function, or a
``@vectorize([...], target='cuda')`` ufunc, for which numba's own elementwise
kernel (the one numba launches for it) is compiled over the exercise's arrays.

A kernel must take the form's parameters ("params", the course's names); a
@vectorize ufunc is accepted only for an elementwise form (every parameter
an array of one length, the last its output), and takes one input fewer.

Numba 0.56 with CUDA 13's libNVVM needs a few shims (``apply_shims``):
those numba_shims.py holds, which ``kgrade run`` applies too (libNVVM and
libdevice named to numba, the NVVM IR version libNVVM wants, float64 atomic
adds that do not ask a driver), and two of the front end's own: a forced
compute capability (no driver to ask) and line numbers without the debug
build that 0.56's lineinfo makes (line_info_as_nvcc_gives_it).
numba_shims.SUPPORTED_NUMBA lists the versions they were written for.
"""

import importlib.util
import json
import os
import sys
import tempfile
import traceback


def load_beside(name):
    """The module `name` from its file beside this script, by its path:
    python3 -I puts no script folder on sys.path, and the sandbox shows
    that folder's files, not its listing, which sys.path's finder reads."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


numba_shims = load_beside("numba_shims")

RESULT_FD = 3
MESSAGE_MAX = 400  # bytes of UTF-8, as grader/numba_result.c reads them
LOG_MAX = 8000


class Refused(Exception):
    """The submission is not gradable as it is (missing kernel, wrong form)."""


def apply_shims(cuda_home, cc):
    """Makes numba compile for compute capability `cc` with this toolkit's
    libNVVM and no driver (numba_shims), writing nothing (the sandbox's
    /tmp is small), with line numbers as nvcc gives them. Must run before
    numba.cuda is imported (numba's config reads the forced capability)."""
    os.environ["NUMBA_FORCE_CUDA_CC"] = "%d.%d" % tuple(cc)
    os.environ["NUMBA_DISABLE_PERFORMANCE_WARNINGS"] = "1"
    try:
        numba_shims.apply(cuda_home)
    except numba_shims.ToolkitMissing as error:
        raise Refused(str(error))
    line_info_as_nvcc_gives_it()


def line_info_as_nvcc_gives_it():
    """Line numbers in the PTX without changing the code, as nvcc's -lineinfo.
    numba 0.56's lineinfo=True turns on full debug information instead: the
    Python error model (division checks), the kernel's function kept out of
    line and its variables in local memory, and NVVM's debug target: about
    3x the instructions of the kernel a student runs with a plain @cuda.jit.
    Here: numba's own error model (numpy's), line directives only
    (DebugDirectivesOnly), the function inlined into a kernel wrapper that
    has a location of its own (so the inlined lines are kept), no variables."""
    from llvmlite import ir
    from numba.core import debuginfo
    from numba.cuda import compiler
    from numba.cuda.target import CUDATargetContext

    class NumpyErrorModelFlags(compiler.CUDAFlags):
        def __setattr__(self, name, value):
            super().__setattr__(name, "numpy" if name == "error_model" else value)

    def compile_unit(self):
        return self.module.add_debug_info("DICompileUnit", {
            "language": ir.DIToken("DW_LANG_C_plus_plus"), "file": self.difile,
            "producer": "clang (Numba)", "runtimeVersion": 0, "isOptimized": True,
            "emissionKind": 3,  # DebugDirectivesOnly
        }, is_distinct=True)

    def mark_subprogram(self, function, qualname, argnames, argtypes, line):
        function.set_metadata("dbg", self._add_subprogram(
            name=qualname, linkagename=function.name, line=line, function=function,
            argmap=dict(zip(argnames, argtypes))))  # and inlinable

    wrapper = CUDATargetContext.generate_kernel_wrapper

    def kernel_wrapper_with_location(self, library, fndesc, kernel_name, debug, filename,
                                     linenum):
        return wrapper(self, library, fndesc, kernel_name, True, filename, linenum)

    compiler.CUDAFlags = NumpyErrorModelFlags
    debuginfo.DIBuilder._di_compile_unit = compile_unit
    debuginfo.DIBuilder.mark_subprogram = mark_subprogram
    debuginfo.DIBuilder.mark_variable = lambda *args, **kwargs: None
    CUDATargetContext.generate_kernel_wrapper = kernel_wrapper_with_location


def supported_numba():
    """The numba version, or Refused when the shims do not know it."""
    import numba
    version = numba.__version__
    if not numba_shims.is_supported(version):
        raise Refused("numba %s is not one kgrade supports (%s)" %
                      (version, ", ".join(numba_shims.SUPPORTED_NUMBA)))
    return version


def load_module(source, file_name):
    """Runs the student's module in a namespace of its own."""
    namespace = {"__name__": "__kgrade_submission__", "__file__": file_name}
    code = compile(source, file_name, "exec")
    exec(code, namespace)  # the student's module-level code: in the sandbox only
    return namespace


def form_text(kernel):
    """The definition the exercise asks for: "tile_transpose(a, transposed)"."""
    return "%s(%s)" % (kernel["name"], ", ".join(kernel.get("params", [])))


def check_arity(pyfunc, kernel, count, what):
    """Refused unless `pyfunc` takes `count` parameters."""
    code = pyfunc.__code__
    if code.co_argcount == count and not code.co_flags & 0x0C:  # no *args, **kwargs
        return
    taken = ", ".join(code.co_varnames[:code.co_argcount])
    raise Refused("%s must take %d parameter%s, as in %s; yours takes (%s)" %
                  (what, count, "" if count == 1 else "s", form_text(kernel), taken))


def kernel_function(namespace, kernel):
    """The Python function to compile for `kernel` and whether it is a
    ufunc: a @cuda.jit kernel's own function, or numba's elementwise
    kernel of a CUDA @vectorize (for an elementwise kernel only)."""
    from numba.cuda.dispatcher import CUDADispatcher
    from numba.cuda.vectorizers import CUDAUFuncDispatcher
    name, count = kernel["name"], len(kernel.get("params", []))
    found = namespace.get(name)
    if found is None:
        raise Refused("the module defines no '%s': the exercise asks for %s" %
                      (name, form_text(kernel)))
    if isinstance(found, CUDADispatcher):
        if "params" in kernel:
            check_arity(found.py_func, kernel, count, "the kernel '%s'" % name)
        return found.py_func, False
    if isinstance(found, CUDAUFuncDispatcher):
        if not kernel.get("elementwise", True):
            raise Refused("'%s' must be a @cuda.jit kernel, %s: a @vectorize ufunc is "
                          "accepted only where every parameter is an array of the same length"
                          % (name, form_text(kernel)))
        kernels = list(found.functions.values())
        if len(kernels) != 1:
            raise Refused("'%s' must be vectorized for exactly one signature" % name)
        inputs = len(next(iter(found.functions)))
        if "params" in kernel and inputs != count - 1:
            raise Refused("the @vectorize function '%s' must take %d input%s (the arrays of %s "
                          "but the last, which it returns); yours takes %d" %
                          (name, count - 1, "" if count == 2 else "s", form_text(kernel), inputs))
        return kernels[0][1].py_func, True
    raise Refused("'%s' is not a CUDA kernel: decorate it with @cuda.jit, or with "
                  "@vectorize([...], target='cuda')" % name)


def entry_name(ptx):
    """The mangled name of the kernel in `ptx` (numba's changes per compile)."""
    for line in ptx.splitlines():
        words = line.split()
        if ".entry" in words:
            return words[words.index(".entry") + 1].split("(")[0]
    raise Refused("numba produced no kernel")


def compile_kernel(namespace, kernel, cc):
    """The kernel's PTX, and whether it is a @vectorize ufunc's."""
    from numba import cuda
    from numba.core import sigutils
    pyfunc, vectorized = kernel_function(namespace, kernel)
    args, _ = sigutils.normalize_signature(kernel["signature"])
    ptx, _ = cuda.compile_ptx(pyfunc, args, lineinfo=True, cc=tuple(cc))
    return ptx, vectorized


def error_position(error, file_name):
    """The line and column of the student's source an exception points at."""
    if isinstance(error, SyntaxError):
        return error.lineno, error.offset
    loc = getattr(error, "loc", None)
    if loc is not None and getattr(loc, "line", None):
        return loc.line, getattr(loc, "col", None)
    line = None
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename == file_name:
            line = frame.lineno
    return line, None


def utf8_cut(text, size):
    """`text` in at most `size` bytes of UTF-8, as kgrade reads its limits."""
    return text.encode("utf-8", "replace")[:size].decode("utf-8", "ignore")


def failure(status, message, position=(None, None), log=None):
    result = {"status": status, "message": utf8_cut(message, MESSAGE_MAX)}
    if log:
        result["log"] = utf8_cut(log, LOG_MAX)
    if position[0]:
        result["line"] = position[0]
    if position[1]:
        result["column"] = position[1]
    return result


def first_lines(text, count=40):
    return "\n".join(line for line in str(text).strip().splitlines()[:count])


# numba's framing of a typing error: which pipeline step, where, how many
# candidates; the lines between say what is wrong.
NUMBA_FRAMING = ("Failed in ", "During: ", "File \"", "<source elided>", "There are ",
                 "- Of which", "Overload of function", "With argument(s)", "No match")


def summary(error):
    """What is wrong in a line or two: a Python error's own words, or the
    heart of numba's typing error ("No implementation of function ...
    found for signature: >>> add(float32, Literal[str](text))")."""
    if isinstance(error, SyntaxError):
        return "%s: %s" % (type(error).__name__, error.msg)
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    said = [line for line in lines if not line.startswith(NUMBA_FRAMING)
            and not line[:1].isdigit()]  # numba quotes the source as "7 |  ..."
    text = " ".join(said[:2]) if said else (lines[0] if lines else type(error).__name__)
    if not text.startswith(type(error).__name__) and not hasattr(error, "loc"):
        text = "%s: %s" % (type(error).__name__, text)
    return text


def compile_request(request, ready=None):
    """The result for one request (see the module's docstring); `ready` is
    called once numba is set up, before the student's module runs."""
    file_name = request.get("file_name") or "kernel.py"
    try:
        apply_shims(request.get("cuda_home", "/usr/local/cuda"), request.get("cc", [9, 0]))
        version = supported_numba()
    except Refused as error:
        return failure("internal_error", str(error))
    if ready:
        ready(version)
    try:
        namespace = load_module(request["source"], file_name)
        ptx, entries, vectorized = {}, {}, {}
        for kernel in request["kernels"]:
            name = kernel["name"]
            ptx[name], vectorized[name] = compile_kernel(namespace, kernel,
                                                         request.get("cc", [9, 0]))
            entries[name] = entry_name(ptx[name])
    except Refused as error:
        return failure("rejected", str(error))
    except Exception as error:  # the student's Python or numba's typing: a compile error
        return failure("compile_error", summary(error), error_position(error, file_name),
                       first_lines(error))
    return {"status": "ok", "ptx": ptx, "entries": entries, "vectorized": vectorized,
            "numba": version}


# seccomp: the architectures this knows, with execve's and execveat's numbers
AUDIT_ARCH = {"x86_64": (0xC000003E, 59, 322), "aarch64": (0xC00000B7, 221, 281)}


def forbid_exec():
    """From now on execve and execveat kill the process, as the C worker's
    sandbox_forbid_exec does: the sandbox lets a job exec once, to start.
    A classic BPF program through prctl, since Python has no libseccomp."""
    import ctypes
    import platform
    arch, execve, execveat = AUDIT_ARCH[platform.machine()]
    ld_arch, ld_nr = (0x20, 0, 0, 4), (0x20, 0, 0, 0)  # BPF_LD|BPF_W|BPF_ABS
    program = [ld_arch, (0x15, 0, 3, arch),  # BPF_JMP|BPF_JEQ|BPF_K: other arches allowed here
               ld_nr, (0x15, 2, 0, execve), (0x15, 1, 0, execveat),
               (0x06, 0, 0, 0x7FFF0000),   # BPF_RET: SECCOMP_RET_ALLOW
               (0x06, 0, 0, 0x80000000)]   # SECCOMP_RET_KILL_PROCESS

    class Instruction(ctypes.Structure):
        _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte),
                    ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Instruction))]

    code = (Instruction * len(program))(*[Instruction(*i) for i in program])
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_no_new_privs, pr_set_seccomp, seccomp_mode_filter = 38, 22, 2
    if (libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0 or
            libc.prctl(pr_set_seccomp, seccomp_mode_filter,
                       ctypes.byref(Program(len(program), code)), 0, 0) != 0):
        raise OSError(ctypes.get_errno(), "the exec filter could not be installed")


def result_file():
    try:
        return os.fdopen(RESULT_FD, "w")
    except OSError:
        return sys.stdout  # run by hand, outside the sandbox


def write_line(out, value):
    out.write(json.dumps(value) + "\n")
    out.flush()


# Python's audit events (PEP 578) of calls that end in a system call the
# sandbox forbids: writing files, new processes, sockets, signals, loading
# libraries. Those that only read are left out.
WATCHED_CALLS = ("os.", "subprocess.", "socket.", "shutil.", "pty.", "ctypes.dlopen",
                 "fcntl.", "resource.", "signal.", "mmap.", "sys.addaudithook")
QUIET_CALLS = ("os.listdir", "os.scandir", "os.walk", "os.chdir", "os.getxattr",
               "os.listxattr")


def watch_calls(out):
    """From now on each watched call is named on `out` before it is made
    ({"phase": "call", "call": "os.mkdir"}), so that a module the sandbox
    stops is told which of its calls it was. An audit hook cannot be
    removed; what the module writes itself only names its own calls."""
    def hook(event, args):
        if event.startswith(WATCHED_CALLS) and not event.startswith(QUIET_CALLS):
            write_line(out, {"phase": "call", "call": event})
    sys.addaudithook(hook)


def on_ready(out, version):
    """"started": what follows is the student's module's doing, not kgrade's."""
    write_line(out, {"phase": "started", "numba": version})
    watch_calls(out)


def main():
    request = json.loads(sys.stdin.read())
    if "--no-exec" in sys.argv[1:]:  # in the sandbox, before any student code runs
        forbid_exec()
    out = result_file()
    result = compile_request(request, lambda version: on_ready(out, version))
    write_line(out, result)


if __name__ == "__main__":
    main()
