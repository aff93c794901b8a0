"""What the Python client prints and draws for a result.

The terminal report and --json against `kgrade submit` itself: both
commands submit to one scripted server that answers the same crafted
results (a compile error with a tab and UTF-8 before its column, a memory
error at a line, a time that is a lower bound over medians, 25 lines of
kernel output, fields missing, reals jansson writes its own way), and
their standard output, standard error and exit code must be the same
bytes. Needs build/kgrade (or $KGRADE); skipped without it.

The notebook's HTML (html_report.py): the verdict in its colour, the
lines quoted from the cell, the first wrong element, the time, the link to
the submission's page, and every text from the server or the cell escaped
(a `<script>` in a message, an exercise name or the cell is text).

    PYTHONPATH=clients/python python3 tests/python/test_report.py
"""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
sys.path.insert(0, HERE)

from fixture_server import Answer, FixtureServer  # noqa: E402
from kgrade_client.html_report import error_html, progress_html, result_html  # noqa: E402
from kgrade_client.json_text import dump  # noqa: E402

KGRADE = os.environ.get("KGRADE") or os.path.join(ROOT, "build", "kgrade")
SOURCE = ('extern "C" __global__ void vector_add(const float *a, float *c, int n)\n'
          "{\n\tint é = threadIdx.x; /* <script>alert(1)</script> */\n"
          "    c[é] = a[é] + q;\r\n}\n")
DEVICE = {"name": "kgrade virtual H100 (emulated)", "emulated": True, "toolkit": "13.0"}

COMPILE_ERROR = {
    "exercise": "tiny-add", "verdict": "compile_error", "assessment": True, "seed": "42",
    "message": "1 compile error; the first, at line 4: identifier \"q\" is undefined",
    "device": DEVICE,
    "compile": {"ok": False, "diagnostics": [
        {"line": 4, "column": 22, "severity": "error", "message": "identifier \"q\" is undefined"},
        {"line": 3, "column": 9, "severity": "warning", "message": "tab and é before me"},
        {"severity": "error", "message": "no line"},
        {"line": 99, "column": 1, "severity": "error", "message": "past the end"}]},
    "performance": {"student_ms": None}, "diagnostics": [], "output": ""}
MEMORY_ERROR = {
    "exercise": "tiny-add", "verdict": "memory_error", "assessment": True, "seed": "7",
    "message": "with n = 100: thread (100,0,0) of block (0,0,0) read a[100] (line 4)",
    "device": DEVICE, "compile": {"ok": True, "diagnostics": []},
    "correctness": {"passed": False, "cases": [{"sizes": {"n": 100}, "passed": False}]},
    "performance": {"student_ms": None, "ratio": None, "max_ratio": 1.25},
    "diagnostics": [{"kind": "memory", "message": "read 4 bytes (line 4)", "line": 4,
                     "block": [0, 0, 0], "thread": [100, 0, 0]},
                    {"kind": "memory", "message": "no line"}],
    "output": "\n".join("line %d <b>" % i for i in range(25)) + "\n"}
TOO_SLOW = {
    "exercise": "tiny-add", "verdict": "too_slow", "assessment": False, "seed": "1",
    "message": "correct but slow", "device": DEVICE,
    "performance": {"student_ms": 0.0123456, "reference_ms": 1e-5, "ratio": 1234.5,
                    "max_ratio": 1.25, "lower_bound": True, "estimated": False,
                    "timing": {"runs": 9}, "counters": {"big": 12345678901234, "tiny": 1e-300,
                                                         "whole": 3.0, "neg": -0.5}},
    "output": "ctrl \u0001 and \u001f, tab\t, quote \" and \\ and /, é, \u2028"}
WRONG = {
    "exercise": "tiny-add", "verdict": "wrong_answer", "assessment": True, "seed": "3",
    "message": "100 of 100 elements of 'c' are wrong", "device": DEVICE,
    "correctness": {"passed": False, "cases": [
        {"sizes": {"n": 100}, "passed": True},
        {"sizes": {"rows": 4, "cols": 8}, "passed": False, "mismatches": 1,
         "first_mismatch": {"buffer": "c", "index": 17, "row": 2, "col": 1,
                            "expected": 0.5, "actual": -0.731413603}}]},
    "performance": {"student_ms": 3.05, "reference_ms": 3.05, "ratio": 1.0,
                    "max_ratio": 1.25, "estimated": True}}
PASSED = dict(WRONG, verdict="passed", message="correct; 0.00484×", correctness={"passed": True})
INTERNAL = {"exercise": "tiny-add", "verdict": "internal_error", "message": "the worker died"}
SPARSE = {"exercise": "tiny-add"}  # no verdict: as internal_error
RESULTS = {"compile_error": COMPILE_ERROR, "memory_error": MEMORY_ERROR, "too_slow": TOO_SLOW,
           "wrong_answer": WRONG, "passed": PASSED, "internal_error": INTERNAL, "sparse": SPARSE}
EXIT_CODES = {"compile_error": 1, "memory_error": 1, "too_slow": 1, "wrong_answer": 1,
              "passed": 0, "internal_error": 3, "sparse": 3}


def script(result: dict) -> dict:
    return {"POST /api/v1/submissions": [Answer(202, {"id": 7, "status": "queued"})],
            "GET /api/v1/submissions/7/events": [Answer(stream=(
                'event: queued\ndata: {"position": 1}\n\nevent: running\n'
                'data: {"case": 1, "cases": 2, "what": "n = 100", "step": "student", '
                '"expected_seconds": 12.6}\n\nevent: done\ndata: {"verdict": "x"}\n\n'))],
            "GET /api/v1/submissions/7": [Answer(200, {"id": 7, "status": "done",
                                                       "result": result})]}


def run(command: list, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, env=env, timeout=60)


@unittest.skipUnless(os.access(KGRADE, os.X_OK), "no %s: make builds it" % KGRADE)
class SameAsKgradeSubmitTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.kernel = os.path.join(self.folder.name, "kernel.cu")
        with open(self.kernel, "w", encoding="utf-8", newline="") as f:
            f.write(SOURCE)
        self.env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "clients", "python"),
                        PYTHONDONTWRITEBYTECODE="1")

    def tearDown(self):
        self.folder.cleanup()

    def both(self, result: dict, *options: str):
        with FixtureServer(script(result)) as server:
            common = ["submit", "--server", server.url, "--token", "t0ken",
                      "--exercise", "tiny-add", *options, self.kernel]
            c = run([KGRADE, *common], self.env)
            python = run([sys.executable, "-m", "kgrade_client", *common], self.env)
        return c, python

    def test_the_same_bytes_and_exit_code_for_every_result(self):
        for name, result in RESULTS.items():
            for options in ([], ["--json"]):
                with self.subTest(result=name, options=options):
                    c, python = self.both(result, *options)
                    self.assertEqual(python.stdout.decode(), c.stdout.decode())
                    self.assertEqual(python.stderr.decode(), c.stderr.decode())
                    self.assertEqual((python.returncode, c.returncode),
                                     (EXIT_CODES[name],) * 2)

    def test_dump_writes_what_jansson_writes(self):
        c, _ = self.both(TOO_SLOW, "--json")
        self.assertIn(b'"tiny": 1e-300', c.stdout)
        self.assertEqual(dump(TOO_SLOW).encode(), c.stdout)


class HtmlTest(unittest.TestCase):
    URL = "http://kgrade.example/submissions/7"

    def html(self, result: dict) -> str:
        return result_html(result, SOURCE.encode(), self.URL, 7)

    def test_verdicts_in_their_colours(self):
        self.assertIn("color:#1a7f37", self.html(PASSED))
        self.assertIn(">Passed<", self.html(PASSED))
        self.assertIn("color:#cf222e", self.html(WRONG))
        self.assertIn(">Wrong answer<", self.html(WRONG))
        self.assertIn("color:#b35900", self.html(TOO_SLOW))
        self.assertIn("color:#6e7781", self.html(SPARSE))

    def test_a_compile_error_quotes_its_line_from_the_cell(self):
        html = self.html(COMPILE_ERROR)
        self.assertIn("line 4, column 22: error: identifier &quot;q&quot; is undefined", html)
        self.assertIn("    4 |     c[é] = a[é] + q;</pre>", html)
        self.assertNotIn("<script>", html)
        # line 3, quoted for the warning
        self.assertIn("&lt;script&gt;alert(1)&lt;/script&gt;", html)

    def test_a_memory_error_quotes_its_line(self):
        html = self.html(MEMORY_ERROR)
        self.assertIn("at line 4: read 4 bytes (line 4)</div>", html)
        self.assertIn("    4 |     c[é] = a[é] + q;</pre>", html)
        self.assertIn("line 3 &lt;b&gt;", html)  # the kernel's output, escaped

    def test_the_first_wrong_element_and_the_time(self):
        html = self.html(WRONG)
        self.assertIn("First wrong element: c[17] (row 2, column 1): expected 0.5, "
                      "got -0.731413603, with rows = 4, cols = 8", html)
        self.assertIn("Time: 3.05 ms, reference 3.05 ms: ratio 1.00× (bar 1.25×), modeled", html)
        self.assertIn('<a href="%s" target="_blank" rel="noopener">submission 7 on the server</a>'
                      % self.URL, html)

    def test_server_text_is_escaped(self):
        hostile = dict(WRONG, exercise="<img src=x onerror=alert(1)>",
                       message="<script>alert('message')</script>",
                       device={"name": "<script>device</script>"}, seed="<i>")
        html = result_html(hostile, b"<script>cell</script>", 'http://x/"><script>', 7)
        self.assertNotIn("<script", html)
        self.assertNotIn("<img", html)
        self.assertNotIn("<i>", html)
        self.assertIn("&lt;script&gt;alert(&#x27;message&#x27;)&lt;/script&gt;", html)
        self.assertIn('href="http://x/&quot;&gt;&lt;script&gt;"', html)
        for page in (progress_html("<script>x</script>", '"><script>'),
                     error_html("<script>x</script>")):
            self.assertNotIn("<script", page)


if __name__ == "__main__":
    unittest.main()
