#!/usr/bin/env bash
# The timing model held to the times measured on a real GPU (make fidelity;
# tests/device/fidelity.sh, tests/calibrate/fidelity.c): the model must not
# do worse on the committed dataset than the bars recorded with it, and the
# comparison must catch a model that does.
#
# The whole dataset takes minutes to model (the calibration tables at their
# measured sizes, hidden-layer's thread-0 loop at 100M elements: about 35 s
# alone), past this test's budget in make test; so the model runs here on
# the assessment kernels less that one (each held to its own bar, and every
# verdict pair among them), and `make fidelity` runs the whole. The checks
# of the comparison itself feed it times (--modeled), with no emulation.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

build=$(dirname "$KGRADE")
dataset=tests/device/h200-2026-11-28.json
costly=hidden-layer/too_slow__thread0_per_block

# The virtual H200 on the assessment kernels, graded with the speed bar lifted.
expect "the model keeps the bars of $dataset (assessment kernels)" 0 \
    'verdicts agree with the card' -- \
    tests/device/fidelity.sh "$build" "$dataset" --tables assessment --leave-out "$costly" --check

# modeled FACTOR [ID FACTOR2]: every assessment kernel modeled at FACTOR ×
# its measured time (ID at FACTOR2), as build/fidelity reads them
modeled() {
    jq -r --argjson f "$1" --arg id "${2:-}" --argjson g "${3:-1}" \
        '.kernels[] | select(.table == "assessment")
         | "\(.id) \(.measured_ms * (if .id == $id then $g else $f end))"' "$dataset" >"$TMP/modeled"
}
# compare DATASET [OPTIONS]: build/fidelity; fidelity DATASET [OPTIONS]: its
# comparison of those times (no emulation)
compare() { LD_LIBRARY_PATH="$build/emulator" "$build/fidelity" "$@"; }
fidelity() {
    local data=$1
    shift
    compare "$data" --tables assessment --modeled "$TMP/modeled" "$@"
}
# the dataset with no bar per kernel, and a table's bar of 5 %
jq '.bars.kernels = {} | .bars.tables.assessment.mean_abs_error = 0.05' "$dataset" >"$TMP/table_bar.json"

modeled 1
expect "a model equal to the card: no error, every verdict agrees" 0 \
    '18 of 18 verdicts agree' -- fidelity "$dataset" --check
expect "... and the figures say so" 0 'assessment +9 +0\.0 % +1\.00 +1\.000 +9 +9' -- \
    fidelity "$dataset" --check
modeled 1 transpose/too_slow__naive 3
expect "a kernel past its own bar fails the check" 1 \
    'transpose/too_slow__naive +1\.65 +4\.95 +3\.00 +[0-9.]+x PASSED' -- fidelity "$dataset" --check
expect "... saying what to do" 1 'grew past the bars recorded with it' -- fidelity "$dataset" --check
expect "without --check, a passed bar is reported, not an error" 0 'PASSED' -- fidelity "$dataset"
expect "left out, the same kernel is not judged" 0 '' -- \
    fidelity "$dataset" --check --leave-out transpose/too_slow__naive
modeled 1.2
expect "a table past its bar fails the check" 1 'assessment +9 +20\.0 % .*5\.0 %, .*: PASSED' -- \
    fidelity "$TMP/table_bar.json" --check
expect "a table's bar holds over the whole table only" 0 'assessment +8 +20\.0 %' -- \
    fidelity "$TMP/table_bar.json" --check --leave-out "$costly"
modeled 1 histogram/passed__every_bin_loop 0.7
expect "a verdict the bars do not let disagree fails the check" 1 \
    'passed__every_bin_loop +reference .* passed .* too_slow +NO, PASSED the bars' -- \
    fidelity "$TMP/table_bar.json" --check --leave-out "$costly"
# --record: today's figures with their slack (+ 0.02, × 1.05, rounded up)
jq '.kernels |= map(select(.table == "assessment"))' "$dataset" >"$TMP/assessment.json"
modeled 1.1
expect "--record writes the figures with their slack as bars" 0 '' -- \
    fidelity "$TMP/assessment.json" --record "$TMP/bars.json"
expect "... per kernel, per table, and the disagreeing verdicts" 0 '^1\.155 0\.12 1\.155 0$' -- \
    jq -r '[.kernels["transpose/reference"], .tables.assessment.mean_abs_error,
            .tables.all.worst_factor, (.verdicts_disagreeing | length)] | join(" ")' "$TMP/bars.json"
expect "--record needs every kernel" 1 'needs every kernel' -- \
    fidelity "$TMP/assessment.json" --record "$TMP/bars.json" --leave-out "$costly"
expect "an unknown table is refused" 1 "no table 'sgemmm'" -- compare "$dataset" --tables sgemmm
expect "an unknown kernel is refused" 1 "no kernel 'nope'" -- fidelity "$dataset" --leave-out nope
expect "a usage error" 2 'usage: fidelity' -- compare

# tests/device/measure.sh, what a GPU session runs, here on the virtual GPU
# for one exercise: a dataset make fidelity reads, the model agreeing with
# itself exactly (its C kernels; its Numba ones kept apart)
measured="$TMP/measured.json"
expect "measure.sh makes a dataset of an exercise's kernels on the virtual GPU" 0 \
    "measure: 3 kernels in $measured" -- \
    bash tests/device/measure.sh "$build" "$measured" --device emulator --exercises matmul-tiled \
    --no-calibration
expect "... the C kernels and the reference, the Numba ones apart, at the assessed size" 0 \
    '^matmul-tiled/passed__shared_tiles matmul-tiled/reference matmul-tiled/too_slow__naive 3 \{"n":512\}$' -- \
    jq -r '[(.kernels | map(.id) | sort | join(" ")), (.numba_kernels | length),
            (.kernels[0].sizes | tojson)] | join(" ")' "$measured"
expect "... which make fidelity holds the model to: every verdict agrees, exactly" 0 \
    '6 of 6 verdicts agree' -- tests/device/fidelity.sh "$build" "$measured"

finish
