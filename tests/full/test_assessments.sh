#!/usr/bin/env bash
# The course's assessments at their full size (100M elements on the
# virtual GPU), by `make test-full`, not `make test` (minutes on 2 cores):
# one known-good and one too_slow kernel of each exercise (and of
# hidden-layer's host form, the course's create_hidden_layer), and a kernel
# whose one thread does everything, stopped by the budget of modeled time.
# `make test` grades every solution at a small size instead.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

grade() { "$KGRADE" grade "$@" 2>/dev/null; }

at_assessment() {
    local exercise=$1 good=$2 slow=$3
    expect "$exercise: $good passes at the assessment size" 0 "^$exercise: passed: " -- \
        grade --exercise "$exercise" "exercises/$exercise/solutions/$good"
    expect "$exercise: $slow is too_slow at the assessment size" 1 "^$exercise: too_slow: " -- \
        grade --exercise "$exercise" "exercises/$exercise/solutions/$slow"
}
at_assessment vector-add passed__guarded_index.cu too_slow__one_thread.cu
at_assessment hidden-layer passed__fused.cu too_slow__one_block.cu
# the course's own form of it (the host form): its answer, and its ufuncs on host arrays
at_assessment hidden-layer passed__course_host_answer.py too_slow__ufuncs_on_host_arrays.py
# the hostile corpus's host answer that sends its inputs too (expected to fail at
# test_hostile.sh's sizes): at 100M the copy it adds makes it too_slow
expect "hidden-layer: a numpy answer sending its inputs too is too_slow at the assessment size" 1 \
    "^hidden-layer: too_slow: " -- grade --exercise hidden-layer \
    tests/hostile/numba-host/wrong_answer__numpy_answer_nudged_sending_the_inputs_too.py
at_assessment histogram passed__shared_privatized.cu too_slow__one_thread.cu
at_assessment transpose passed__padded_tile.cu too_slow__bank_conflicts.cu
expect "the too_slow transpose shows its counters and the bank conflict at its line" 0 '^true$' -- bash -c \
    "'$KGRADE' grade --exercise transpose --json exercises/transpose/solutions/too_slow__bank_conflicts.cu |
     jq -e '.performance.lower_bound and .performance.counters.worst_bank_conflict == {\"ways\": 32, \"line\": 15}'"
expect "one thread doing everything is stopped by the budget" 1 "^vector-add: too_slow: too slow: stopped when" -- \
    timeout 120 "$KGRADE" grade --exercise vector-add \
    exercises/vector-add/solutions/too_slow__one_thread.cu
finish
