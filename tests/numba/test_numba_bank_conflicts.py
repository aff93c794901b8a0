"""A Numba kernel's shared-memory bank conflicts cost what a C kernel's do.

numba reaches a cuda.shared.array by generic loads and stores of a
cvta.shared's address where NVRTC writes ld.shared and st.shared: the
virtual GPU must count the same banks and wavefronts for both, and charge
them the same shared-pipe time. The transpose exercise's tiles in both
languages (exercises/transpose: the 32 x 33 references and the 32 x 32
tiles whose column reads are 32-way conflicts) run on the virtual GPU:
each Numba tile has the shared requests, wavefronts, worst conflict and
shared time of its C twin, and the conflicted Numba tile is as much slower
than the padded one as tests/gpu/test_timing.c asks of the C pair.

Run with Debian's python3 (python3-numba): python3 -m unittest discover
-s tests/numba (tests/run-tests.sh's numba section)."""

import ctypes
import os
import unittest

import numpy as np

from numba_exercises import (CUDA_HOME, EMULATOR, EXERCISES, VirtualGPU, compile_numba, load,
                             read)

SIZE = 4096  # rows and cols: tiles on every SM many times over, seconds to run
BLOCK = (32, 8)
# tests/gpu/test_timing.c's bound for the C pair at this size
CONFLICTED_OVER_PADDED_MIN = 1.4
SOLUTIONS = os.path.join(EXERCISES, "transpose", "solutions")
PAIRS = [  # (Numba, C): the padded tile, then the 32 x 32 one
    (os.path.join(SOLUTIONS, "passed__padded_tile.py"),
     os.path.join(EXERCISES, "transpose", "reference.cu")),
    (os.path.join(SOLUTIONS, "too_slow__bank_conflicts.py"),
     os.path.join(SOLUTIONS, "too_slow__bank_conflicts.cu")),
]
NUMBA_ARRAY_FIELDS = 9  # meminfo, parent, nitems, itemsize, data, 2 shapes, 2 strides
NVRTC_OPTIONS = [b"-arch=compute_90", b"-lineinfo"]


def nvrtc_ptx(source):
    """NVRTC's PTX of a CUDA C source, as the grader compiles it."""
    nvrtc = ctypes.CDLL(os.path.join(CUDA_HOME, "lib64", "libnvrtc.so"))
    program = ctypes.c_void_p()
    if nvrtc.nvrtcCreateProgram(ctypes.byref(program), source.encode(), b"kernel.cu", 0, None,
                                None):
        raise AssertionError("nvrtcCreateProgram failed")
    options = (ctypes.c_char_p * len(NVRTC_OPTIONS))(*NVRTC_OPTIONS)
    status = nvrtc.nvrtcCompileProgram(program, len(NVRTC_OPTIONS), options)
    size = ctypes.c_size_t()
    if status:
        nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        nvrtc.nvrtcGetProgramLog(program, log)
        raise AssertionError(log.value.decode(errors="replace"))
    nvrtc.nvrtcGetPTXSize(program, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetPTX(program, ptx)
    nvrtc.nvrtcDestroyProgram(ctypes.byref(program))
    return ptx.value.decode()


def numba_array(pointer, array):
    """numba's 9 parameters of a C-ordered 2-D device array."""
    return ([ctypes.c_uint64(0), ctypes.c_uint64(0), ctypes.c_int64(array.size),
             ctypes.c_int64(array.itemsize), ctypes.c_uint64(pointer)] +
            [ctypes.c_int64(d) for d in array.shape] +
            [ctypes.c_int64(s) for s in array.strides])


@unittest.skipUnless(os.path.exists(EMULATOR), "no virtual GPU built at " + EMULATOR)
class BankConflictsCostTheSameInNumbaAndC(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.gpu = VirtualGPU(EMULATOR)
        cls.a = np.random.default_rng(7).uniform(-1, 1, (SIZE, SIZE)).astype(np.float32)
        cls.input = cls.gpu.alloc(cls.a.nbytes)[1]
        cls.gpu.upload(cls.input, cls.a)
        cls.output = cls.gpu.alloc(cls.a.nbytes)[1]
        cls.counters = {}
        for numba_path, c_path in PAIRS:
            cls.counters[numba_path] = cls.launch_numba(numba_path)
            cls.counters[c_path] = cls.launch_c(c_path)

    @classmethod
    def launch(cls, function, values):
        """Launches one transpose over the whole matrix; its counters, and
        whether it transposed (into an output cleared first)."""
        cls.gpu.upload(cls.output, np.zeros_like(cls.a))
        fault = cls.gpu.launch(function, [SIZE // BLOCK[0], SIZE // BLOCK[0]], list(BLOCK), values)
        if fault:
            raise AssertionError(fault)
        counters = cls.gpu.counters()
        got = cls.gpu.download(cls.output, cls.a)
        return counters, np.array_equal(got, cls.a.T)

    @classmethod
    def launch_numba(cls, path):
        result = compile_numba(load("transpose"), read(path))
        if result["status"] != "ok":
            raise AssertionError(result)
        function = cls.gpu.function(cls.gpu.load(result["ptx"]["tile_transpose"]),
                                    result["entries"]["tile_transpose"])
        cls.gpu.check(cls.gpu.cu.kgemu_compile(function), "kgemu_compile")  # as the grader does
        values = numba_array(cls.input, cls.a) + numba_array(cls.output, cls.a)  # square
        assert len(values) == 2 * NUMBA_ARRAY_FIELDS
        return cls.launch(function, values)

    @classmethod
    def launch_c(cls, path):
        function = cls.gpu.function(cls.gpu.load(nvrtc_ptx(read(path))), "transpose")
        cls.gpu.check(cls.gpu.cu.kgemu_compile(function), "kgemu_compile")
        values = [ctypes.c_uint64(cls.input), ctypes.c_uint64(cls.output), ctypes.c_int(SIZE),
                  ctypes.c_int(SIZE)]
        return cls.launch(function, values)

    def test_every_tile_transposes(self):
        for path, (_, transposed) in self.counters.items():
            self.assertTrue(transposed, os.path.basename(path))

    def test_numbas_generic_accesses_count_the_banks_ld_shared_does(self):
        for numba_path, c_path in PAIRS:
            numba, c = self.counters[numba_path][0], self.counters[c_path][0]
            for field in ("shared_requests", "shared_wavefronts", "worst_bank_conflict_ways",
                          "shared_ms"):
                self.assertEqual(getattr(numba, field), getattr(c, field),
                                 "%s of %s and %s" % (field, os.path.basename(numba_path),
                                                      os.path.basename(c_path)))

    def test_a_column_of_the_32_by_32_tile_is_32_wavefronts(self):
        padded, conflicted = (self.counters[numba][0] for numba, _ in PAIRS)
        self.assertEqual(padded.worst_bank_conflict_ways, 1)
        self.assertEqual(padded.shared_wavefronts, padded.shared_requests)
        # a row written (1 wavefront) for each column read (32)
        self.assertEqual(conflicted.worst_bank_conflict_ways, 32)
        self.assertEqual(2 * conflicted.shared_wavefronts, 33 * conflicted.shared_requests)
        self.assertEqual(conflicted.limiter, b"shared")

    def test_the_conflicted_numba_tile_is_slower_as_the_c_one_is(self):
        padded, conflicted = (self.counters[numba][0].modeled_ms for numba, _ in PAIRS)
        self.assertGreaterEqual(conflicted, CONFLICTED_OVER_PADDED_MIN * padded,
                                "32 x 32 tile %.4f ms, 32 x 33 tile %.4f ms" % (conflicted, padded))


if __name__ == "__main__":
    unittest.main()
