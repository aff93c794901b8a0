#!/usr/bin/env bash
# The course's notebooks as tests (tests/notebooks/): the shortest of them,
# DLI's custom-kernels notebook in French, runs through the `kgrade` Jupyter
# kernel on the virtual GPU with its own checks passing, and fails as the
# course's unanswered exercise does; the runner fails a notebook on a cell's
# error, on printed text its metadata's "expect" does not match, and on an
# "expect_error" cell that raises nothing or something else (these with
# Debian's own python3 kernel, no GPU involved). All four notebooks run in
# tests/full/test_notebooks.sh (`make test-notebooks`).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/notebooks/lib.sh

SHORTEST=tests/notebooks/custom-kernels-numba.fr.ipynb
# flat COMMAND...: its output on one line (lines joined by "~"), for patterns
# that span lines; its exit code
flat() {
    local out rc=0
    out=$("$@" 2>&1) || rc=$?
    tr '\n' '~' <<<"$out"
    return $rc
}

# ------------------------------------------------ a course notebook, for real
expect "the custom-kernels notebook runs through the kgrade kernel, its checks passing" 0 \
    "^ok   custom-kernels-numba.fr.ipynb \(28 code cells" -- run_notebooks --kgrade "$KGRADE" "$SHORTEST"
# The histogram exercise as the course gives it (its kernel a `pass`; the
# hypot timings, the longest cells, left out): the notebook's own assert
# fails, on the virtual GPU's (empty) histogram.
"$NOTEBOOK_PYTHON" - "$SHORTEST" "$TMP/unanswered.ipynb" <<'PY'
import sys
import nbformat
nb = nbformat.read(sys.argv[1], as_version=4)
nb.cells = [c for c in nb.cells if "hypot" not in c.source]
cell = next(c for c in nb.cells if c.source.startswith("@cuda.jit\ndef cuda_histogram"))
cell.source = cell.source.split("    nbins =")[0] + "    pass  # Replace this with your implementation\n"
nbformat.write(nb, sys.argv[2])
PY
expect "... the course's unanswered histogram exercise fails at its assert" 1 \
    "FAIL unanswered.ipynb: 1 failed cell.* \(np.testing.assert_array_almost_equal.*AssertionError" -- \
    flat run_notebooks --kgrade "$KGRADE" "$TMP/unanswered.ipynb"

# ------------------------------------------------------- the runner's checks
# notebook FILE CELL...: a notebook of code cells, each "SOURCE" or
# "SOURCE|METADATA-JSON"
notebook() {
    "$NOTEBOOK_PYTHON" - "$@" <<'PY'
import json
import sys
import nbformat
cells = []
for spec in sys.argv[2:]:
    source, _, meta = spec.partition("|")
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata.update(json.loads(meta) if meta else {})
    cells.append(cell)
nbformat.write(nbformat.v4.new_notebook(cells=cells), sys.argv[1])
PY
}
plain() { run_notebooks --kernel python3 "$@"; }

notebook "$TMP/good.ipynb" 'print(6 * 7)|{"kgrade": {"expect": "^42$"}}' \
    'import json; json.loads("{")|{"tags": ["raises-exception"], "kgrade": {"expect_error": "JSONDecodeError"}}' \
    '"after"|{"kgrade": {"expect": "^.after.$"}}'
expect "a notebook whose outputs match and whose expected error is raised passes" 0 \
    "^ok   good.ipynb \(3 code cells" -- plain "$TMP/good.ipynb"
notebook "$TMP/output.ipynb" 'print(6 * 9)|{"kgrade": {"expect": "^42$"}}'
expect "printed text that does not match its expect fails, saying what was printed" 1 \
    "cell 0 \(print\(6 \* 9\)\):.*does not match /\^42\\$/; it printed:~ +[|] 54~" -- flat plain "$TMP/output.ipynb"
notebook "$TMP/error.ipynb" 'x = 1' 'assert x == 2, "x is not 2"' 'print("never")'
expect "a cell's error fails the notebook, with the error, and stops it" 1 \
    "FAIL error.ipynb: 2 failed cell\(s\) of 3:~  cell 1 .*AssertionError: x is not 2.*~  cell 2 \(print.*did not run" -- \
    flat plain "$TMP/error.ipynb"
expect "... --keep-going runs the cells after it" 1 "FAIL error.ipynb: 1 failed cell\(s\) of 3:" -- \
    plain --keep-going "$TMP/error.ipynb"
notebook "$TMP/no-error.ipynb" '1 + 1|{"tags": ["raises-exception"], "kgrade": {"expect_error": "TypingError"}}'
expect "a cell that should raise and raises nothing fails" 1 "should have raised TypingError, raised nothing" -- \
    plain "$TMP/no-error.ipynb"
notebook "$TMP/other-error.ipynb" '1 / 0|{"tags": ["raises-exception"], "kgrade": {"expect_error": "TypingError"}}'
expect "... and one that raises another error fails, naming it" 1 \
    "should have raised TypingError, raised ZeroDivisionError" -- plain "$TMP/other-error.ipynb"
expect "a kernel that is not installed is named" 1 "No such kernel named no-such-kernel" -- \
    run_notebooks --kernel no-such-kernel "$TMP/good.ipynb"
finish
