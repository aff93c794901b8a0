# Shared by the notebook tests (tests/integration/test_notebooks.sh, one
# notebook; tests/full/test_notebooks.sh, all four). Source it after
# tests/integration/lib.sh: it defines NOTEBOOK_PYTHON, run_notebooks, and
# exits 0, saying so, when Debian's python3 lacks what the notebooks need.

# The Python that runs the runner and, through `kgrade jupyter install`, the
# kernel: Debian's (numba, nbclient, ipykernel; not a python3 of pyenv's first
# in the PATH), or KGRADE_PYTHON's, as the kernel's.
NOTEBOOK_PYTHON="${KGRADE_PYTHON:-/usr/bin/python3}"
NOTEBOOK_MODULES=(numba nbclient nbformat ipykernel)

for module in "${NOTEBOOK_MODULES[@]}"; do
    if ! "$NOTEBOOK_PYTHON" -c "import $module" 2>/dev/null; then
        echo "$(basename "$0"): skipped: $NOTEBOOK_PYTHON has no $module (deploy/install-deps.sh installs it)"
        exit 0
    fi
done

# run_notebooks ARGS...: tests/notebooks/run_notebooks.py in Debian's python3
run_notebooks() { "$NOTEBOOK_PYTHON" tests/notebooks/run_notebooks.py "$@"; }
