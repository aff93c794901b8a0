#!/usr/bin/env bash
# Every bundled Numba solution (exercises/*/solutions/*.py) gets the verdict
# its name says, at the quick size test_grade.sh uses (`make test-full`;
# about 4 minutes on 2 cores). `make test` grades the assessments' and
# vector-add's (test_grade.sh).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/solutions_lib.sh

if ! have_numba; then
    echo "test_numba_solutions.sh: skipped: no numba (apt-get install python3-numba)"
    exit 0
fi
grade_solutions exercises/*/solutions/*.py
finish
