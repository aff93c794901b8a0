"""The course's Numba kernels, compiled by grader/numba_compile.py, run on
kgrade's virtual GPU with numba's kernel ABI and compute what numpy does.

The driver is build/emulator/libcuda.so.1 (or KGRADE_EMULATOR), called
through ctypes (numba_exercises.VirtualGPU) as the grader calls it through
dlopen. Numba passes each
array as 5 + 2d parameters: meminfo and parent (0 on a device), the item
count, the item size, the data pointer, then the shape and the strides in
bytes; scalars as themselves.
"""

import ctypes
import os
import unittest

import numpy as np

from numba_exercises import EMULATOR, VirtualGPU, numba_compile


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
        cls.gpu = VirtualGPU(EMULATOR)  # numba_exercises.py's, shared by the Numba tests

    def run_kernel(self, source, name, signature, grid, block, args):
        """Launches kernel `name` on `args` (numpy arrays, uploaded and
        passed as numba does, or ctypes scalars, in order); returns the
        arrays as the kernel left them."""
        ptx, entry = compiled(source, name, signature)
        function = self.gpu.function(self.gpu.load(ptx), entry)
        values, pointers = [], []
        for arg in args:
            if isinstance(arg, np.ndarray):
                _, pointer = self.gpu.alloc(arg.nbytes)
                self.gpu.upload(pointer, arg)
                pointers.append((pointer, arg))
                values += array_params(pointer, arg)
            else:
                values.append(arg)
        self.assertIsNone(self.gpu.launch(function, grid, block, values))
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
