"""Executes a notebook through a Jupyter kernel with nbclient, for test_run.sh.

    /usr/bin/python3 tests/integration/run_notebook.py KERNEL CELLS.py

Builds a notebook whose code cells are the parts of CELLS.py between "# %%"
lines (Jupytext's percent format), executes it with nbclient (Debian's
python3-nbclient) through the kernel named KERNEL, found where Jupyter
finds kernels (JUPYTER_PATH included), and prints the kernel's display
name, then each cell's text outputs. A cell that raises ends it with the
error and exit code 1.
"""

import sys

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

CELL_SEPARATOR = "# %%"
CELL_TIMEOUT_S = 300  # the first numba compile of a kernel takes seconds


def notebook(path):
    with open(path, encoding="utf-8") as source:
        text = source.read()
    cells = [part.strip() for part in text.split(CELL_SEPARATOR) if part.strip()]
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])


def text_outputs(cell):
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            yield output.text
        elif "data" in output and "text/plain" in output.data:
            yield output.data["text/plain"] + "\n"


def main(kernel, path):
    nb = notebook(path)
    client = NotebookClient(nb, kernel_name=kernel, timeout=CELL_TIMEOUT_S)
    try:
        client.execute()
    except CellExecutionError as error:
        print("the notebook failed: %s" % error)
        return 1
    print("kernel: %s" % KernelSpecManager().get_kernel_spec(kernel).display_name)
    for cell in nb.cells:
        sys.stdout.write("".join(text_outputs(cell)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
