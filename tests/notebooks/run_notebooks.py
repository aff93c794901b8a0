"""Runs the course's notebooks (tests/notebooks/*.ipynb) as tests.

    /usr/bin/python3 tests/notebooks/run_notebooks.py (--kgrade KGRADE | --kernel NAME)
                     [--timeout S] [--keep-going] NOTEBOOK...

Executes each notebook with nbclient (Debian's python3-nbclient) through a
Jupyter kernel:
  --kgrade KGRADE  the kernel named "kgrade", installed by
                   `KGRADE jupyter install --prefix DIR` into a temporary
                   folder found through JUPYTER_PATH: the notebooks run on
                   the virtual GPU, and nothing outside that folder is touched
  --kernel NAME    any installed kernel (python3: numba's own driver search,
                   or its simulator with NUMBA_ENABLE_CUDASIM=1)
--keep-going runs every cell of a notebook even after one failed (later
cells may then fail because of it). Jupyter's runtime, config and data folders and IPython's are in the temporary
folder too, and the notebooks run with it as their working folder.

A notebook passes when every cell runs without error and its own checks hold:
the asserts in its cells, and what its cells' metadata asks for:
  {"kgrade": {"expect": REGEX}}        the cell's printed text (its streams
                                       and its result's text/plain) matches
                                       REGEX (re.search, ^ and $ at lines)
  {"kgrade": {"expect_error": NAME}}   the cell raises the exception NAME
                                       (with the tag "raises-exception",
                                       which lets nbclient go on)
Prints one line per notebook, "ok NAME (N cells, T s)" or "FAIL NAME: ..."
with each failed cell (its number, first line, what went wrong) and every
cell's time, slowest first; exits 1 when any notebook failed.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from datetime import datetime

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

KGRADE_KERNEL = "kgrade"
CELL_TIMEOUT_S = 600  # a cell's first launch compiles with numba (seconds), then runs on the virtual GPU
STARTUP_TIMEOUT_S = 120  # the kernel imports numba and loads the virtual GPU
SLOWEST_SHOWN = 5
TRACEBACK_LINES = 20  # the end of a failed cell's traceback shown: the error and the lines that raised it
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def cell_text(cell):
    """What a cell printed: its streams and its result's text/plain."""
    parts = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type in ("execute_result", "display_data"):
            parts.append(output.get("data", {}).get("text/plain", "") + "\n")
    return "".join(parts)


def cell_error(cell):
    for output in cell.get("outputs", []):
        if output.output_type == "error":
            return output
    return None


def describe_error(error):
    """The end of an error's traceback, which ends with its name and message."""
    lines = ANSI_ESCAPE.sub("", "\n".join(error.traceback)).splitlines()
    return "\n".join(lines[-TRACEBACK_LINES:]) if lines else "%s: %s" % (error.ename, error.evalue)


def check_cell(cell):
    """What is wrong with an executed code cell, or None."""
    wants = cell.metadata.get("kgrade", {})
    error = cell_error(cell)
    wanted_error = wants.get("expect_error")
    if wanted_error:
        if error is None:
            return "should have raised %s, raised nothing" % wanted_error
        if error.ename != wanted_error:
            return "should have raised %s, raised %s:\n%s" % (wanted_error, error.ename, describe_error(error))
    elif error is not None:
        return describe_error(error)
    pattern = wants.get("expect")
    if pattern and not re.search(pattern, cell_text(cell), re.M):
        return "its output does not match /%s/; it printed:\n%s" % (pattern, cell_text(cell)[-2000:])
    return None


def cell_seconds(cell):
    """How long a cell ran, from the times nbclient records (ISO 8601)."""
    timing = cell.metadata.get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not (start and end):
        return 0.0
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


def first_line(cell):
    lines = [line for line in cell.source.splitlines() if line.strip() and not line.startswith("#")]
    return lines[0] if lines else cell.source.splitlines()[0]


def indented(text):
    return "\n".join("     | " + line for line in text.splitlines())


def run_notebook(path, kernel, folder, args):
    """Executes one notebook; returns its failures [(cell number, first line, why)] and its cells' times."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, kernel_name=kernel, timeout=args.timeout, startup_timeout=STARTUP_TIMEOUT_S,
                            allow_errors=args.keep_going, record_timing=True,
                            resources={"metadata": {"path": folder}})
    aborted = None
    try:
        client.execute()
    except CellExecutionError:
        pass  # the failed cell has its error output; check_cell reports it
    except (CellTimeoutError, DeadKernelError) as error:
        aborted = "%s: %s" % (type(error).__name__, str(error).splitlines()[0])
    code_cells = [(number, cell) for number, cell in enumerate(nb.cells) if cell.cell_type == "code"]
    failures = []
    times = []
    for number, cell in code_cells:
        if cell.get("execution_count") is None and not cell.get("outputs"):
            failures.append((number, first_line(cell), aborted or "did not run (an earlier cell failed)"))
            break
        why = check_cell(cell)
        if why:
            failures.append((number, first_line(cell), why))
        times.append((cell_seconds(cell), number, first_line(cell)))
    return failures, times, len(code_cells)


def report(path, failures, times, cells, seconds):
    name = os.path.basename(path)
    if failures:
        print("FAIL %s: %d failed cell(s) of %d:" % (name, len(failures), cells))
        for number, line, why in failures:
            print("  cell %d (%s):\n%s" % (number, line, indented(why)))
    else:
        print("ok   %s (%d code cells, %.1f s)" % (name, cells, seconds))
    for took, number, line in sorted(times, reverse=True)[:SLOWEST_SHOWN]:
        print("     %6.2f s  cell %d: %s" % (took, number, line))


def install_kgrade_kernel(kgrade, folder):
    """Installs the kgrade kernel under FOLDER; returns its JUPYTER_PATH entry."""
    prefix = os.path.join(folder, "prefix")
    subprocess.run([kgrade, "jupyter", "install", "--prefix", prefix], check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(prefix, "share", "jupyter")


def private_jupyter(folder, jupyter_path):
    """Points Jupyter's and IPython's folders into FOLDER."""
    for variable, sub in (("JUPYTER_RUNTIME_DIR", "runtime"), ("JUPYTER_CONFIG_DIR", "config"),
                          ("JUPYTER_DATA_DIR", "data"), ("IPYTHONDIR", "ipython")):
        os.environ[variable] = os.path.join(folder, sub)
    if jupyter_path:
        os.environ["JUPYTER_PATH"] = jupyter_path
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # ipykernel's debugger, on frozen modules


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--kgrade", help="the kgrade program whose Jupyter kernel runs the notebooks")
    which.add_argument("--kernel", help="an installed Jupyter kernel's name")
    parser.add_argument("--timeout", type=int, default=CELL_TIMEOUT_S, help="seconds a cell may take")
    parser.add_argument("--keep-going", action="store_true", help="run every cell after one failed")
    parser.add_argument("notebooks", nargs="+")
    return parser.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="kgrade-notebooks-") as folder:
        jupyter_path = install_kgrade_kernel(os.path.abspath(args.kgrade), folder) if args.kgrade else None
        private_jupyter(folder, jupyter_path)
        kernel = KGRADE_KERNEL if args.kgrade else args.kernel
        work = os.path.join(folder, "work")
        os.mkdir(work)
        for path in args.notebooks:
            start = time.monotonic()
            failures, times, cells = run_notebook(path, kernel, work, args)
            report(path, failures, times, cells, time.monotonic() - start)
            failed += bool(failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
