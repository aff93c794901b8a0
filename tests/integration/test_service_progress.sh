#!/usr/bin/env bash
# Integration tests of a grading's progress through `kgrade serve`: the
# event stream's running events say which case runs ("assessment,
# n = 1,000,000"), whose run (the reference's, the student's) and, once
# the reference's speed is measured on a large enough case, about how
# long it takes; `kgrade submit` shows the same.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/service_lib.sh

# tiny-add with a correctness case large enough (3 buffers of 1.2 MB) to
# measure the reference's speed, and a larger assessment
EXERCISES="$TMP/exercises"
mkdir -p "$EXERCISES"
cp -r tests/service/exercises/tiny-add tests/service/exercises/courses "$EXERCISES/"
jq '.correctness = [{"n": 100}, {"n": 300000}] | .assessed = {"n": 1000000}' \
    tests/service/exercises/tiny-add/exercise.json >"$EXERCISES/tiny-add/exercise.json"
start_server "$EXERCISES" || exit 1
ANN=$(student_token ann)

id=$(submit_kernel "$ANN" tiny-add tests/service/kernels/good.cu)
expect "the kernel passes" 0 "^passed$" -- wait_done "$ANN" "$id"
timeout 60 curl -s -N -H "Authorization: Bearer $ANN" "$BASE/api/v1/submissions/$id/events" |
    sed -n 's/^data: //p' | jq -c 'select(.step)' >"$TMP/running"
expect "each case's reference and student runs are told apart" 0 "^6$" -- \
    bash -c "wc -l <'$TMP/running'"
expect "a running event names the case with its sizes" 0 \
    '^\{"case":2,"cases":3,"what":"n = 300,000","stage":"correctness","sizes":"n = 300,000","step":"reference","id":[0-9]+\}$' -- sed -n 3p "$TMP/running"
expect "the assessment's events say it is the assessment run, and its sizes" 0 \
    '^"assessment n = 1,000,000"$' -- bash -c "sed -n 5p '$TMP/running' | jq '.stage + \" \" + .sizes'"
expect "... and the assessment" 0 '^"assessment, n = 1,000,000"$' -- \
    bash -c "sed -n 5p '$TMP/running' | jq .what"
expect "the assessment's reference run has an expected time, from the speed measured before" 0 \
    "^true$" -- bash -c "sed -n 5p '$TMP/running' | jq -e '.step == \"reference\" and .expected_seconds > 0'"
expect "... and so has the student's run, the time the reference took" 0 "^true$" -- \
    bash -c "sed -n 6p '$TMP/running' | jq -e '.step == \"student\" and .expected_seconds > 0'"
expect "a case too small to measure the speed has none" 0 "^null$" -- \
    bash -c "sed -n 1p '$TMP/running' | jq .expected_seconds"

"$KGRADE" submit --server "$BASE" --token "$ANN" --exercise tiny-add tests/service/kernels/good.cu \
    >"$TMP/submit.out" 2>"$TMP/submit.err"
expect "kgrade submit shows the case, the run and the expected time" 0 \
    "running, case 3 of 3 \(assessment, n = 1,000,000\): the reference, about [0-9.]+ s" -- \
    cat "$TMP/submit.err"
kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
finish
