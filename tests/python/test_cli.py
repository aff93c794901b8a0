"""The Python client's command line (kgrade_client/cli.py) where it needs no
server: the language from the extension or --language, a file that cannot
be read said in `kgrade submit`'s words, and usage errors exiting 2.

    python3 tests/python/test_cli.py
"""

import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "clients", "python"))

from kgrade_client.cli import UnreadableSource, language_of, main, read_source  # noqa: E402


def exit_of(argv: list) -> tuple:
    """The exit code and standard error of the command line with `argv`."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as stop:  # argparse's usage errors and --help
            code = stop.code
    return code, err.getvalue()


class CliTest(unittest.TestCase):
    def test_the_language_follows_the_extension(self):
        self.assertEqual(language_of("kernel.py", None), "numba")
        self.assertEqual(language_of("kernel.cu", None), "cuda")
        self.assertEqual(language_of("KERNEL.PY", None), "cuda")  # as grader_language_of_file
        self.assertEqual(language_of(".py", None), "cuda")
        self.assertEqual(language_of("kernel.txt", None), "cuda")
        self.assertEqual(language_of("kernel.py", "cuda"), "cuda")

    def test_unreadable_files(self):
        with tempfile.TemporaryDirectory() as folder:
            with self.assertRaisesRegex(UnreadableSource, "is not a regular file"):
                read_source(folder)
            with self.assertRaisesRegex(UnreadableSource,
                                        "^cannot read '.*nope.cu': No such file or directory$"):
                read_source(os.path.join(folder, "nope.cu"))
            path = os.path.join(folder, "k.cu")
            with open(path, "wb") as f:
                f.write(b"\xff__global__")
            self.assertEqual(read_source(path), b"\xff__global__")

    def test_usage_errors_exit_2(self):
        env = {k: os.environ.pop(k) for k in ("KGRADE_URL", "KGRADE_TOKEN") if k in os.environ}
        try:
            self.assertEqual(exit_of([])[0], 2)
            self.assertEqual(exit_of(["submit", "k.cu"])[0], 2)  # no --exercise
            self.assertEqual(exit_of(["submit", "--exercise", "x", "--language", "rust",
                                      "k.cu"])[0], 2)
            code, said = exit_of(["submit", "--exercise", "x", "k.cu"])
            self.assertEqual((code, said), (2, "kgrade submit: --server and --token are "
                                               "required (or KGRADE_URL and KGRADE_TOKEN)\n"))
            code, said = exit_of(["submit", "--server", "ftp://x", "--token", "t",
                                  "--exercise", "x", __file__])
            self.assertEqual(code, 2)
            self.assertIn("is not an http:// or https:// URL", said)
            code, said = exit_of(["submit", "--server", "http://x", "--token", "a b",
                                  "--exercise", "x", __file__])
            self.assertEqual(code, 2)
            self.assertIn("the token is not usable", said)
        finally:
            os.environ.update(env)

    def test_a_file_not_utf8_exits_2_before_any_request(self):
        with tempfile.NamedTemporaryFile(suffix=".cu") as f:
            f.write(b"\xff\xfe")
            f.flush()
            code, said = exit_of(["submit", "--server", "http://127.0.0.1:1", "--token", "t",
                                  "--exercise", "x", f.name])
        self.assertEqual(code, 2)
        self.assertIn("not UTF-8 text", said)


if __name__ == "__main__":
    unittest.main()
