#!/usr/bin/env bash
# The course's four notebooks (tests/notebooks/*.ipynb; `make
# test-notebooks`, and `make test-full`; about a minute on 2 cores) run
# through the `kgrade` Jupyter kernel on the virtual GPU, every cell without
# error and their own checks holding. tests/integration/test_notebooks.sh
# runs one of them in `make test`.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/notebooks/lib.sh

for notebook in tests/notebooks/*.ipynb; do
    name=$(basename "$notebook")
    expect "$name runs through the kgrade kernel, its checks passing" 0 "^ok   $name " -- \
        run_notebooks --kgrade "$KGRADE" "$notebook"
done
finish
