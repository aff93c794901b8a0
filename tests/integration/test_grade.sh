#!/usr/bin/env bash
# Integration tests of `kgrade grade`: every known-good and known-bad kernel
# in exercises/*/solutions gets the verdict its name says (at a small size
# with --n, to stay quick), one known-good and one too_slow kernel at the
# assessment size, the grade JSON's fields, reproducible seeds, and the
# configuration errors.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

grade() { "$KGRADE" grade --no-sandbox "$@" 2>/dev/null; }

shopt -s nullglob
for f in exercises/*/solutions/*.cu; do
    exercise=$(basename "$(dirname "$(dirname "$f")")")
    verdict=$(basename "$f" | sed 's/__.*//')
    code=1
    [[ $verdict == passed ]] && code=0
    expect "$exercise: $(basename "$f") is $verdict" "$code" "^$exercise: $verdict: " -- \
        grade --exercise "$exercise" --n 20000 "$f"
done

# At the assessment size (100M elements on the virtual GPU).
expect "vector-add passes at the assessment size" 0 "^vector-add: passed: " -- \
    grade --exercise vector-add exercises/vector-add/solutions/passed__guarded_index.cu
expect "one thread doing everything is too_slow, and stopped" 1 "^vector-add: too_slow: stopped once" -- \
    timeout 120 "$KGRADE" grade --no-sandbox --exercise vector-add \
    exercises/vector-add/solutions/too_slow__one_thread.cu

# The grade JSON.
good=exercises/vector-add/solutions/passed__guarded_index.cu
json=$(grade --exercise vector-add --n 5000 --seed 77 --json "$good")
expect "--json has the contract's fields" 0 "^true$" -- jq -e '
    .exercise == "vector-add" and .verdict == "passed" and .seed == "77"
    and .assessment == false and .device.emulated == true and .compile.ok == true
    and .correctness.passed == true and (.correctness.cases | length) == 1
    and .performance.ratio > 0 and .performance.estimated == true
    and (.exercise_version | length) == 16 and (.kgrade_version | length) > 0
    and .performance.counters.global_requests > 0' <<<"$json"
# ptxas reports its own compile time in the log: everything else must be equal.
jq -S 'del(.compile.log)' <<<"$json" >"$TMP/first.json"
grade --exercise vector-add --n 5000 --seed 77 --json "$good" | jq -S 'del(.compile.log)' >"$TMP/again.json"
expect "the same seed gives the same result" 0 "" -- cmp "$TMP/first.json" "$TMP/again.json"
bad=$(grade --exercise vector-add --n 5000 --json exercises/vector-add/solutions/wrong_answer__difference.cu)
expect "a wrong answer names its first mismatch" 0 "^c 0$" -- \
    jq -r '.correctness.cases[0].first_mismatch | "\(.buffer) \(.index)"' <<<"$bad"

printf '__global__ void other(float *x) { x[0] = 1; }\n' >"$TMP/other.cu"
expect "a missing kernel is rejected by name" 1 "rejected: the source defines no kernel named 'vector_add'" -- \
    grade --exercise vector-add --n 100 "$TMP/other.cu"
printf '__global__ void vector_add(double *a, double *b, double *c, int n) {}\n' >"$TMP/sig.cu"
expect "a wrong signature is rejected with the expected one" 1 "rejected: the kernel vector_add\(double\*, double\*, double\*, int\)" -- \
    grade --exercise vector-add --n 100 "$TMP/sig.cu"
expect "an unknown exercise is a configuration error" 2 "exercises/nope/exercise.json: cannot be read" -- \
    "$KGRADE" grade --no-sandbox --exercise nope "$good"
expect "--device cuda without a GPU is a configuration error" 2 "no CUDA GPU is usable here" -- \
    "$KGRADE" grade --no-sandbox --device cuda --exercise vector-add "$good"
finish
