"""A small grader in Python for the exercises' Numba forms, for the tests.

It compiles a Numba submission with grader/numba_compile.py for the
signature kgrade derives from exercise.json (as grader/exercise_numba.c
does), compiles the exercise's reference.cu with NVRTC, and runs both on
the virtual GPU (build/emulator/libcuda.so.1) with the exercise's buffers,
scalars and launches: numba's ABI for the submission, C's for the
reference. Buffers sit between guard zones (kgemu_guard), so a write past
an end faults as it does under kgrade; the fault's source line, the
outputs and the modeled time come back.

It is not kgrade's grader (inputs come from numpy, not Philox; no
sandbox): it checks that the exercise data is right before kgrade grades
it, and gives the tests a second, independent reading of every verdict.
"""

import ctypes
import json
import math
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
EXERCISES = os.path.join(ROOT, "exercises")
EMULATOR = os.environ.get("KGRADE_EMULATOR",
                          os.path.join(ROOT, "build", "emulator", "libcuda.so.1"))
NVRTC = os.environ.get("KGRADE_NVRTC", "/usr/local/cuda/lib64/libnvrtc.so")
CUDA_HOME = os.environ.get("CUDA_HOME_FOR_TESTS", "/usr/local/cuda")

sys.path.insert(0, os.path.join(ROOT, "grader"))
import numba_compile  # noqa: E402

NUMPY_TYPES = {"i16": np.int16, "u16": np.uint16, "i32": np.int32, "u32": np.uint32,
               "i64": np.int64, "u64": np.uint64, "f32": np.float32, "f64": np.float64}
NUMBA_TYPES = {"i16": "int16", "u16": "uint16", "i32": "int32", "u32": "uint32",
               "i64": "int64", "u64": "uint64", "f32": "float32", "f64": "float64"}
CTYPES = {"i16": ctypes.c_int16, "u16": ctypes.c_uint16, "i32": ctypes.c_int32,
          "u32": ctypes.c_uint32, "i64": ctypes.c_int64, "u64": ctypes.c_uint64,
          "f32": ctypes.c_float, "f64": ctypes.c_double}
GUARD_BYTES = 256
VECTORIZE_BLOCK = 256  # kgrade's launch of a @vectorize: ceil(n / 256) blocks of 256
CUDA_ERROR_LAUNCH_TIMEOUT = 702


# ------------------------------------------------------------ exercise.json

def exercise_ids():
    return sorted(d for d in os.listdir(EXERCISES)
                  if os.path.isfile(os.path.join(EXERCISES, d, "exercise.json")))


def load(exercise_id):
    with open(os.path.join(EXERCISES, exercise_id, "exercise.json")) as f:
        return json.load(f)


def evaluate(expression, sizes):
    """An exercise expression (sizes, + - * / %, ceil_div, min, max) for
    non-negative values, where C's truncating division is Python's //."""
    text = re.sub(r"(?<![/])/(?![/])", "//", str(expression))
    names = {"ceil_div": lambda a, b: -(-a // b), "min": min, "max": max}
    names.update(sizes)
    return int(eval(text, {"__builtins__": {}}, names))  # exercise data, not user input


def buffer(exercise, name):
    return next((b for b in exercise["buffers"] if b["name"] == name), None)


def scalar(exercise, name):
    return next((s for s in exercise.get("scalars", []) if s["name"] == name), None)


def form_params(kernel):
    """The Numba form's parameters as (name, as, shape or None)."""
    out = []
    for p in kernel["numba"]["params"]:
        if isinstance(p, str):
            out.append((p, p, None))
        else:
            out.append((p["name"], p.get("as", p["name"]), p.get("shape")))
    return out


def numba_signature(exercise, kernel):
    """What grader/exercise_numba.c derives: C-ordered arrays, scalars by type."""
    types = []
    for name, _, shape in form_params(kernel):
        b = buffer(exercise, name)
        if b is None:
            types.append(NUMBA_TYPES[scalar(exercise, name)["type"]])
        else:
            dims = len(shape) if shape else 1
            types.append(NUMBA_TYPES[b["type"]] + ("[:, ::1]" if dims == 2 else "[::1]"))
    return "void(%s)" % ", ".join(types)


def numba_form(kernel):
    return "%s(%s)" % (kernel["numba"]["name"], ", ".join(a for _, a, _ in form_params(kernel)))


def is_elementwise(exercise, kernel):
    """Every parameter a 1-D buffer of one length, the last the only output."""
    params = form_params(kernel)
    buffers = [buffer(exercise, name) for name, _, _ in params]
    if not params or any(b is None for b in buffers) or any(s and len(s) != 1 for _, _, s in params):
        return False
    outputs = [b for b in buffers if "output" in b]
    return (len({b["length"] for b in buffers}) == 1 and outputs == [buffers[-1]])


def cases(exercise, assessed=False):
    return [exercise["assessed"]] if assessed else exercise["correctness"]


# ---------------------------------------------------------------- compiling

def compile_numba(exercise, source, file_name="kernel.py"):
    """numba_compile.py's result for every kernel of the exercise."""
    return numba_compile.compile_request({
        "source": source, "file_name": file_name, "cc": [9, 0], "cuda_home": CUDA_HOME,
        "kernels": [{"name": k["numba"]["name"], "signature": numba_signature(exercise, k),
                     "params": [a for _, a, _ in form_params(k)],
                     "elementwise": is_elementwise(exercise, k)}
                    for k in exercise["kernels"]]})


def compile_cuda(source, name="reference.cu"):
    """PTX of a CUDA C source, by NVRTC (with lineinfo, for sm_90)."""
    nvrtc = ctypes.CDLL(NVRTC)
    prog = ctypes.c_void_p()
    rc = nvrtc.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None,
                                  None)
    if rc:
        raise AssertionError("nvrtcCreateProgram: %d" % rc)
    options = [b"-arch=compute_90", b"-lineinfo"]
    argv = (ctypes.c_char_p * len(options))(*options)
    rc = nvrtc.nvrtcCompileProgram(prog, len(options), argv)
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetProgramLog(prog, log)
    if rc:
        raise AssertionError("%s does not compile: %s" % (name, log.value.decode()))
    nvrtc.nvrtcGetPTXSize(prog, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetPTX(prog, ptx)
    nvrtc.nvrtcDestroyProgram(ctypes.byref(prog))
    return ptx.value.decode()


def c_entry(ptx, name):
    """The entry of kernel `name`: extern "C", or C++-mangled."""
    entries = re.findall(r"\.entry\s+([A-Za-z0-9_$]+)", ptx)
    for entry in entries:
        if entry == name or entry.startswith("_Z%d%s" % (len(name), name)):
            return entry
    raise AssertionError("no kernel %s among %s" % (name, entries))


# ------------------------------------------------------------- virtual GPU

class Fault(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char * 512),
                ("kernel", ctypes.c_char * 128), ("block", ctypes.c_uint * 3),
                ("thread", ctypes.c_uint * 3), ("has_thread", ctypes.c_int),
                ("address", ctypes.c_uint64), ("ptx_line", ctypes.c_int),
                ("over_time_budget", ctypes.c_int), ("source_line", ctypes.c_int),
                ("access_bytes", ctypes.c_uint), ("access_write", ctypes.c_int),
                ("bound_at_stop_ms", ctypes.c_double)]


class Counters(ctypes.Structure):
    _fields_ = [("modeled_ms", ctypes.c_double)]  # the first field; the rest is not read


class VirtualGPU:
    """The driver calls a grading needs, checked."""

    def __init__(self, path=EMULATOR):
        self.cu = ctypes.CDLL(path)
        self.check(self.cu.cuInit(0))
        device, self.context = ctypes.c_int(), ctypes.c_void_p()
        self.check(self.cu.cuDeviceGet(ctypes.byref(device), 0))
        self.check(self.cu.cuCtxCreate_v4(ctypes.byref(self.context), None, 0, device))
        self._check_fault_layout()

    def _check_fault_layout(self):
        import_h = os.path.join(ROOT, "emulator", "kgemu.h")
        with open(import_h) as f:
            text = f.read()
        size = re.search(r"#define KGEMU_MESSAGE_MAX\s+(\d+)", text)
        if size and int(size.group(1)) != 512:
            raise AssertionError("kgemu.h's KGEMU_MESSAGE_MAX changed: update Fault")

    def check(self, rc, what="driver call"):
        if rc != 0:
            raise AssertionError("%s returned CUresult %d" % (what, rc))

    def load(self, ptx):
        module = ctypes.c_void_p()
        self.check(self.cu.cuModuleLoadData(ctypes.byref(module), ptx.encode()), "load")
        return module

    def function(self, module, entry):
        function = ctypes.c_void_p()
        self.check(self.cu.cuModuleGetFunction(ctypes.byref(function), module, entry.encode()))
        return function

    def alloc(self, nbytes):
        """An allocation with guard zones around `nbytes`; the usable address."""
        base = ctypes.c_uint64()
        self.check(self.cu.cuMemAlloc_v2(ctypes.byref(base),
                                         ctypes.c_size_t(nbytes + 2 * GUARD_BYTES)))
        self.check(self.cu.kgemu_guard(ctypes.c_ulonglong(base.value),
                                       ctypes.c_ulonglong(GUARD_BYTES),
                                       ctypes.c_ulonglong(GUARD_BYTES)), "kgemu_guard")
        return base.value, base.value + GUARD_BYTES

    def free(self, base):
        self.check(self.cu.cuMemFree_v2(ctypes.c_uint64(base)))

    def upload(self, pointer, array):
        self.check(self.cu.cuMemcpyHtoD_v2(ctypes.c_uint64(pointer),
                                           array.ctypes.data_as(ctypes.c_void_p),
                                           ctypes.c_size_t(array.nbytes)))

    def download(self, pointer, like):
        out = np.empty_like(like)
        self.check(self.cu.cuMemcpyDtoH_v2(out.ctypes.data_as(ctypes.c_void_p),
                                           ctypes.c_uint64(pointer), ctypes.c_size_t(out.nbytes)))
        return out

    def launch(self, function, grid, block, values):
        """Runs one launch; None, or the fault (a dict) that stopped it."""
        params = (ctypes.c_void_p * len(values))(
            *[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values])
        grid, block = tuple(grid) + (1,) * (3 - len(grid)), tuple(block) + (1,) * (3 - len(block))
        rc = self.cu.cuLaunchKernel(function, *[ctypes.c_uint(x) for x in grid + block],
                                    ctypes.c_uint(0), None, params, None)
        if rc == 0:
            rc = self.cu.cuCtxSynchronize()
        if rc == 0:
            return None
        fault = Fault()
        self.cu.kgemu_last_fault(ctypes.byref(fault))
        return {"code": rc, "message": fault.message.decode(errors="replace"),
                "line": fault.source_line, "thread": tuple(fault.thread),
                "block": tuple(fault.block)}

    def reset(self):
        """A fresh context: a fault is sticky, as on a GPU (what was loaded
        in the old one is gone)."""
        self.cu.cuCtxDestroy_v2(self.context)
        device = ctypes.c_int()
        self.check(self.cu.cuDeviceGet(ctypes.byref(device), 0))
        self.check(self.cu.cuCtxCreate_v4(ctypes.byref(self.context), None, 0, device))

    def modeled_ms(self):
        counters = ctypes.create_string_buffer(4096)  # larger than struct kgemu_counters
        if not self.cu.kgemu_last_counters(counters):
            return 0.0
        return Counters.from_buffer(counters).modeled_ms


# --------------------------------------------------------------- grading

def initial_values(exercise, b, sizes, rng):
    n = evaluate(b["length"], sizes)
    dtype = NUMPY_TYPES[b["type"]]
    if "output" in b:
        if b["output"].get("initial", "poison") == "zero":
            return np.zeros(n, dtype)
        spec = {"distribution": "poison"}
    else:
        spec = b["input"]
    kind, a, bb = spec["distribution"], spec.get("a", 0), spec.get("b", 1)
    if kind == "uniform":
        values = rng.uniform(a, bb, n)
    elif kind == "uniform_int":
        values = rng.integers(int(a), int(bb) + 1, n)
    elif kind == "normal":
        values = rng.normal(a, bb, n)
    elif kind == "constant":
        values = np.full(n, a)
    elif kind == "arange":
        values = a + np.arange(n) * bb
    elif kind == "zero":
        values = np.zeros(n)
    else:  # poison
        if np.issubdtype(dtype, np.floating):
            return np.full(n, np.nan, dtype)
        return np.full(n, np.iinfo(dtype).max // 3 * 2, dtype)
    return values.astype(dtype)


def scalar_value(s, sizes):
    if s["type"] in ("f32", "f64"):
        return CTYPES[s["type"]](float(s["value"]))
    return CTYPES[s["type"]](evaluate(s["value"], sizes))


class Program:
    """A compiled submission or reference: a loaded module and, per C kernel
    name, (function, entry, language, is_vectorize)."""

    def __init__(self, gpu, exercise, ptx_by_kernel, entries, language):
        self.language = language
        self.kernels = {}
        for k in exercise["kernels"]:
            key = k["numba"]["name"] if language == "numba" else k["name"]
            module = gpu.load(ptx_by_kernel[key])
            entry = entries[key]
            self.kernels[k["name"]] = (gpu.function(module, entry), entry,
                                       "__vectorized_" in entry)


def numba_program(gpu, exercise, source, file_name="kernel.py"):
    result = compile_numba(exercise, source, file_name)
    if result["status"] != "ok":
        raise AssertionError("%s: %s" % (result["status"], result.get("message")))
    return Program(gpu, exercise, result["ptx"], result["entries"], "numba")


def reference_ptx(exercise):
    with open(os.path.join(EXERCISES, exercise["id"], "reference.cu")) as f:
        return compile_cuda(f.read())


def reference_program(gpu, exercise, ptx=None):
    ptx = ptx or reference_ptx(exercise)
    return Program(gpu, exercise, {k["name"]: ptx for k in exercise["kernels"]},
                   {k["name"]: c_entry(ptx, k["name"]) for k in exercise["kernels"]}, "cuda")


def run(gpu, exercise, program, sizes, seed=1):
    """Runs the exercise's launches; returns (outputs by buffer name, fault
    or None, modeled milliseconds)."""
    rng = np.random.default_rng(seed)
    host, bases, pointers = {}, [], {}
    for b in exercise["buffers"]:
        host[b["name"]] = initial_values(exercise, b, sizes, rng)
        base, pointer = gpu.alloc(max(host[b["name"]].nbytes, 1))
        bases.append(base)
        pointers[b["name"]] = pointer
        gpu.upload(pointer, host[b["name"]])
    kernels = {k["name"]: k for k in exercise["kernels"]}
    total_ms = 0.0
    for launch in exercise["launches"]:
        kernel = kernels[launch["kernel"]]
        function, _, vectorized = program.kernels[launch["kernel"]]
        grid = [evaluate(g, sizes) for g in launch["grid"]]
        block = [evaluate(b, sizes) for b in launch["block"]]
        if vectorized:
            n = evaluate(buffer(exercise, form_params(kernel)[-1][0])["length"], sizes)
            grid, block = [max(1, -(-n // VECTORIZE_BLOCK))], [VECTORIZE_BLOCK]
        for rep in range(evaluate(launch.get("repeat", 1), sizes)):
            if rep and launch.get("swap"):
                a, b = launch["swap"]
                pointers[a], pointers[b] = pointers[b], pointers[a]
            values = (numba_values(exercise, kernel, pointers, sizes)
                      if program.language == "numba"
                      else c_values(exercise, kernel, pointers, sizes))
            fault = gpu.launch(function, grid, block, values)
            if fault:
                gpu.reset()  # frees every allocation and module with the context
                return {}, fault, total_ms
            total_ms += gpu.modeled_ms()
    outputs = {b["name"]: gpu.download(pointers[b["name"]], host[b["name"]])
               for b in exercise["buffers"] if "output" in b}
    for base in bases:
        gpu.free(base)
    return outputs, None, total_ms


def c_values(exercise, kernel, pointers, sizes):
    values = []
    for name in kernel["params"]:
        if name in pointers:
            values.append(ctypes.c_uint64(pointers[name]))
        else:
            values.append(scalar_value(scalar(exercise, name), sizes))
    return values


def numba_values(exercise, kernel, pointers, sizes):
    """numba's ABI: an array of d dimensions is meminfo, parent, nitems,
    itemsize, data, shape[d], strides[d] (bytes); a scalar is itself."""
    values = []
    for name, _, shape in form_params(kernel):
        b = buffer(exercise, name)
        if b is None:
            values.append(scalar_value(scalar(exercise, name), sizes))
            continue
        dims = [evaluate(d, sizes) for d in shape] if shape else [evaluate(b["length"], sizes)]
        itemsize = np.dtype(NUMPY_TYPES[b["type"]]).itemsize
        strides = [itemsize * (dims[1] if len(dims) == 2 else 1)] + ([itemsize]
                                                                    if len(dims) == 2 else [])
        values += [ctypes.c_uint64(0), ctypes.c_uint64(0), ctypes.c_int64(math.prod(dims)),
                   ctypes.c_int64(itemsize), ctypes.c_uint64(pointers[name])]
        values += [ctypes.c_int64(d) for d in dims] + [ctypes.c_int64(s) for s in strides]
    return values


def mismatches(exercise, expected, actual):
    """(buffer, count of wrong elements, first wrong index) per wrong output."""
    wrong = []
    for b in exercise["buffers"]:
        if "output" not in b:
            continue
        want, got = expected[b["name"]], actual[b["name"]]
        check = b["output"].get("check", "exact")
        if check == "exact":
            bad = ~((want == got) | (np.isnan(want) & np.isnan(got))
                    if np.issubdtype(want.dtype, np.floating) else (want == got))
        elif "value" in check:
            bad = np.zeros(want.shape, bool)
            bad[0] = not abs(float(got[0]) - check["value"]) <= check["tolerance"]
        else:
            w, g = want.astype(np.float64), got.astype(np.float64)
            with np.errstate(invalid="ignore"):
                close = np.abs(g - w) <= check.get("atol", 0) + check.get("rtol", 0) * np.abs(w)
            close |= (w == g)  # equal infinities
            close |= np.isnan(w) & np.isnan(g)
            bad = ~close
        if bad.any():
            wrong.append((b["name"], int(bad.sum()), int(np.argmax(bad))))
    return wrong


def read(path):
    with open(path) as f:
        return f.read()


CUDA_ERROR_ILLEGAL_ADDRESS = 700


def grade(gpu, exercise, source, file_name="kernel.py", assessed=False, ref_ptx=None,
          numba_reference=None):
    """(verdict, detail) as this small grader reads them: compile status,
    then per case a fault (timeout, memory_error, runtime_error) or wrong
    outputs, then the modeled time of the last case against the reference's
    (reference.cu's, or `numba_reference`'s, a reference.py's source)."""
    result = compile_numba(exercise, source, file_name)
    if result["status"] != "ok":
        return result["status"], result
    if numba_reference:
        reference = numba_program(gpu, exercise, numba_reference, "reference.py")
    else:
        reference = reference_program(gpu, exercise, ref_ptx)
    program = Program(gpu, exercise, result["ptx"], result["entries"], "numba")
    ratio = None
    for sizes in cases(exercise, assessed):
        want, fault, ref_ms = run(gpu, exercise, reference, sizes)
        if fault:
            raise AssertionError("the reference faults: %s" % fault)
        got, fault, ms = run(gpu, exercise, program, sizes)
        if fault:
            if fault["code"] == CUDA_ERROR_LAUNCH_TIMEOUT:
                return "timeout", fault
            if fault["code"] == CUDA_ERROR_ILLEGAL_ADDRESS:
                return "memory_error", fault
            return "runtime_error", fault
        wrong = mismatches(exercise, want, got)
        if wrong:
            return "wrong_answer", {"sizes": sizes, "wrong": wrong}
        ratio = ms / ref_ms if ref_ms else None
    if ratio is not None and ratio > exercise["speed"]["max_ratio"]:
        return "too_slow", {"ratio": ratio}
    return "passed", {"ratio": ratio}


def main(argv):
    """numba_exercises.py [--assessed] [--numba-reference] EXERCISE FILE.py...:
    the verdicts, against reference.cu or (--numba-reference) reference.py."""
    assessed = "--assessed" in argv
    against_numba = "--numba-reference" in argv
    args = [a for a in argv if a not in ("--assessed", "--numba-reference")]
    exercise = load(args[0])
    gpu = VirtualGPU()
    ref_ptx = reference_ptx(exercise)
    numba_reference = (read(os.path.join(EXERCISES, args[0], "reference.py"))
                       if against_numba else None)
    for path in args[1:]:
        verdict, detail = grade(gpu, exercise, read(path), os.path.basename(path), assessed,
                                ref_ptx, numba_reference)
        if isinstance(detail, dict):
            detail = {k: v for k, v in detail.items() if k not in ("ptx", "entries")}
        print("%s: %s %s" % (os.path.basename(path), verdict, detail))


if __name__ == "__main__":
    main(sys.argv[1:])
