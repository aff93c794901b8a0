"""Compiles a student's Numba CUDA kernels to PTX, without a GPU.

kgrade's Numba front end. It runs inside the grading sandbox as
``python3 -I grader/numba_compile.py`` (the job's view holds Python, numba,
llvmlite, numpy, the toolkit's libNVVM, and numba_loader.py (how the
student's module is run and its errors said, shared with the host job
grader/numba_host.py) and numba_shims.py beside this file; never the
exercise folder), reads
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
                       "params": ["greyscales", "weights", "out"], "elementwise": true,
                       "gufunc": true, "reduce": false}]}
result:  {"status": "ok", "ptx": {"hidden_layer": "..."},
          "entries": {"hidden_layer": "_ZN6cudapy..."},
          "vectorized": {"hidden_layer": false}, "reduce": {"hidden_layer": false},
          "numba": "0.56.4"}
      or {"status": "ok", "form": "host", "function": "create_hidden_layer",
          "numba": "0.56.4"}
          (the request names the exercise's host form, "numba_host":
          {"function": "create_hidden_layer"}, and the module defines that
          function: no kernel is compiled, kgrade calls the function)
      or {"status": "compile_error" | "rejected", "message": "what is wrong",
          "log": "numba's whole error", "line": N, "column": C}
          (log, line and column when known)

The student's module is imported here (and, in the host form, in a host
job of its own, grader/numba_host.py) and nowhere else: its module-level
code runs in the sandbox. A kernel is a ``@cuda.jit`` function, a
``@vectorize([...], target='cuda')`` ufunc, for which numba's own elementwise
kernel (the one numba launches for it) is compiled over the exercise's arrays,
or a ``@guvectorize([...], layout, target='cuda')`` gufunc, for which numba's
own kernel (``__gufunc_<name>``: one thread per outer element, guarded by the
outer size) is compiled over the exercise's arrays and launched as a
``@cuda.jit`` kernel is, or a ``@cuda.reduce`` reduction, for which numba's
own kernel (gpu_reduce_block_strided) is compiled and kgrade launches it as
numba's Reduce.__call__ does ("reduce").

A kernel must take the form's parameters ("params", the course's names); a
@vectorize ufunc is accepted only for an elementwise form (every parameter
an array of one length, the last its output), takes one input fewer, and
only if numba would launch it on the exercise's arrays (its input types
exactly theirs: numba's rule for a GPU ufunc); a
@guvectorize gufunc only for a form of arrays, the last its only output
("gufunc"), and only if one of its signatures is of the exercise's types and
its layout leaves each array one outer dimension (numba's kernel then takes
the exercise's arrays as they are: for '(i)->()', m[rows, cols] and out[rows]);
a @cuda.reduce only for a form that reduces one array into a one-element
output of its type ("reduce").

A compile error is said at the student's line at fault (in a device function
a kernel calls, that function's line, not the call's), with the source in
Python's line cache so that numba's messages quote it, and kgrade's advice
where it knows what to do (decorate a helper, use math's exp).

Numba 0.56 with CUDA 13's libNVVM needs a few shims (``apply_shims``):
those numba_shims.py holds, which ``kgrade run`` applies too (libNVVM and
libdevice named to numba, the NVVM IR version libNVVM wants, float64 atomic
adds that do not ask a driver), and the front end's own: a forced
compute capability (no driver to ask), line numbers without the debug
build that 0.56's lineinfo makes (line_info_as_nvcc_gives_it), in device
functions too, and kernels compiled for a signature with no device
(kernels_without_a_device: @guvectorize compiles its kernel when the
module runs, and numba would ask a driver for the device's capability and
to load it).
numba_shims.SUPPORTED_NUMBA lists the versions they were written for.
"""

import json
import os
import re
import runpy
import sys
import types


# numba_loader.py, run from its path beside this script (see its docstring).
numba_loader = types.SimpleNamespace(**runpy.run_path(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "numba_loader.py")))
numba_shims = numba_loader.numba_shims

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
    numba_shims.line_info_as_nvcc_gives_it()
    kernels_without_a_device()


def kernels_without_a_device():
    """numba compiles a kernel for a signature (as @guvectorize's builder
    does for its kernel when the student's module runs) for the current
    device's compute capability, then binds it to the current context
    (_Kernel.bind: load the module): both ask a driver. The front end hands
    back PTX and launches nothing: such a kernel is compiled for the forced
    capability and never bound (a launch by the module still fails)."""
    from numba.core import config
    from numba.cuda.codegen import CUDACodeLibrary
    from numba.cuda.dispatcher import _Kernel
    get_ptxes = CUDACodeLibrary._get_ptxes

    def ptxes_for_the_forced_capability(self, cc=None):
        return get_ptxes(self, cc=cc or config.FORCE_CUDA_CC)

    CUDACodeLibrary._get_ptxes = ptxes_for_the_forced_capability
    _Kernel.bind = lambda self: None


def supported_numba():
    """The numba version, or Refused when the shims do not know it."""
    import numba
    version = numba.__version__
    if not numba_shims.is_supported(version):
        raise Refused("numba %s is not one kgrade supports (%s)" %
                      (version, ", ".join(numba_shims.SUPPORTED_NUMBA)))
    return version


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


def kernel_function(namespace, kernel, file_name):
    """The Python function to compile for `kernel` and its kind: a
    @cuda.jit kernel's own function ("kernel"), numba's elementwise kernel
    of a CUDA @vectorize ("vectorized", for an elementwise kernel only),
    numba's kernel of a CUDA @guvectorize ("kernel": gufunc_kernel), or
    numba's kernel of a @cuda.reduce ("reduce": reduce_kernel)."""
    from numba.cuda.dispatcher import CUDADispatcher
    from numba.cuda.kernels.reduction import Reduce
    from numba.cuda.vectorizers import CUDAGenerializedUFunc, CUDAUFuncDispatcher
    name, count = kernel["name"], len(kernel.get("params", []))
    found = namespace.get(name)
    if found is None:
        raise Refused("the module defines no '%s': the exercise asks for %s" %
                      (name, form_text(kernel)))
    if isinstance(found, CUDADispatcher):
        if "params" in kernel:
            check_arity(found.py_func, kernel, count, "the kernel '%s'" % name)
        return found.py_func, "kernel"
    if isinstance(found, CUDAGenerializedUFunc):
        return gufunc_kernel(found, kernel, file_name), "kernel"
    if isinstance(found, Reduce):
        return reduce_kernel(found, kernel), "reduce"
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
        check_ufunc_types(found, kernel)
        function = kernels[0][1].py_func
        return at_the_students_line(function, ufunc_source(function, inputs), file_name), \
            "vectorized"
    raise Refused("'%s' is not a CUDA kernel: decorate it with @cuda.jit, with "
                  "@vectorize([...], target='cuda') or with @guvectorize([...], layout, "
                  "target='cuda')" % name)


# ----------------------- numba's kernels of @guvectorize gufuncs and @vectorize ufuncs

def layout_text(inputs, outputs):
    """A gufunc's layout as the student wrote it: "(i)->()"."""
    def part(shapes):
        return ",".join("(%s)" % ",".join(symbols) for symbols in shapes)
    return "%s->%s" % (part(inputs), part(outputs))


def type_text(dtype, ndim):
    """A type as a signature writes it: "float32[:, :]", "int32"."""
    return str(dtype) + ("[%s]" % ", ".join([":"] * ndim) if ndim else "")


def outer_types(kernel_dispatcher):
    """The types numba compiled a gufunc's kernel for: each of the core's
    arrays with one outer dimension more."""
    return next(iter(kernel_dispatcher.overloads))


def gufunc_core(kernel_dispatcher):
    """The student's function that numba's gufunc kernel calls per element,
    and the types it is compiled for."""
    core = kernel_dispatcher.py_func.__globals__["__core__"]
    return core.py_func, next(iter(core.overloads))


def wrong_types(found, kernel, wanted, layout):
    """Refused: no signature of the gufunc is of the exercise's types. The
    signature to declare has the exercise's types with the layout's core
    dimensions (an output has at least one: numba hands it an array)."""
    engine = found.engine
    declared = " and ".join(
        "(%s)" % ", ".join(type_text(getattr(t, "dtype", t), getattr(t, "ndim", 0))
                           for t in gufunc_core(k)[1])
        for _, k in found.kernelmap.values())
    shapes = list(engine.sin) + list(engine.sout)
    fitting = [type_text(w.dtype, len(symbols) or (1 if i >= engine.nin else 0))
               for i, (symbols, w) in enumerate(zip(shapes, wanted))]
    return Refused("the gufunc '%s' is declared for %s; the exercise's arrays %s are of %s: "
                   "declare it as @guvectorize(['void(%s)'], '%s', target='cuda')" %
                   (kernel["name"], declared or "no types", ", ".join(kernel.get("params") or []),
                    ", ".join(str(w.dtype) for w in wanted), ", ".join(fitting), layout))


def wrong_layout(kernel, wanted, dispatcher, layout, inputs):
    """Refused: the gufunc's arrays do not have the exercise's dimensions."""
    symbols = ["(%s)" % ",".join("ijk"[:w.ndim - 1]) for w in wanted]
    fitting = "%s->%s" % (",".join(symbols[:inputs]), ",".join(symbols[inputs:]))
    return Refused("the gufunc '%s' has the layout '%s': numba runs it one thread per element "
                   "of its arrays' outer dimension, over arrays of %s dimensions; the exercise "
                   "passes %s with %s dimensions: its layout must leave each array one outer "
                   "dimension, as '%s'" %
                   (kernel["name"], layout,
                    ", ".join(str(t.ndim) for t in outer_types(dispatcher)),
                    ", ".join(kernel.get("params") or []),
                    ", ".join(str(w.ndim) for w in wanted), fitting))


def check_ufunc_types(found, kernel):
    """Refused unless numba would launch the @vectorize ufunc `found` on the
    exercise's input arrays: numba's own rule (its UFuncMechanism resolving
    the call), which takes a signature only if its input types are exactly
    the arrays' (numpy's casting='no'); numba's words, and the signature to
    declare: the exercise's types."""
    import numpy as np
    from numba.core import sigutils
    from numba.cuda.vectorizers import CUDAUFuncMechanism
    from numba.np.numpy_support import as_dtype
    wanted = [as_dtype(t.dtype) for t in sigutils.normalize_signature(kernel["signature"])[0]]
    try:
        CUDAUFuncMechanism(found.functions, [np.zeros(1, w) for w in wanted[:-1]]).get_arguments()
    except TypeError as numbas:
        declared = ", ".join(str(t) for t in next(iter(found.functions)))
        names = set(str(w) for w in wanted)
        exact = "%s(%s)" % (wanted[-1], ", ".join(str(w) for w in wanted[:-1]))
        raise Refused("the ufunc '%s' takes (%s); the exercise's arrays %s are %s: declare it as "
                      "@vectorize(['%s'], target='cuda'). numba itself refuses this call: \"%s\"" %
                      (kernel["name"], declared, ", ".join(kernel.get("params") or []),
                       names.pop() if len(names) == 1 else "of " + ", ".join(map(str, wanted)),
                       exact, " ".join(str(numbas).split())))


def gufunc_kernel(found, kernel, file_name):
    """numba's kernel of the CUDA gufunc `found` (__gufunc_<name>: one
    thread per outer element, guarded by the outer size) for its signature
    of the exercise's types, whose arrays have the exercise's dimensions:
    it then takes the exercise's arrays as they are, and is compiled for
    them. Refused for a form that is not arrays (the last the output),
    another number of arrays, other types or other dimensions."""
    from numba.core import sigutils, types
    name, engine = kernel["name"], found.engine
    wanted, _ = sigutils.normalize_signature(kernel["signature"])
    arrays = all(isinstance(t, types.Array) for t in wanted)
    if not kernel.get("gufunc", arrays) or not arrays:
        raise Refused("'%s' must be a @cuda.jit kernel, %s: a @guvectorize gufunc is accepted "
                      "only where every parameter is an array and the last the only output"
                      % (name, form_text(kernel)))
    layout = layout_text(engine.sin, engine.sout)
    if engine.nin + engine.nout != len(wanted):
        raise Refused("the gufunc '%s' must take %d arrays, as in %s, the last its output; its "
                      "layout '%s' takes %d" %
                      (name, len(wanted), form_text(kernel), layout, engine.nin + engine.nout))
    typed = [k for _, k in found.kernelmap.values()
             if [t.dtype for t in outer_types(k)] == [w.dtype for w in wanted]]
    if not typed:
        raise wrong_types(found, kernel, wanted, layout)
    fitting = [k for k in typed if [t.ndim for t in outer_types(k)] == [w.ndim for w in wanted]]
    if not fitting:
        raise wrong_layout(kernel, wanted, typed[0], layout, engine.nin)
    return at_the_students_line(fitting[0].py_func, gufunc_source(fitting[0], engine), file_name)


def gufunc_source(kernel_dispatcher, engine):
    """The text numba compiled a gufunc's kernel from: its template,
    expanded as numba expands it."""
    from numba.cuda import vectorizers
    from numba.np.ufunc import deviceufunc
    core, core_types = gufunc_core(kernel_dispatcher)
    return deviceufunc.expand_gufunc_template(
        vectorizers._gufunc_stager_source, [len(s) for s in engine.sin],
        [len(s) for s in engine.sout], core.__name__, core_types)


def ufunc_source(function, inputs):
    """The text numba compiled a @vectorize ufunc's kernel `function` from."""
    from types import SimpleNamespace
    from numba.cuda import vectorizers
    from numba.np.ufunc import deviceufunc
    core = function.__globals__["__core__"].py_func
    signature = SimpleNamespace(args=[None] * inputs)  # only their number is read
    return deviceufunc.DeviceVectorize._get_kernel_source(
        None, vectorizers.vectorizer_stager_source, signature, core.__name__)


def at_the_students_line(function, source, file_name):
    """numba's kernel `function` of a ufunc or gufunc, compiled again from
    its `source` with every line put on the line of the student's function
    (the kernel's __core__) in their file: numba compiles it from a text of
    its own, whose line numbers would be read as the student's. A fault in
    the student's function (compiled with its lines) is said at its own
    line, one in numba's text at the function's first."""
    import ast
    line = function.__globals__["__core__"].py_func.__code__.co_firstlineno
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if "lineno" in node._attributes:
            node.lineno = node.end_lineno = line
            node.col_offset = node.end_col_offset = 0
    namespace = dict(function.__globals__)
    exec(compile(tree, file_name, "exec"), namespace)
    return namespace[function.__name__]


# ------------------------------------------------------ @cuda.reduce reductions

def reduce_kernel(found, kernel):
    """numba's kernel of the @cuda.reduce `found` (gpu_reduce_block_strided
    of reduction.py, over the student's binary function) for the exercise's
    type, for a form that reduces one array into a one-element output
    ("reduce"): kgrade launches it as numba's Reduce.__call__ does."""
    from numba.core import sigutils
    from numba.cuda.kernels.reduction import _gpu_reduce_factory
    if not kernel.get("reduce", False):
        raise Refused("'%s' is a @cuda.reduce reduction, accepted only where the exercise "
                      "reduces one array into a one-element output; write it as a @cuda.jit "
                      "kernel, %s" % (kernel["name"], form_text(kernel)))
    wanted, _ = sigutils.normalize_signature(kernel["signature"])
    return _gpu_reduce_factory(found._functor, wanted[0].dtype).py_func


def kernel_types(kernel, kind):
    """The types `kernel` of `kind` is compiled for: the form's, or for a
    reduction numba's (arr, partials, init, use_init)."""
    from numba.core import sigutils, types
    args, _ = sigutils.normalize_signature(kernel["signature"])
    return args + (args[0].dtype, types.boolean) if kind == "reduce" else args


def entry_name(ptx):
    """The mangled name of the kernel in `ptx` (numba's changes per compile)."""
    for line in ptx.splitlines():
        words = line.split()
        if ".entry" in words:
            return words[words.index(".entry") + 1].split("(")[0]
    raise Refused("numba produced no kernel")


def without_lines(ptx):
    """`ptx` without its .file and .loc directives."""
    return "\n".join(line for line in ptx.splitlines()
                     if not line.lstrip().startswith((".file", ".loc"))) + "\n"


def compile_kernel(namespace, kernel, cc, file_name):
    """The kernel's PTX and its kind (kernel_function). A reduction's has
    no lines: its kernel is numba's, whose lines in numba's file would be
    read as the student's."""
    from numba import cuda
    pyfunc, kind = kernel_function(namespace, kernel, file_name)
    ptx, _ = cuda.compile_ptx(pyfunc, kernel_types(kernel, kind), lineinfo=True, cc=tuple(cc))
    return (without_lines(ptx) if kind == "reduce" else ptx), kind


def failure(status, message, position=(None, None), log=None):
    result = {"status": status, "message": numba_loader.utf8_cut(message, MESSAGE_MAX)}
    if log:
        result["log"] = numba_loader.utf8_cut(log, LOG_MAX)
    if position[0]:
        result["line"] = position[0]
    if position[1]:
        result["column"] = position[1]
    return result


UNTYPED_GLOBAL = re.compile(r"Untyped global name '([^']+)'")
NUMPY_FUNCTION = re.compile(r"unsupported NumPy function 'numpy\.(\w+)'")


def advice(error, namespace, file_name):
    """What to do about numba's error where kgrade knows: a plain Python
    function of the module called from a kernel ("Untyped global name
    'activate'") is to be decorated as a device function; numpy's function
    where math has one of that name (np.exp, or numpy's exp imported: the
    course's "you will need to modify this import") is math's in a kernel."""
    import math
    import numpy
    text = str(error)
    untyped, numpys = UNTYPED_GLOBAL.search(text), NUMPY_FUNCTION.search(text)
    found = namespace.get(untyped.group(1)) if untyped else None
    if isinstance(found, types.FunctionType) and found.__code__.co_filename == file_name:
        return "decorate '%s' with @cuda.jit(device=True)" % untyped.group(1)
    numpys_name = numpys.group(1) if numpys else \
        found.__name__ if isinstance(found, numpy.ufunc) else None
    if numpys_name and hasattr(math, numpys_name):
        return "a kernel calls math.%s (from math import %s), not numpy's" % (numpys_name,
                                                                            numpys_name)
    return ""


def compile_error(error, namespace, file_name):
    """A compile_error result for `error`, at the student's line at fault;
    one in a function that a kernel calls also names the line of the call."""
    position = numba_loader.error_position(error, file_name)
    message, hint = numba_loader.summary(error), advice(error, namespace, file_name)
    called_at = getattr(getattr(error, "loc", None), "line", None)
    if position[0] and called_at and called_at != position[0]:
        message = "%s (line %d, in the function called at line %d)" % (
            message.rstrip("."), position[0], called_at)
    if hint:
        message = "%s; %s" % (message.rstrip("."), hint)
    return failure("compile_error", message, position, numba_loader.first_lines(error))


def host_function(request, namespace):
    """The exercise's host function (request["numba_host"]["function"])
    when the module defines it as a top-level callable: the module is then
    graded in the host form, by calling it (grader/numba_host.py)."""
    name = (request.get("numba_host") or {}).get("function")
    return name if name and callable(namespace.get(name)) else None


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
    namespace = {}
    try:
        namespace = numba_loader.load_module(request["source"], file_name)
        host = host_function(request, namespace)
        if host:
            return {"status": "ok", "form": "host", "function": host, "numba": version}
        ptx, entries, vectorized, reduce = {}, {}, {}, {}
        for kernel in request["kernels"]:
            name = kernel["name"]
            ptx[name], kind = compile_kernel(namespace, kernel, request.get("cc", [9, 0]),
                                             file_name)
            entries[name] = entry_name(ptx[name])
            vectorized[name], reduce[name] = kind == "vectorized", kind == "reduce"
    except Refused as error:
        return failure("rejected", str(error))
    except Exception as error:  # the student's Python or numba's typing: a compile error
        return compile_error(error, namespace, file_name)
    return {"status": "ok", "ptx": ptx, "entries": entries, "vectorized": vectorized,
            "reduce": reduce, "numba": version}


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
        numba_loader.forbid_exec()
    out = result_file()
    result = compile_request(request, lambda version: on_ready(out, version))
    write_line(out, result)
    numba_loader.exit_now()


if __name__ == "__main__":
    main()
