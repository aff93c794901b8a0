#!/usr/bin/env bash
# Integration tests of the host form through the service (issue 34), on a
# `kgrade serve` of its own with hidden-layer at a small assessed size
# (tests/service/small_hidden_layer.sh; tests/full/test_service_host_form.sh
# grades at 100M): the exercise says its host form and its statement's
# "The course's form"; a Numba submission defining create_hidden_layer
# (the course's answer) is graded in the host form and passes, its result
# saying form host and its copies against the reference's; the course's
# ufuncs on host arrays are too_slow naming the transfers, numpy on the
# host is not passed; a trial of the course's answer passes at the
# correctness sizes; `kgrade submit` of the course's answer passes; and,
# where IPython is installed, a %%kgrade cell holding the course's answer
# passes (notebook_host_form.py).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/service_lib.sh

SOLUTIONS=exercises/hidden-layer/solutions
COURSE_ANSWER=$SOLUTIONS/passed__course_host_answer.py
tests/service/small_hidden_layer.sh "$TMP/exercises"
start_server "$TMP/exercises" || exit 1
ANN=$(student_token ann)

# ---- the exercise says its host form
expect "the exercise gives its host form, a Numba module's other way to answer" 0 \
    "^create_hidden_layer\(n, greyscales, weights, exp, normalize, weigh, activate\) out$" -- \
    bash -c "curl -s $BASE/api/v1/exercises/hidden-layer | jq -r '.forms.numba_host | \"\(.form) \(.returns)\"'"
expect "... and its statement the course's form, in HTML too" 0 "^true$" -- bash -c \
    "curl -s $BASE/api/v1/exercises/hidden-layer | jq -e '(.statement | contains(\"### The course'\"'\"'s form\")) and
        (.statement_html | test(\"<h3[^>]*>The course.s form</h3>\")) and (.statement_html | contains(\"def create_hidden_layer\"))'"
expect "... in French too" 0 "^true$" -- bash -c \
    "curl -s '$BASE/api/v1/exercises/hidden-layer?lang=fr' | jq -e '.statement_html | test(\"<h3[^>]*>La forme du cours</h3>\")'"

if ! "${KGRADE_PYTHON:-/usr/bin/python3}" -c 'import numba' 2>/dev/null; then
    echo "skipped: no numba (apt-get install python3-numba): the host form's gradings"
    kill -TERM "$SERVER_PID"
    wait "$SERVER_PID"
    finish
    exit
fi

# ---- through the API
# post KIND FILE: POSTs FILE as a Numba submission (KIND submissions) or
# trial (trials) of hidden-layer; prints its id
post() {
    api POST "/api/v1/$1" -H "Authorization: Bearer $ANN" -H 'Content-Type: application/json' \
        --data-binary "$(jq -n --rawfile s "$2" '{exercise: "hidden-layer", source: $s, language: "numba"}')" |
        jq -r .id
}
result() { curl -s -H "Authorization: Bearer $ANN" "$BASE/api/v1/submissions/$1" | jq -r "$2"; }
course=$(post submissions "$COURSE_ANSWER")
slow=$(post submissions "$SOLUTIONS/too_slow__ufuncs_on_host_arrays.py")
host=$(post submissions "$SOLUTIONS/wrong_answer__numpy_on_host.py")
expect "the course's answer, posted as Numba, passes" 0 "^passed$" -- wait_done "$ANN" "$course"
expect "... graded in the host form, as Numba" 0 "^host numba numba$" -- \
    result "$course" '"\(.result.form) \(.language) \(.result.language)"'
expect "... its message says its copies, as many as the reference's" 0 \
    "2 copies to the device \([0-9.]+ [KMG]?B\) and 1 back, against the reference's 2 and 1$" -- \
    result "$course" .result.message
expect "... at the exercise's assessed size" 0 "^20001$" -- result "$course" '.result.correctness.cases[-1].sizes.n'
expect "the ufuncs on host arrays are too_slow" 0 "^too_slow$" -- wait_done "$ANN" "$slow"
expect "... naming the transfers" 0 "4 copies to the device \([0-9.]+ [KMG]?B\) and 3 back, against the reference's 2 and 1$" -- \
    result "$slow" .result.message
expect "numpy on the host is not passed" 0 "^wrong_answer$" -- wait_done "$ANN" "$host"
expect "... its result was not copied back from the GPU" 0 "not copied back from the GPU" -- \
    result "$host" .result.message

# ---- a trial ("Try at small n"): the correctness cases only
trial=$(post trials "$COURSE_ANSWER")
for _ in $(seq 600); do
    [[ $(api GET "/api/v1/trials/$trial" -H "Authorization: Bearer $ANN" | jq -r .status) == done ]] && break
    sleep 0.1
done
expect "a trial of the course's answer passes, in the host form, at the correctness sizes only" 0 \
    '^passed host \[1,257\] true$' -- \
    jq -r '"\(.verdict) \(.result.form) \([.result.correctness.cases[].sizes.n] | tostring) \(.result.correctness_only)"' \
    "$TMP/body"

# ---- kgrade submit
expect "kgrade submit of the course's answer passes" 0 "^hidden-layer: passed: .*2 copies to the device" -- \
    "$KGRADE" submit --server "$BASE" --token "$ANN" --exercise hidden-layer "$COURSE_ANSWER"

# ---- %%kgrade
host_form_cell "a %%kgrade cell holding the course's answer passes" "$ANN" "$COURSE_ANSWER"

kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
finish
