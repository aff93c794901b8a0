#!/usr/bin/env bash
# The host form through the service at hidden-layer's assessed size, 100M
# elements (`make test-full`: about 25 s and 5 GB a grading): the course's
# answer, posted to the API as Numba, passes in the host form with as many
# copies as the reference's; and so does a %%kgrade cell holding it, where
# IPython is installed. tests/integration/test_service_host_form.sh checks
# the rest at a small size.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/service_lib.sh

if ! "${KGRADE_PYTHON:-/usr/bin/python3}" -c 'import numba' 2>/dev/null; then
    echo "test_service_host_form.sh: skipped: no numba (apt-get install python3-numba)"
    exit 0
fi
COURSE_ANSWER=exercises/hidden-layer/solutions/passed__course_host_answer.py
GRADING_WAITS=10 # wait_done's minute each: a grading at 100M takes about half of one
start_server exercises || exit 1
ANN=$(student_token ann)

# graded ID: its verdict once done (up to GRADING_WAITS minutes)
graded() {
    local verdict
    for _ in $(seq "$GRADING_WAITS"); do
        verdict=$(wait_done "$ANN" "$1")
        [[ $verdict != "not done" ]] && break
    done
    echo "$verdict"
}
course=$(api POST /api/v1/submissions -H "Authorization: Bearer $ANN" -H 'Content-Type: application/json' \
    --data-binary "$(jq -n --rawfile s "$COURSE_ANSWER" '{exercise: "hidden-layer", source: $s, language: "numba"}')" |
    jq -r .id)
expect "the course's answer, posted as Numba, passes at 100M" 0 "^passed$" -- graded "$course"
expect "... in the host form, at 100M elements, with the reference's copies" 0 \
    "^host 100000000 2 copies to the device \(800 MB\) and 1 back, against the reference's 2 and 1$" -- bash -c \
    "curl -s -H 'Authorization: Bearer $ANN' $BASE/api/v1/submissions/$course |
        jq -r '\"\(.result.form) \(.result.correctness.cases[-1].sizes.n) \(.result.message | sub(\".*: \"; \"\"))\"'"
host_form_cell "a %%kgrade cell holding the course's answer passes at 100M" "$ANN" "$COURSE_ANSWER"
kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
finish
