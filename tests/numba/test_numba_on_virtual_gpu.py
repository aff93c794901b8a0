"""The course's Numba kernels, compiled by grader/numba_compile.py, run on
kgrade's virtual GPU with numba's kernel ABI and compute what numpy does.

The driver is build/emulator/libcuda.so.1 (or KGRADE_EMULATOR), called
through ctypes as the grader calls it through dlopen. Numba passes each
array as 5 + 2d parameters: meminfo and parent (0 on a device), the item
count, the item size, the data pointer, then the shape and the strides in
bytes; scalars as themselves.
"""

import ctypes
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "grader"))
import numba_compile  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
EMULATOR = os.environ.get("KGRADE_EMULATOR",
                          os.path.join(ROOT, "build", "emulator", "libcuda.so.1"))


class VirtualGPU:
    """The few driver calls a launch needs, checked."""

    def __init__(self, path):
        self.cu = ctypes.CDLL(path)
        self.check(self.cu.cuInit(0))
        device, self.context = ctypes.c_int(), ctypes.c_void_p()
        self.check(self.cu.cuDeviceGet(ctypes.byref(device), 0))
        self.check(self.cu.cuCtxCreate_v4(ctypes.byref(self.context), None, 0, device))

    def check(self, rc, what="driver call"):
        if rc != 0:
            raise AssertionError("%s returned CUresult %d" % (what, rc))

    def load(self, ptx, entry):
        module, function = ctypes.c_void_p(), ctypes.c_void_p()
        self.check(self.cu.cuModuleLoadData(ctypes.byref(module), ptx.encode()), "load")
        self.check(self.cu.cuModuleGetFunction(ctypes.byref(function), module, entry.encode()))
        return function

    def upload(self, array):
        pointer = ctypes.c_uint64()
        self.check(self.cu.cuMemAlloc_v2(ctypes.byref(pointer), ctypes.c_size_t(array.nbytes)))
        self.check(self.cu.cuMemcpyHtoD_v2(pointer, array.ctypes.data_as(ctypes.c_void_p),
                                           ctypes.c_size_t(array.nbytes)))
        return pointer.value

    def download(self, pointer, like):
        out = np.empty_like(like)
        self.check(self.cu.cuMemcpyDtoH_v2(out.ctypes.data_as(ctypes.c_void_p),
                                           ctypes.c_uint64(pointer), ctypes.c_size_t(out.nbytes)))
        return out

    def launch(self, function, grid, block, values):
        """`values`: ctypes scalars, one per kernel parameter, in order."""
        params = (ctypes.c_void_p * len(values))(
            *[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values])
        grid, block = tuple(grid) + (1,) * (3 - len(grid)), tuple(block) + (1,) * (3 - len(block))
        self.check(self.cu.cuLaunchKernel(function, *[ctypes.c_uint(x) for x in grid + block],
                                          ctypes.c_uint(0), None, params, None), "launch")
        self.check(self.cu.cuCtxSynchronize(), "the kernel")


def array_params(pointer, array):
    """numba's parameters for a C-ordered device array."""
    values = [ctypes.c_uint64(0), ctypes.c_uint64(0), ctypes.c_int64(array.size),
              ctypes.c_int64(array.itemsize), ctypes.c_uint64(pointer)]
    values += [ctypes.c_int64(d) for d in array.shape]
    values += [ctypes.c_int64(s) for s in array.strides]
    return values


def compiled(source, name, signature):
    result = numba_compile.compile_request({
        "source": source, "file_name": "kernel.py", "cc": [9, 0],
        "kernels": [{"name": name, "signature": signature}]})
    if result["status"] != "ok":
        raise AssertionError(result)
    return result["ptx"][name], result["entries"][name]


@unittest.skipUnless(os.path.exists(EMULATOR), "no virtual GPU built at " + EMULATOR)
class CourseKernelsRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.gpu = VirtualGPU(EMULATOR)

    def run_kernel(self, source, name, signature, grid, block, args):
        """Launches kernel `name` on `args` (numpy arrays, uploaded and
        passed as numba does, or ctypes scalars, in order); returns the
        arrays as the kernel left them."""
        ptx, entry = compiled(source, name, signature)
        function = self.gpu.load(ptx, entry)
        values, pointers = [], []
        for arg in args:
            if isinstance(arg, np.ndarray):
                pointers.append((self.gpu.upload(arg), arg))
                values += array_params(pointers[-1][0], arg)
            else:
                values.append(arg)
        self.gpu.launch(function, grid, block, values)
        return [self.gpu.download(p, a) for p, a in pointers]

    def test_hidden_layer(self):
        source = ("import math\nfrom numba import cuda\n@cuda.jit\n"
                  "def hidden_layer(greyscales, weights, out):\n"
                  "    i = cuda.grid(1)\n"
                  "    if i < out.shape[0]:\n"
                  "        out[i] = math.tanh(greyscales[i] / 255.0 * weights[i])\n")
        n = 10007
        rng = np.random.default_rng(1)
        g = rng.integers(0, 255, n).astype(np.float32)
        w = rng.normal(0.5, 0.1, n).astype(np.float32)
        out = np.zeros(n, np.float32)
        _, _, got = self.run_kernel(source, "hidden_layer",
                                    "void(float32[::1], float32[::1], float32[::1])",
                                    [(n + 255) // 256], [256], [g, w, out])
        want = np.tanh(g.astype(np.float64) / 255.0 * w.astype(np.float64))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

    def test_histogram_with_shared_atomics(self):
        source = ("from numba import cuda, int32\n@cuda.jit\n"
                  "def cuda_histogram(x, xmin, xmax, histogram_out):\n"
                  "    bins = cuda.shared.array(10, int32)\n"
                  "    if cuda.threadIdx.x < 10:\n"
                  "        bins[cuda.threadIdx.x] = 0\n"
                  "    cuda.syncthreads()\n"
                  "    nbins = histogram_out.shape[0]\n"
                  "    width = (xmax - xmin) / nbins\n"
                  "    start, stride = cuda.grid(1), cuda.gridsize(1)\n"
                  "    for i in range(start, x.shape[0], stride):\n"
                  "        b = int32((x[i] - xmin) / width)\n"
                  "        if b >= 0 and b < nbins:\n"
                  "            cuda.atomic.add(bins, b, 1)\n"
                  "    cuda.syncthreads()\n"
                  "    if cuda.threadIdx.x < nbins:\n"
                  "        cuda.atomic.add(histogram_out, cuda.threadIdx.x, bins[cuda.threadIdx.x])\n")
        n = 50000
        x = np.random.default_rng(2).normal(0, 1, n).astype(np.float32)
        hist = np.zeros(10, np.int32)
        _, got = self.run_kernel(source, "cuda_histogram",
                                 "void(float32[::1], float32, float32, int32[::1])", [32], [128],
                                 [x, ctypes.c_float(-4.0), ctypes.c_float(4.0), hist])
        width = np.float32(8.0) / np.float32(10)
        b = ((x - np.float32(-4.0)) / width).astype(np.int32)
        want = np.bincount(b[(b >= 0) & (b < 10)], minlength=10).astype(np.int32)
        np.testing.assert_array_equal(got, want)

    def test_tile_transpose_through_shared_memory(self):
        source = ("from numba import cuda, float32\nTILE = 32\n@cuda.jit\n"
                  "def tile_transpose(a, transposed):\n"
                  "    tile = cuda.shared.array((32, 33), float32)\n"
                  "    x = cuda.blockIdx.x * TILE + cuda.threadIdx.x\n"
                  "    y = cuda.blockIdx.y * TILE + cuda.threadIdx.y\n"
                  "    if y < a.shape[0] and x < a.shape[1]:\n"
                  "        tile[cuda.threadIdx.y, cuda.threadIdx.x] = a[y, x]\n"
                  "    cuda.syncthreads()\n"
                  "    x = cuda.blockIdx.y * TILE + cuda.threadIdx.x\n"
                  "    y = cuda.blockIdx.x * TILE + cuda.threadIdx.y\n"
                  "    if y < transposed.shape[0] and x < transposed.shape[1]:\n"
                  "        transposed[y, x] = tile[cuda.threadIdx.x, cuda.threadIdx.y]\n")
        rows, cols = 100, 70
        a = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
        t = np.zeros((cols, rows), np.float32)
        _, got = self.run_kernel(source, "tile_transpose",
                                 "void(float32[:, ::1], float32[:, ::1])",
                                 [(cols + 31) // 32, (rows + 31) // 32], [32, 32], [a, t])
        np.testing.assert_array_equal(got, a.T)


if __name__ == "__main__":
    unittest.main()
