"""Tests of grader/numba_compile.py, kgrade's Numba front end: the course's
kernels compile to PTX without a GPU, and a student's mistakes come back
as compile errors at their line or as refusals that say what is expected.

Run with Debian's python3 (python3-numba): python3 -m unittest discover
-s tests/numba (tests/run-tests.sh's numba section)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "grader"))
import numba_compile  # noqa: E402

ARRAYS3 = "void(float32[::1], float32[::1], float32[::1])"

HIDDEN_LAYER = """\
import math
from numba import cuda

@cuda.jit
def hidden_layer(greyscales, weights, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = math.tanh(greyscales[i] / 255.0 * weights[i])
"""


def assert_lines_are(test, ptx, allowed, must):
    """The PTX's file 1 is the student's, and the lines its .loc name there
    (but 0, code of no line) are among `allowed`, `must` one of them."""
    test.assertRegex(ptx, r'\.file\s+1 "[^"]*kernel\.py"')
    locs = [line.split() for line in ptx.splitlines() if line.strip().startswith(".loc")]
    lines = {int(loc[2]) for loc in locs if loc[1] == "1" and loc[2] != "0"}
    test.assertIn(must, lines, "no line of the function's body")
    test.assertTrue(lines <= allowed, lines)


def compile_one(source, name="hidden_layer", signature=ARRAYS3):
    return numba_compile.compile_request({
        "source": source, "file_name": "kernel.py", "cc": [9, 0],
        "cuda_home": os.environ.get("CUDA_HOME_FOR_TESTS", "/usr/local/cuda"),
        "kernels": [{"name": name, "signature": signature}]})


class CompilesTheCourseKernels(unittest.TestCase):
    def test_a_cuda_jit_kernel_becomes_ptx_with_its_entry(self):
        result = compile_one(HIDDEN_LAYER)
        self.assertEqual(result["status"], "ok", result.get("message"))
        ptx, entry = result["ptx"]["hidden_layer"], result["entries"]["hidden_layer"]
        self.assertTrue(".target sm_90" in ptx, "not for sm_90")
        self.assertTrue(".visible .entry " + entry in ptx, "no entry " + entry)
        self.assertIn("hidden_layer", entry)
        self.assertTrue(".loc\t1 8" in ptx, "no line of the kernel's body")  # errors at Python lines
        # numba's ABI: 7 parameters per 1-D array (meminfo, parent, nitems,
        # itemsize, data, shape, stride)
        header = ptx[ptx.index(".visible .entry"):ptx.index(")", ptx.index(".visible .entry"))]
        self.assertEqual(header.count(".param"), 21)

    def test_a_cuda_vectorize_ufunc_compiles_numbas_elementwise_kernel(self):
        source = ("import math\nfrom numba import vectorize\n"
                  "@vectorize(['float32(float32, float32)'], target='cuda')\n"
                  "def hidden_layer(g, w):\n    return math.tanh(g / 255.0 * w)\n")
        result = compile_one(source)
        self.assertEqual(result["status"], "ok", result.get("message"))
        self.assertTrue("__vectorized_hidden_layer" in result["entries"]["hidden_layer"],
                        result["entries"]["hidden_layer"])
        # numba's kernel text is put on the ufunc's line (3): its own lines
        # would be read as the student's
        assert_lines_are(self, result["ptx"]["hidden_layer"], {3, 4, 5}, must=5)

    def test_float64_atomic_add_needs_no_driver(self):
        source = ("from numba import cuda\n@cuda.jit\ndef total(x, out, unused):\n"
                  "    i = cuda.grid(1)\n    if i < x.shape[0]:\n"
                  "        cuda.atomic.add(out, 0, x[i])\n")
        result = compile_one(source, "total", "void(float64[::1], float64[::1], float64[::1])")
        self.assertEqual(result["status"], "ok", result.get("message"))
        self.assertRegex(result["ptx"]["total"], r"atom(\.global)?\.add\.f64", "no atom.add.f64")

    def test_line_numbers_come_without_a_debug_build(self):
        # numba 0.56's lineinfo alone would give NVVM's debug target, the
        # Python error model and an out-of-line function (3x the code)
        ptx = compile_one(HIDDEN_LAYER)["ptx"]["hidden_layer"]
        self.assertNotIn("debug", [line for line in ptx.splitlines() if ".target" in line][0])
        self.assertNotIn("call.uni", ptx)
        self.assertNotIn(".local", ptx)
        self.assertRegex(ptx, r"\.loc\t1 8 ", "no line of the kernel's body")


class SaysWhatIsWrong(unittest.TestCase):
    def test_a_syntax_error_is_a_compile_error_at_its_line(self):
        result = compile_one("from numba import cuda\n\n@cuda.jit\ndef hidden_layer(a, b, c)\n")
        self.assertEqual(result["status"], "compile_error")
        self.assertEqual(result["line"], 4)

    def test_a_typing_error_is_a_compile_error_at_its_line(self):
        source = ("from numba import cuda\n@cuda.jit\ndef hidden_layer(g, w, out):\n"
                  "    i = cuda.grid(1)\n    out[i] = 'text'\n")
        result = compile_one(source)
        self.assertEqual(result["status"], "compile_error")
        self.assertEqual(result.get("line"), 5, result)

    def test_an_exception_at_import_is_a_compile_error_at_its_line(self):
        result = compile_one("from numba import cuda\nx = 1 / 0\n")
        self.assertEqual(result["status"], "compile_error")
        self.assertEqual(result["line"], 2)
        self.assertIn("division by zero", result["message"])

    def test_a_missing_kernel_is_refused_with_its_name(self):
        result = compile_one("from numba import cuda\n")
        self.assertEqual(result["status"], "rejected")
        self.assertIn("no 'hidden_layer'", result["message"])

    def test_a_plain_function_is_refused_with_the_decorators_to_use(self):
        result = compile_one("def hidden_layer(a, b, c):\n    pass\n")
        self.assertEqual(result["status"], "rejected")
        self.assertIn("@cuda.jit", result["message"])

    def test_an_unknown_numba_version_is_said(self):
        import numba
        saved = numba.__version__
        numba.__version__ = "9.99.0"
        try:
            result = compile_one(HIDDEN_LAYER)
        finally:
            numba.__version__ = saved
        self.assertEqual(result["status"], "internal_error")
        self.assertIn("9.99.0", result["message"])

    def test_a_long_message_is_cut_in_bytes_as_kgrade_reads_it(self):
        # kgrade takes at most 400 bytes of message and 8000 of log: a
        # French or Italian error cut at 400 characters was over that
        source = "raise RuntimeError(%r)\n" % ("\u00e9chec " * 200)
        result = compile_one(source)
        self.assertEqual(result["status"], "compile_error")
        self.assertLessEqual(len(result["message"].encode("utf-8")), numba_compile.MESSAGE_MAX)
        self.assertLessEqual(len(result["log"].encode("utf-8")), numba_compile.LOG_MAX)
        self.assertIn("\u00e9chec", result["message"])

    def test_a_ufunc_of_other_types_is_refused_with_numbas_rule_and_the_types_to_declare(self):
        # the course's add_ufunc, int64, for the exercise's float32 arrays:
        # numba refuses to launch it on them (casting='no'), kgrade too,
        # rather than cast them and judge a wrong answer
        source = ("from numba import vectorize\n"
                  "@vectorize(['int64(int64, int64)'], target='cuda')\n"
                  "def hidden_layer(g, w):\n    return g + w\n")
        result = compile_one(source)
        self.assertEqual(result["status"], "rejected", result)
        self.assertIn("GPU ufunc requires array arguments to have the exact types",
                      result["message"])
        self.assertIn("takes (int64, int64)", result["message"])
        self.assertIn("@vectorize(['float32(float32, float32)'], target='cuda')",
                      result["message"])
        # one input of another type is enough; a ufunc whose body numba
        # types as float64 (its result for a float32 signature) is not refused
        mixed = source.replace("int64(int64, int64)", "float32(float32, float64)")
        self.assertIn("takes (float32, float64)", compile_one(mixed)["message"])
        widened = source.replace("int64(int64, int64)", "float32(float32, float32)") \
                        .replace("g + w", "g / 255.0 * w")
        self.assertEqual(compile_one(widened)["status"], "ok")


NUMPY_EXP_IN_A_DEVICE_FUNCTION = """\
import numpy as np
from numba import cuda


@cuda.jit(device=True)
def activate(value):
    return (np.exp(value) - np.exp(-value)) / (np.exp(value) + np.exp(-value))


@cuda.jit
def hidden_layer(greyscales, weights, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = activate(greyscales[i] / 255 * weights[i])
"""


class SaysWhereAndWhatToDo(unittest.TestCase):
    """numba's compile errors at the student's faulty line, with the source
    quoted, and kgrade's advice where it knows what to do."""

    def test_numpys_exp_in_a_device_function_is_said_at_its_line_not_the_call(self):
        result = compile_one(NUMPY_EXP_IN_A_DEVICE_FUNCTION)
        self.assertEqual(result["status"], "compile_error")
        self.assertEqual(result["line"], 7, result)  # np.exp's, not the kernel's call (14)
        self.assertIn("numpy.exp", result["message"])
        self.assertIn("(line 7, in the function called at line 14)", result["message"])
        self.assertIn("math.exp", result["message"])

    def test_numbas_messages_quote_the_students_source(self):
        for source in (NUMPY_EXP_IN_A_DEVICE_FUNCTION,
                       NUMPY_EXP_IN_A_DEVICE_FUNCTION.replace("import numpy as np",
                                                              "from numpy import exp as np_exp")
                       .replace("np.exp", "np_exp")):
            result = compile_one(source)
            self.assertEqual(result["status"], "compile_error")
            self.assertNotIn("source missing", result["log"] + result["message"])
            self.assertRegex(result["log"], r"return \(np[._]exp\(value\)")
            self.assertEqual(result["line"], 7, result)

    def test_an_undecorated_helper_is_to_be_decorated_as_a_device_function(self):
        source = ("import math\nfrom numba import cuda\n\n"
                  "def activate(value):\n    return math.tanh(value)\n\n"
                  "@cuda.jit\ndef hidden_layer(g, w, out):\n    i = cuda.grid(1)\n"
                  "    out[i] = activate(g[i] * w[i])\n")
        result = compile_one(source)
        self.assertEqual(result["status"], "compile_error")
        self.assertEqual(result["line"], 10)
        self.assertIn("Untyped global name 'activate'", result["message"])
        self.assertTrue(result["message"].endswith(
            "; decorate 'activate' with @cuda.jit(device=True)"), result["message"])

    def test_another_untyped_global_keeps_numbas_message_alone(self):
        # a function of another module (os.path's join) is no helper of the
        # student's to decorate, a class no function
        for name, definition in (("join", "from os.path import join"),
                                 ("Helper", "class Helper:\n    pass")):
            source = ("from numba import cuda\n%s\n\n@cuda.jit\n"
                      "def hidden_layer(g, w, out):\n    out[0] = %s(g[0])\n" % (definition, name))
            result = compile_one(source)
            self.assertEqual(result["status"], "compile_error")
            self.assertIn("Untyped global name '%s'" % name, result["message"])
            self.assertNotIn("decorate", result["message"])


L2_NORM = """\
import math
from numba import guvectorize

@guvectorize(['(float32[:], float32[:])'], '(i)->()', target='cuda')
def l2_norm(vec, out):
    acc = 0.0
    for value in vec:
        acc += value**2
    out[0] = math.sqrt(acc)
"""
ROWS = "void(float32[:, ::1], float32[::1])"  # l2_norm(m[rows, cols], out)


def compile_gufunc(source, signature=ROWS, params=("m", "out"), name="l2_norm", gufunc=True):
    return numba_compile.compile_request({
        "source": source, "file_name": "kernel.py", "cc": [9, 0],
        "cuda_home": os.environ.get("CUDA_HOME_FOR_TESTS", "/usr/local/cuda"),
        "kernels": [{"name": name, "signature": signature, "params": list(params),
                     "elementwise": False, "gufunc": gufunc}]})




class CompilesTheCoursesGufuncs(unittest.TestCase):
    """A CUDA @guvectorize gufunc: numba's kernel for it, with no driver
    (numba 0.56 binds the kernel it compiles to a context), over the
    exercise's arrays as they are. A @cuda.reduce: numba's kernel for it,
    for a form that reduces."""

    def test_the_courses_l2_norm_is_numbas_kernel_over_the_exercises_arrays(self):
        result = compile_gufunc(L2_NORM)
        self.assertEqual(result["status"], "ok", result.get("message"))
        self.assertIn("__gufunc_l2_norm", result["entries"]["l2_norm"])
        self.assertFalse(result["vectorized"]["l2_norm"])  # launched as a @cuda.jit kernel
        ptx = result["ptx"]["l2_norm"]
        header = ptx[ptx.index(".visible .entry"):ptx.index(")", ptx.index(".visible .entry"))]
        self.assertEqual(header.count(".param"), 9 + 7)  # a 2-D m, a 1-D out: no extra dimension

    def test_its_lines_are_the_students_own(self):
        # numba's kernel comes from a text of numba's: its lines are put on
        # the gufunc's (4); the function's own lines (6 to 9) are kept
        assert_lines_are(self, compile_gufunc(L2_NORM)["ptx"]["l2_norm"], {4, 5, 6, 7, 8, 9},
                         must=8)

    def test_of_several_signatures_the_exercises_types_are_taken(self):
        source = ("from numba import guvectorize\n"
                  "@guvectorize(['void(int32[:], int32[:])', 'void(float32[:], float32[:])'],"
                  " '(m)->()', target='cuda')\n"
                  "def sum_rows(row, s):\n    tmp = 0.\n    for j in range(row.shape[0]):\n"
                  "        tmp += row[j]\n    s[0] = tmp\n")
        result = compile_gufunc(source, name="sum_rows")
        self.assertEqual(result["status"], "ok", result.get("message"))
        self.assertIn("add.f64", result["ptx"]["sum_rows"])  # float32 rows, float64 total

    def test_other_types_or_none_are_refused_with_the_signature_to_declare(self):
        cases = ((L2_NORM.replace("float32", "float64"), "declared for (float64[:], float64[:])"),
                 (L2_NORM.replace("['(float32[:], float32[:])']", "[]"), "declared for no types"))
        for source, declared in cases:
            with self.subTest(declared=declared):
                result = compile_gufunc(source)
                self.assertEqual(result["status"], "rejected")
                self.assertIn(declared, result["message"])
                self.assertIn("@guvectorize(['void(float32[:], float32[:])'], '(i)->()'",
                              result["message"])

    def test_a_layout_for_the_whole_matrix_is_refused_with_one_that_fits(self):
        source = ("from numba import guvectorize\n"
                  "@guvectorize(['void(float32[:,:], float32[:])'], '(n,m)->(n)', target='cuda')\n"
                  "def l2_norm(A, s):\n    for i in range(A.shape[0]):\n        s[i] = A[i, 0]\n")
        result = compile_gufunc(source)
        self.assertEqual(result["status"], "rejected")
        self.assertIn("'(n,m)->(n)'", result["message"])
        self.assertIn("arrays of 3, 2 dimensions", result["message"])
        self.assertIn("as '(i)->()'", result["message"])

    def test_another_number_of_arrays_is_refused(self):
        result = compile_gufunc(L2_NORM.replace("'(i)->()'", "'(i),()->()'").replace(
            "(float32[:], float32[:])", "(float32[:], float32, float32[:])").replace(
            "(vec, out)", "(vec, unused, out)"))
        self.assertEqual(result["status"], "rejected")
        self.assertIn("must take 2 arrays", result["message"])

    def test_a_cuda_reduce_is_numbas_kernel_for_a_form_that_reduces(self):
        source = ("from numba import cuda\n@cuda.reduce\n"
                  "def reduce_sum(a, b):\n    return a + b\n")
        result = numba_compile.compile_request({
            "source": source, "file_name": "kernel.py", "cc": [9, 0],
            "cuda_home": os.environ.get("CUDA_HOME_FOR_TESTS", "/usr/local/cuda"),
            "kernels": [{"name": "reduce_sum", "signature": "void(float32[::1], float32[::1])",
                         "params": ["x", "out"], "reduce": True}]})
        self.assertEqual(result["status"], "ok", result.get("message"))
        self.assertTrue(result["reduce"]["reduce_sum"])
        self.assertIn("gpu_reduce_block_strided", result["entries"]["reduce_sum"])
        ptx = result["ptx"]["reduce_sum"]
        header = ptx[ptx.index(".visible .entry"):ptx.index(")", ptx.index(".visible .entry"))]
        # numba's (arr, partials, init, use_init): two 1-D arrays, a float32, a boolean
        self.assertEqual(header.count(".param .u64"), 14)
        self.assertEqual([p for p in (".param .f32", ".param .u8") if p in header],
                         [".param .f32", ".param .u8"])
        self.assertNotIn(".loc", ptx)  # numba's lines, in numba's file, are not the student's

    def test_a_cuda_reduce_is_refused_where_the_form_does_not_reduce(self):
        source = ("from numba import cuda\n@cuda.reduce\n"
                  "def l2_norm(a, b):\n    return a + b\n")
        result = compile_gufunc(source)
        self.assertEqual(result["status"], "rejected")
        self.assertIn("accepted only where the exercise reduces one array", result["message"])
        self.assertIn("@cuda.jit kernel, l2_norm(m, out)", result["message"])

    def test_a_form_that_is_not_arrays_is_refused(self):
        result = compile_gufunc(L2_NORM, signature="void(float32[:, ::1], float32[::1], int32)",
                                params=("m", "out", "n"), gufunc=False)
        self.assertEqual(result["status"], "rejected")
        self.assertIn("must be a @cuda.jit kernel", result["message"])


HOST_FORM = {"function": "create_hidden_layer"}
COURSE_HOST_ANSWER = os.path.join(os.path.dirname(__file__), "..", "..", "exercises",
                                  "hidden-layer", "solutions", "passed__course_host_answer.py")


def compile_host_form(source, numba_host=HOST_FORM):
    request = {"source": source, "file_name": "kernel.py", "cc": [9, 0],
               "cuda_home": os.environ.get("CUDA_HOME_FOR_TESTS", "/usr/local/cuda"),
               "kernels": [{"name": "hidden_layer", "signature": ARRAYS3}]}
    if numba_host:
        request["numba_host"] = numba_host
    return numba_compile.compile_request(request)


class TellsTheHostForm(unittest.TestCase):
    """An exercise that declares a host form ("numba_host") and a module
    that defines its function: the module is graded by calling it."""

    def test_the_courses_answer_is_the_host_form_with_no_kernel_compiled(self):
        with open(COURSE_HOST_ANSWER) as f:
            result = compile_host_form(f.read())
        self.assertEqual(result["status"], "ok", result.get("message"))
        self.assertEqual((result["form"], result["function"]), ("host", "create_hidden_layer"))
        self.assertNotIn("ptx", result)
        self.assertTrue(result["numba"].startswith("0."))

    def test_a_module_without_the_function_is_the_kernel_form(self):
        result = compile_host_form(HIDDEN_LAYER)
        self.assertEqual(result["status"], "ok", result.get("message"))
        self.assertNotIn("form", result)
        self.assertIn("hidden_layer", result["ptx"])

    def test_without_a_declared_host_form_the_function_is_not_called(self):
        source = HIDDEN_LAYER + "\n\ndef create_hidden_layer(*arguments):\n    pass\n"
        result = compile_host_form(source, numba_host=None)
        self.assertNotIn("form", result)
        self.assertIn("hidden_layer", result["ptx"])

    def test_a_name_that_is_not_callable_is_not_the_host_form(self):
        result = compile_host_form(HIDDEN_LAYER + "create_hidden_layer = 3\n")
        self.assertNotIn("form", result)

    def test_a_ufunc_that_does_not_compile_is_said_at_its_line(self):
        source = ("from numba import vectorize\n\n"
                  "@vectorize(['float32(float32)'], target='cuda')\n"
                  "def normalize(x):\n    return x + 'a'\n\n"
                  "def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, "
                  "activate):\n    return normalize(greyscales)\n")
        result = compile_host_form(source)
        self.assertEqual(result["status"], "compile_error")
        self.assertEqual(result["line"], 5)


if __name__ == "__main__":
    unittest.main()
