#!/usr/bin/env bash
# make fidelity: the virtual GPU's timing model against the times a real
# GPU measured (a dataset of tests/device/, e.g. h200-2026-11-28.json).
#
# The assessment kernels are graded by kgrade on the virtual GPU of the
# dataset's card (KGEMU_DEVICE), each as the student, against a copy of its
# exercise whose speed bar is lifted (speed.max_ratio = LIFTED_RATIO): a
# grading stops a student's kernel at the bar and reports a lower bound,
# which is not the model's time; with the bar lifted every kernel runs to
# its end. The copy is made here from the exercise's own files, so nothing a
# student can reach sets it. build/fidelity then runs the calibration
# tables' kernels and prints the comparison (see tests/calibrate/fidelity.c).
#
#   tests/device/fidelity.sh BUILD DATASET [--tables LIST] [--leave-out ID]...
#                            [--check] [--record]
#
# --tables LIST: compare only these tables (assessment, sgemm, reduction,
# transpose; comma-separated); --leave-out ID: not that kernel; --check:
# exit 1 when the model does worse than the bars recorded with the dataset
# (the test of make test); --record: today's figures, with a little slack,
# become the dataset's bars (after a change of the model that is meant).
#
# An exercise's reference is graded once per solution of it in the
# dataset: its time comes from those gradings (the same seed, the same
# time), and it is graded as the student only when no solution is there.
set -euo pipefail
if [[ $# -lt 2 ]]; then
    echo "usage: $0 BUILD DATASET [--tables LIST] [--leave-out ID]... [--check] [--record]" >&2
    exit 2
fi
build=$1 dataset=$2
shift 2
cd "$(dirname "$0")/../.."
LIFTED_RATIO=1000000
SEED=1 # the inputs' seed: the histogram's times depend on its data

tables=all record=no
left_out=()
args=()
while [[ $# -gt 0 ]]; do
    case $1 in
    --tables) tables=${2:?--tables takes a list} && args+=("$1" "$2") && shift ;;
    --leave-out) left_out+=("${2:?--leave-out takes an id}") && args+=("$1" "$2") && shift ;;
    --record) record=yes ;;
    *) args+=("$1") ;;
    esac
    shift
done
wants() { # ID TABLE
    local out
    for out in "${left_out[@]}"; do [[ $out == "$1" ]] && return 1; done
    [[ $tables == all || ,$tables, == *,$2,* ]]
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
device=$(jq -er '.card.kgemu_device' "$dataset")
: >"$work/modeled"

# lift EXERCISE: a copy of the exercise in $work/exercises, its bar lifted;
# refused when the dataset measured it at other sizes than it assesses
lift() {
    local exercise=$1 assessed measured
    mkdir -p "$work/exercises"
    cp -r "exercises/$exercise" "$work/exercises/"
    jq --argjson r "$LIFTED_RATIO" '.speed.max_ratio = $r' "exercises/$exercise/exercise.json" \
        >"$work/exercises/$exercise/exercise.json"
    assessed=$(jq -cS '.assessed' "exercises/$exercise/exercise.json")
    for measured in $(jq -cS --arg e "$exercise" '.kernels[] | select(.exercise == $e) | .sizes' "$dataset"); do
        if [[ $measured != "$assessed" ]]; then
            echo "fidelity: $dataset measured $exercise at $measured; it assesses $assessed" >&2
            return 1
        fi
    done
}

# model ID EXERCISE SOURCE REFERENCE_ID: the kernel's full modeled time,
# graded as the student, and the reference's (REFERENCE_ID, when in the dataset)
model() {
    local id=$1 exercise=$2 source=$3 reference=$4 json="$work/grade.json"
    KGEMU_DEVICE=$device "$build/kgrade" grade --exercise "$exercise" --exercises "$work/exercises" \
        --device emulator --seed "$SEED" --json "$source" >"$json" 2>"$work/grade.err" || true
    if ! jq -e '.performance.student_ms > 0 and .performance.lower_bound == false' "$json" >/dev/null 2>&1; then
        echo "fidelity: $id ($source) has no full modeled time; kgrade said:" >&2
        jq -c '{verdict, message, performance}' "$json" >&2 2>/dev/null || tail -n 20 "$work/grade.err" >&2
        return 1
    fi
    jq -r --arg id "$id" --arg ref "$reference" \
        '"\($id) \(.performance.student_ms)", if $ref != "" then "\($ref) \(.performance.reference_ms)" else empty end' \
        "$json" >>"$work/modeled"
}

# The assessment kernels: ID EXERCISE SOURCE REFERENCE_ID, solutions first,
# then the references no solution's grading timed.
assessment() {
    jq -r '.kernels | map(select(.table == "assessment")) as $a | $a[]
        | (.exercise as $e | $a | map(select(.exercise == $e and (.source | endswith("/reference.cu"))))
           | first | .id // "") as $ref
        | [.id, .exercise, .source, (if .id == $ref then "" else $ref end)] | @tsv' "$dataset"
}
if [[ $tables == all || ,$tables, == *,assessment,* ]]; then
    for exercise in $(jq -r '.kernels[] | select(.table == "assessment") | .exercise' "$dataset" | sort -u); do
        lift "$exercise"
    done
    while IFS=$'\t' read -r id exercise source reference; do
        wants "$id" assessment || continue
        # a reference is graded as the student only when no solution's grading timed it
        [[ -z $reference ]] && awk -v id="$id" '$1 == id { f = 1 } END { exit !f }' "$work/modeled" && continue
        model "$id" "$exercise" "$source" "$reference"
    done < <(assessment | sort -t$'\t' -k4,4r)
fi

if [[ $record == yes ]]; then
    LD_LIBRARY_PATH="$build/emulator" "$build/fidelity" "$dataset" --modeled "$work/modeled" \
        --record "$work/bars.json" "${args[@]}"
    jq --slurpfile bars "$work/bars.json" '.bars = $bars[0]' "$dataset" >"$work/dataset.json"
    cp "$work/dataset.json" "$dataset"
    echo "fidelity: the bars of $dataset are now the figures above, with their slack"
else
    LD_LIBRARY_PATH="$build/emulator" "$build/fidelity" "$dataset" --modeled "$work/modeled" "${args[@]}"
fi
