"""The exercises' Numba forms and the virtual GPU, for the Numba tests.

It reads exercise.json's Numba forms, derives the signature and the
elementwise rule as an independent reading of grader/exercise_numba.c and
grader/numba_front.c, compiles a Numba source with grader/numba_compile.py
for them, and drives the virtual GPU (build/emulator/libcuda.so.1) through
ctypes, with guard zones around allocations (kgemu_guard) and the fault a
launch ends with. Grading itself is kgrade's: every solution's verdict is
checked by tests/integration/test_grade.sh and tests/full/test_numba_solutions.sh.
"""

import ctypes
import json
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
EXERCISES = os.path.join(ROOT, "exercises")
# Absolute: a test's child process may run in another folder.
EMULATOR = os.path.abspath(os.environ.get("KGRADE_EMULATOR",
                                          os.path.join(ROOT, "build", "emulator", "libcuda.so.1")))
CUDA_HOME = os.environ.get("CUDA_HOME_FOR_TESTS", "/usr/local/cuda")

sys.path.insert(0, os.path.join(ROOT, "grader"))
import numba_compile  # noqa: E402

NUMBA_TYPES = {"i16": "int16", "u16": "uint16", "i32": "int32", "u32": "uint32",
               "i64": "int64", "u64": "uint64", "f32": "float32", "f64": "float64"}
GUARD_BYTES = 256


# ------------------------------------------------------------ exercise.json

def exercise_ids():
    return sorted(d for d in os.listdir(EXERCISES)
                  if os.path.isfile(os.path.join(EXERCISES, d, "exercise.json")))


def load(exercise_id):
    with open(os.path.join(EXERCISES, exercise_id, "exercise.json")) as f:
        return json.load(f)


def read(path):
    with open(path) as f:
        return f.read()


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


def is_gufunc_form(exercise, kernel):
    """Every parameter a buffer, the last the only output."""
    buffers = [buffer(exercise, name) for name, _, _ in form_params(kernel)]
    if len(buffers) < 2 or any(b is None for b in buffers):
        return False
    return [b for b in buffers if "output" in b] == [buffers[-1]]


def is_reduction_form(exercise, kernel):
    """A 1-D input, then a one-element output of its type."""
    params = form_params(kernel)
    if len(params) != 2 or not is_gufunc_form(exercise, kernel) or len(params[0][2] or [0]) != 1:
        return False
    source, total = (buffer(exercise, name) for name, _, _ in params)
    return source["type"] == total["type"] and str(total["length"]) == "1"


def is_elementwise(exercise, kernel):
    """Every parameter a 1-D buffer of one length, the last the only output."""
    params = form_params(kernel)
    if not is_gufunc_form(exercise, kernel) or any(s and len(s) != 1 for _, _, s in params):
        return False
    return len({buffer(exercise, name)["length"] for name, _, _ in params}) == 1


# ---------------------------------------------------------------- compiling

def host_function(exercise):
    """The name of the exercise's host-form function ("numba_host"), or None."""
    return exercise.get("numba_host", {}).get("function")


def is_host_form(exercise, source):
    """Whether a module is graded in the exercise's host form: it defines
    the host function at its top level (as numba_compile.py decides, by
    importing it; a solution's plain `def` is enough here)."""
    name = host_function(exercise)
    return name is not None and re.search(r"^def %s\(" % re.escape(name), source, re.M) is not None


def compile_numba(exercise, source, file_name="kernel.py"):
    """numba_compile.py's result for every kernel of the exercise, with
    its host form when it declares one (as grader/numba_front.c asks)."""
    request = {
        "source": source, "file_name": file_name, "cc": [9, 0], "cuda_home": CUDA_HOME,
        "kernels": [{"name": k["numba"]["name"], "signature": numba_signature(exercise, k),
                     "params": [a for _, a, _ in form_params(k)],
                     "elementwise": is_elementwise(exercise, k),
                     "gufunc": is_gufunc_form(exercise, k),
                     "reduce": is_reduction_form(exercise, k)}
                    for k in exercise["kernels"]]}
    if host_function(exercise):
        request["numba_host"] = {"function": host_function(exercise)}
    return numba_compile.compile_request(request)


# ------------------------------------------------------------- virtual GPU

class Fault(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char * 512),
                ("kernel", ctypes.c_char * 128), ("block", ctypes.c_uint * 3),
                ("thread", ctypes.c_uint * 3), ("has_thread", ctypes.c_int),
                ("address", ctypes.c_uint64), ("ptx_line", ctypes.c_int),
                ("over_time_budget", ctypes.c_int), ("source_line", ctypes.c_int),
                ("access_bytes", ctypes.c_uint), ("access_write", ctypes.c_int),
                ("bound_at_stop_ms", ctypes.c_double), ("buffer", ctypes.c_uint64)]


class Counters(ctypes.Structure):
    """struct kgemu_counters (emulator/kgemu.h), whole."""
    _fields_ = ([(name, ctypes.c_double) for name in
                 ("modeled_ms", "issue_ms", "lsu_ms", "shared_ms", "latency_ms", "l2_ms",
                  "dram_ms", "atomic_ms", "overhead_ms")] +
                [("limiter", ctypes.c_char * 16), ("warp_instructions", ctypes.c_uint64 * 7)] +
                [(name, ctypes.c_uint64) for name in
                 ("global_requests", "global_sectors", "dram_read_bytes", "dram_write_bytes",
                  "shared_requests", "shared_wavefronts", "global_atomics",
                  "max_same_address_atomics")] +
                [(name, ctypes.c_int) for name in
                 ("blocks_per_sm", "registers_per_thread", "registers_exact",
                  "worst_bank_conflict_ways", "worst_bank_conflict_line",
                  "worst_sectors_per_request", "worst_sectors_line", "lines_are_source")] +
                [(name, ctypes.c_uint64) for name in
                 ("blocks_total", "blocks_complete", "compiled_instructions",
                  "interpreted_instructions")])


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

    def counters(self):
        """The last launch's counters (kgemu_last_counters), or None."""
        counters = Counters()
        return counters if self.cu.kgemu_last_counters(ctypes.byref(counters)) else None

    def modeled_ms(self):
        counters = self.counters()
        return counters.modeled_ms if counters else 0.0
