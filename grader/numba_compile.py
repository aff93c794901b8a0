"""Compiles a student's Numba CUDA kernels to PTX, without a GPU.

kgrade's Numba front end. It runs inside the grading sandbox as
``python3 -I grader/numba_compile.py`` (the job's view holds Python, numba,
llvmlite, numpy and the toolkit's libNVVM; never the exercise folder), reads
one JSON request on standard input and writes one JSON result on fd 3 (the
sandbox's result descriptor; standard output, which the student's module may
print to, goes nowhere):

request: {"source": "...", "file_name": "kernel.py", "cc": [9, 0],
          "cuda_home": "/usr/local/cuda",
          "kernels": [{"name": "hidden_layer",
                       "signature": "void(float32[::1], float32[::1], float32[::1])"}]}
result:  {"status": "ok", "ptx": {"hidden_layer": "..."},
          "entries": {"hidden_layer": "_ZN6cudapy..."}, "numba": "0.56.4"}
      or {"status": "compile_error" | "rejected", "message": "...",
          "line": N, "column": C}   (line and column when known)

The student's module is imported here and nowhere else: its module-level code
runs in the sandbox. A kernel is a ``@cuda.jit`` function, or a
``@vectorize([...], target='cuda')`` ufunc, for which numba's own elementwise
kernel (the one numba launches for it) is compiled over the exercise's arrays.

Numba 0.56 with CUDA 13's libNVVM needs a few shims (``apply_shims``): a
CUDA_HOME whose nvvm/lib64 holds libnvvm (CUDA 13 moved it to lib64/), a
forced compute capability (no driver to ask), the NVVM IR version taken from
libNVVM instead of 0.56's hard-coded 1.6, and float64 atomic adds that do not
ask the driver for the device. They are the only code here that knows numba's
internals; SUPPORTED_NUMBA lists the versions they were written for.
"""

import json
import os
import sys
import tempfile
import traceback

SUPPORTED_NUMBA = ("0.56",)
RESULT_FD = 3
MESSAGE_MAX = 2000


class Refused(Exception):
    """The submission is not gradable as it is (missing kernel, wrong form)."""


def prepare_cuda_home(cuda_home):
    """A CUDA_HOME numba 0.56 can search: nvvm/lib64 with libnvvm.so and
    nvvm/libdevice, as links into the toolkit (created under /tmp, the only
    writable place in the sandbox)."""
    home = tempfile.mkdtemp(prefix="kgrade-cuda-home-")
    nvvm = os.path.join(home, "nvvm")
    os.mkdir(nvvm)
    os.symlink(os.path.join(cuda_home, "lib64"), os.path.join(nvvm, "lib64"))
    os.symlink(os.path.join(cuda_home, "nvvm", "libdevice"), os.path.join(nvvm, "libdevice"))
    return home


def apply_shims(cuda_home, cc):
    """Makes numba compile for compute capability `cc` with this toolkit's
    libNVVM and no driver. Must run before numba.cuda is imported."""
    os.environ["CUDA_HOME"] = prepare_cuda_home(cuda_home)
    os.environ["NUMBA_FORCE_CUDA_CC"] = "%d.%d" % tuple(cc)
    os.environ["NUMBA_DISABLE_PERFORMANCE_WARNINGS"] = "1"
    from llvmlite import ir
    from numba.cuda import nvvmutils
    from numba.cuda.cudadrv import nvvm

    def add_ir_version(module):
        i32 = ir.IntType(32)
        versions = nvvm.NVVM().get_ir_version()
        module.add_named_metadata("nvvmir.version",
                                  module.add_metadata([i32(v) for v in versions]))

    def declare_atomic_add_float64(lmod):  # sm_60 and later: the native instruction
        from numba.core import cgutils
        fnty = ir.FunctionType(ir.DoubleType(),
                               (ir.PointerType(ir.DoubleType()), ir.DoubleType()))
        return cgutils.get_or_insert_function(lmod, fnty,
                                              "llvm.numba_nvvm.atomic.load.add.f64.p0f64")

    nvvm.add_ir_version = add_ir_version
    nvvmutils.declare_atomic_add_float64 = declare_atomic_add_float64


def supported_numba():
    """The numba version, or Refused when the shims do not know it."""
    import numba
    version = numba.__version__
    if not version.startswith(SUPPORTED_NUMBA):
        raise Refused("numba %s is not one kgrade supports (%s)" %
                      (version, ", ".join(SUPPORTED_NUMBA)))
    return version


def load_module(source, file_name):
    """Runs the student's module in a namespace of its own."""
    namespace = {"__name__": "__kgrade_submission__", "__file__": file_name}
    code = compile(source, file_name, "exec")
    exec(code, namespace)  # the student's module-level code: in the sandbox only
    return namespace


def kernel_function(namespace, name):
    """The Python function to compile for kernel `name`: a @cuda.jit
    kernel's, or numba's elementwise kernel of a CUDA @vectorize."""
    from numba.cuda.dispatcher import CUDADispatcher
    from numba.cuda.vectorizers import CUDAUFuncDispatcher
    found = namespace.get(name)
    if found is None:
        raise Refused("the module defines no '%s'" % name)
    if isinstance(found, CUDADispatcher):
        return found.py_func
    if isinstance(found, CUDAUFuncDispatcher):
        kernels = list(found.functions.values())
        if len(kernels) != 1:
            raise Refused("'%s' must be vectorized for exactly one signature" % name)
        return kernels[0][1].py_func
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
    from numba import cuda
    from numba.core import sigutils
    pyfunc = kernel_function(namespace, kernel["name"])
    args, _ = sigutils.normalize_signature(kernel["signature"])
    ptx, _ = cuda.compile_ptx(pyfunc, args, lineinfo=True, cc=tuple(cc))
    return ptx


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


def failure(status, message, position=(None, None)):
    result = {"status": status, "message": message[:MESSAGE_MAX]}
    if position[0]:
        result["line"] = position[0]
    if position[1]:
        result["column"] = position[1]
    return result


def first_lines(text, count=12):
    return "\n".join(line for line in str(text).strip().splitlines()[:count])


def compile_request(request):
    """The result for one request (see the module's docstring)."""
    file_name = request.get("file_name") or "kernel.py"
    try:
        apply_shims(request.get("cuda_home", "/usr/local/cuda"), request.get("cc", [9, 0]))
        version = supported_numba()
    except Refused as error:
        return failure("internal_error", str(error))
    try:
        namespace = load_module(request["source"], file_name)
        ptx, entries = {}, {}
        for kernel in request["kernels"]:
            ptx[kernel["name"]] = compile_kernel(namespace, kernel, request.get("cc", [9, 0]))
            entries[kernel["name"]] = entry_name(ptx[kernel["name"]])
    except Refused as error:
        return failure("rejected", str(error))
    except Exception as error:  # the student's Python or numba's typing: a compile error
        return failure("compile_error", first_lines(error), error_position(error, file_name))
    return {"status": "ok", "ptx": ptx, "entries": entries, "numba": version}


def write_result(result):
    try:
        out = os.fdopen(RESULT_FD, "w")
    except OSError:
        out = sys.stdout  # run by hand, outside the sandbox
    out.write(json.dumps(result) + "\n")
    out.flush()


def main():
    request = json.loads(sys.stdin.read())
    write_result(compile_request(request))


if __name__ == "__main__":
    main()
