"""numba 0.56 with CUDA 13's toolkit: the shims that make them work together.

Applied by kgrade's Numba front end (grader/numba_compile.py, which
compiles a student's kernels with no driver at all), by the host job
(grader/numba_host.py: a student's host function on the virtual GPU's
remote driver, in the sandbox) and by `kgrade run`
(server/run_sitecustomize.py: numba's own runtime on the virtual GPU, or
on any CUDA driver). numba 0.56 predates CUDA 13:

- it looks for libNVVM in nvvm/lib64/, where CUDA 13 no longer keeps it
  (it moved to lib64/): libNVVM, libdevice and the toolkit's libraries are
  named to numba directly, and nothing is written;
- it writes NVVM IR version 1.6 into every module, which CUDA 13's libNVVM
  refuses: the version is taken from libNVVM itself;
- its float64 atomic add asks the current context for the device's compute
  capability, which a compile with no driver does not have: every device
  kgrade models is sm_60 or later, which has the native instruction;
- a CUDA @vectorize ufunc's result has the type numba infers for the
  function's body, not the one its signature declares (0.56's
  cuda.jit(sig, device=True) drops it; later numbas keep it): the
  course's normalize, 'float32(float32)' returning grayscales / 255, gave
  float64 arrays, which its weigh, 'float32(float32, float32)', then
  refuses ("GPU ufunc requires array arguments to have the exact
  types"). The declared type is the result's, as in later numbas;
- a CUDA ufunc called on device arrays learns each one's type with
  np.asarray, which copies the whole array to the host: a copy back per
  device-array argument per call, which the course's intended answer
  (ufuncs on device arrays, to keep the data on the device) pays on a real
  GPU as on the virtual one, and which made it no faster than ufuncs on
  host arrays. A device array's type is its dtype, as in later numbas;
- (line_info_as_nvcc_gives_it, applied by the front end and the host job,
  not by `kgrade run`) the PTX carries the source's lines as nvcc's
  -lineinfo gives them, so that a fault names the student's line;
- with a driver, it compiles for the architecture closest to the device's
  in a table keyed by the CUDA runtime's version, which ends at CUDA 11
  (sm_86 at most) and is empty without libcudart (a sandboxed job sees
  only libNVVM and libdevice: "No supported GPU compute capabilities
  found"): it compiles for the device's own, as the front end does for
  the reference's (CUDA 13's libNVVM compiles for sm_75 and later).

These and numba_compile.py's own shims (line numbers, kernels built with
no device) and its reading of numba's ufunc, gufunc and reduction objects,
with grader/numba_reduce.c (numba's launches of a reduction), are the
only code of kgrade that knows numba's internals; SUPPORTED_NUMBA lists
the versions they were written for. The compute capability is not forced here: with a driver,
numba asks it for the device's; the front end, with none, forces its own.
"""

import os

SUPPORTED_NUMBA = ("0.56",)


class ToolkitMissing(Exception):
    """The CUDA toolkit lacks libNVVM or libdevice."""


def find_toolkit_files(cuda_home):
    """libNVVM, libdevice and the library folder of the toolkit at
    `cuda_home`: CUDA 13 keeps libnvvm in lib64/ (numba 0.56 looks in
    nvvm/lib64/)."""
    lib64 = os.path.join(cuda_home, "lib64")
    nvvm = os.path.join(lib64, "libnvvm.so")  # the sandbox shows lib64's libnvvm only
    libdevice = os.path.join(cuda_home, "nvvm", "libdevice")
    try:
        bitcode = sorted(name for name in os.listdir(libdevice) if name.endswith(".bc"))
    except OSError:
        bitcode = []
    if not os.path.exists(nvvm) or not bitcode:
        raise ToolkitMissing("the CUDA toolkit at %s has no libNVVM or libdevice" % cuda_home)
    return nvvm, os.path.join(libdevice, bitcode[-1]), lib64


def is_supported(version):
    """Whether numba `version` ("0.56.4") is one the shims were written for."""
    return version.startswith(SUPPORTED_NUMBA)


def apply(cuda_home):
    """Points numba at the toolkit at `cuda_home` and fixes its NVVM IR
    version and float64 atomic add, writing nothing. Imports numba.cuda;
    anything that must precede that (an environment variable numba's
    config reads) is the caller's. Raises ToolkitMissing."""
    from llvmlite import ir
    from numba.cuda import cuda_paths, nvvmutils
    from numba.cuda.cudadrv import nvvm

    libnvvm, libdevice, lib64 = find_toolkit_files(cuda_home)
    found = cuda_paths._env_path_tuple
    cuda_paths.get_cuda_paths._cached_result = {
        "nvvm": found("kgrade", libnvvm),
        "libdevice": found("kgrade", libdevice),
        "cudalib_dir": found("kgrade", lib64),
    }

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
    ufuncs_of_the_declared_type()
    ufunc_argument_types_without_copies()
    nvvm.find_closest_arch = tuple  # the device's own (major, minor)


def ufuncs_of_the_declared_type():
    """A CUDA @vectorize ufunc's output array of its signature's return
    type: numba's elementwise kernel stores the function's result into it
    (converted, as any store into an array)."""
    from numba.cuda import vectorizers
    compile_core = vectorizers.CUDAVectorize._compile_core

    def compile_core_of_the_declared_type(self, sig):
        function, _ = compile_core(self, sig)
        return function, sig.return_type

    vectorizers.CUDAVectorize._compile_core = compile_core_of_the_declared_type


def ufunc_argument_types_without_copies():
    """A CUDA ufunc's device-array argument's type read from its dtype, not
    from a copy of the array on the host (np.asarray)."""
    import numpy as np
    from numba.np.ufunc import deviceufunc

    def fill_argtypes(self):
        for i, ary in enumerate(self.arrays):
            if ary is not None:
                self.argtypes[i] = (ary.dtype if self.is_device_array(ary)
                                    else np.asarray(ary).dtype)

    deviceufunc.UFuncMechanism._fill_argtypes = fill_argtypes


def line_info_as_nvcc_gives_it():
    """Line numbers in the PTX without changing the code, as nvcc's -lineinfo.
    numba 0.56's lineinfo=True turns on full debug information instead: the
    Python error model (division checks), the kernel's function kept out of
    line and its variables in local memory, and NVVM's debug target: about
    3x the instructions of the kernel a student runs with a plain @cuda.jit.
    Here: numba's own error model (numpy's), line directives only
    (DebugDirectivesOnly), the function inlined into a kernel wrapper that
    has a location of its own (so the inlined lines are kept), no variables,
    and device functions with their lines too (0.56 gives them none, so a
    fault in one was said at its caller's line)."""
    from llvmlite import ir
    from numba.core import debuginfo
    from numba.cuda import compiler, dispatcher
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

    compile_cuda = dispatcher.compile_cuda

    def compile_with_lines(*args, **kwargs):  # device functions too: a gufunc's core
        return compile_cuda(*args, **dict(kwargs, lineinfo=True))

    import warnings
    from numba.core.errors import NumbaDebugInfoWarning
    # a function numba finds no source for (a ufunc's generated kernel, a
    # module run from text) gets no lines: said on stderr for each one
    warnings.filterwarnings("ignore", category=NumbaDebugInfoWarning)
    compiler.CUDAFlags = NumpyErrorModelFlags
    debuginfo.DIBuilder._di_compile_unit = compile_unit
    debuginfo.DIBuilder.mark_subprogram = mark_subprogram
    debuginfo.DIBuilder.mark_variable = lambda *args, **kwargs: None
    CUDATargetContext.generate_kernel_wrapper = kernel_wrapper_with_location
    dispatcher.compile_cuda = compile_with_lines
