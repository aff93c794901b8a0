#!/usr/bin/env bash
# On a GPU server: a new dataset of the card's times, beside
# h200-2026-11-28.json, for `make fidelity` (FIDELITY_DATASET=…) to hold the
# virtual GPU's model of the same card to.
#
# Every bundled solution (CUDA C and Numba kernels, exercises/*/solutions/
# named passed__* or too_slow__*: the others stop before they are timed) is
# graded as the student at its exercise's assessed size, against a copy of
# the exercise whose speed bar is lifted (as tests/device/fidelity.sh does),
# so that each time is the kernel's whole time, not a lower bound; each
# exercise's reference is timed by the first of those gradings. The
# calibration tables' kernels run through build/calibrate (--times). The
# host form's solutions (hidden-layer's create_hidden_layer) are not kernels
# and are left out.
#
#   tests/device/measure.sh BUILD OUT.json [--device cuda|emulator]
#                           [--exercises ID,ID…] [--no-calibration]
#
# --device cuda (the default) measures the GPU; --device emulator gives the
# virtual GPU's figures for KGEMU_DEVICE's card in the same form (which
# checks this script on a machine without a GPU). Each grading's JSON and
# errors are kept in OUT.json's folder, under OUT.d/. Exits 1 when a
# grading gives no whole time or the calibration fails (the dataset is
# still written with what was measured), 2 on a usage error.
set -uo pipefail
usage() {
    echo "usage: $0 BUILD OUT.json [--device cuda|emulator] [--exercises ID,ID...] [--no-calibration]" >&2
    exit 2
}
[[ $# -ge 2 ]] || usage
build=$(cd "$1" && pwd) out=$2
shift 2
device=cuda exercises="" calibration=yes
while [[ $# -gt 0 ]]; do
    case $1 in
    --device) device=${2:-} && shift ;;
    --exercises) exercises=${2:-} && shift ;;
    --no-calibration) calibration=no ;;
    *) usage ;;
    esac
    shift
done
[[ $device == cuda || $device == emulator ]] || usage
cd "$(dirname "$0")/../.."
LIFTED_RATIO=1000000
SEED=1 # as fidelity.sh: the histogram's times depend on its data
logs="${out%.json}.d"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$logs"
: >"$work/kernels.jsonl"
: >"$work/numba.jsonl"
failed=0

wanted() { [[ -z $exercises || ,$exercises, == *,$1,* ]]; }

# lift EXERCISE: a copy of it in $work/exercises with its speed bar lifted
lift() {
    mkdir -p "$work/exercises"
    cp -r "exercises/$1" "$work/exercises/"
    jq --argjson r "$LIFTED_RATIO" '.speed.max_ratio = $r' "exercises/$1/exercise.json" \
        >"$work/exercises/$1/exercise.json"
}

# kernel LIST ID TABLE EXERCISE SOURCE SIZES MS: one kernel into
# $work/LIST.jsonl (kernels, numba)
kernel() {
    jq -nc --arg id "$2" --arg table "$3" --arg exercise "$4" --arg source "$5" \
        --argjson sizes "$6" --argjson ms "$7" \
        '{id: $id, table: $table, exercise: $exercise, source: $source, sizes: $sizes,
          measured_ms: $ms}' >>"$work/$1.jsonl"
}

# measure EXERCISE FILE: the solution graded as the student, its time and
# (the first time) its reference's: a CUDA C kernel's into the dataset's
# kernels (table "assessment": graded through kgrade, as fidelity.sh grades
# them), a Numba kernel's into its numba_kernels (graded against the Numba
# reference.py; kept as data, not yet modeled by make fidelity)
measure() {
    local exercise=$1 file=$2 name json sizes list=kernels reference=reference.cu
    name=$(basename "$file")
    [[ $file == *.py ]] && list=numba reference=reference.py
    json="$logs/$exercise.$name.json"
    "$build/kgrade" grade --exercise "$exercise" --exercises "$work/exercises" --device "$device" \
        --seed "$SEED" --json "$file" >"$json" 2>"$logs/$exercise.$name.err"
    if ! jq -e '.performance.student_ms > 0 and .performance.lower_bound == false' "$json" >/dev/null 2>&1; then
        echo "measure: $file has no whole time; kgrade said: $(jq -c '{verdict, message}' "$json" 2>/dev/null)" >&2
        failed=1
        return
    fi
    sizes=$(jq -c '.assessed' "exercises/$exercise/exercise.json")
    kernel "$list" "$exercise/${name%.cu}" assessment "$exercise" "$file" "$sizes" \
        "$(jq '.performance.student_ms' "$json")"
    if ! grep -q "\"id\":\"$exercise/${reference%.cu}\"" "$work/$list.jsonl"; then
        kernel "$list" "$exercise/${reference%.cu}" assessment "$exercise" \
            "exercises/$exercise/$reference" "$sizes" "$(jq '.performance.reference_ms' "$json")"
    fi
    echo "measure: $exercise/$name $(jq -r '"\(.performance.student_ms) ms (reference \(.performance.reference_ms) ms) on \(.device.name)"' "$json")"
}

for folder in exercises/*/; do
    exercise=$(basename "$folder")
    [[ -f $folder/exercise.json ]] && wanted "$exercise" || continue
    lift "$exercise"
    for file in "$folder"solutions/{passed,too_slow}__*.{cu,py}; do
        [[ -f $file ]] || continue
        [[ $file == *.py ]] && grep -q "^def create_hidden_layer(" "$file" && continue
        measure "$exercise" "$file"
    done
done

# The calibration tables, named as in the first dataset (same source: same id).
if [[ $calibration == yes ]]; then
    driver=()
    [[ $device == emulator ]] && driver=(env LD_LIBRARY_PATH="$build/emulator")
    if "${driver[@]}" "$build/calibrate" --times "$work/times" >"$logs/calibrate.txt" 2>&1; then
        while read -r source n ms; do
            jq -c --arg source "$source" --argjson ms "$ms" \
                '.kernels[] | select(.source == $source) | del(.measured) | .measured_ms = $ms' \
                tests/device/h200-2026-11-28.json >>"$work/kernels.jsonl"
        done <"$work/times"
    else
        echo "measure: build/calibrate failed (see $logs/calibrate.txt)" >&2
        failed=1
    fi
fi

# The card: nvidia-smi's on a GPU, the virtual GPU's name otherwise.
if [[ $device == cuda ]] && command -v nvidia-smi >/dev/null; then
    IFS=, read -r card driver < <(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)
else
    card=$(jq -rs 'map(.device.name // empty) | first // "unknown"' "$logs"/*.json 2>/dev/null)
    driver="kgrade virtual GPU"
fi
model=$(tr 'A-Z' 'a-z' <<<"$card" | grep -oE 'h200|h100|a100|t4' | head -n 1)
cuda=$("${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')
jq -n --arg card "${card# }" --arg driver "${driver# }" --arg model "${model:-h100}" \
    --arg cuda "$cuda" --arg date "$(date -u +%F)" --arg device "$device" \
    --slurpfile kernels "$work/kernels.jsonl" --slurpfile numba "$work/numba.jsonl" '{
    about: ("Times measured by tests/device/measure.sh --device " + $device + " on " + $date
            + ": every bundled passed__/too_slow__ CUDA C kernel (kernels) and Numba kernel (numba_kernels, against the Numba reference.py) graded as the student at its exercise'"'"'s assessed size with the speed bar lifted (the repeated timing protocol'"'"'s medians on a GPU), each exercise'"'"'s reference timed by its first grading; the calibration tables'"'"' kernels by build/calibrate --times at its default sizes. No bars yet: make fidelity FIDELITY_DATASET=this FIDELITY_OPTIONS=--record records them."),
    card: {name: $card, kgemu_device: $model, driver: $driver, cuda: $cuda},
    date: $date, kernels: $kernels, numba_kernels: $numba}' >"$out"
echo "measure: $(jq '.kernels | length' "$out") kernels in $out"
exit $failed
