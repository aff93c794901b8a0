#!/usr/bin/env bash
# Integration tests of trials ("Try at small n") through `kgrade serve`: a
# trial is graded by the workers at the exercise's correctness sizes only
# (tiny-add: n = 100; its assessment is n = 1000), with the same verdict
# as a real submission of the same kernel there; it is never listed among
# the student's submissions, on the scoreboard or in the export; only its
# owner reads it and follows its events; one waits or runs at a time, and
# SERVICE_TRIALS_PER_MINUTE (6) a minute, beyond each 429 with Retry-After.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/service_lib.sh

start_server tests/service/exercises || exit 1
ANN=$(student_token ann)
BOB=$(student_token bob)
echo "teach-password" | "$KGRADE" --db "$DATA/kgrade.db" user add teach --role instructor \
    --password-stdin >/dev/null
TEACH=$("$KGRADE" --db "$DATA/kgrade.db" token create teach)

# try TOKEN FILE [curl args]: POSTs a trial of FILE for tiny-add; the body
try() {
    local token=$1 file=$2
    shift 2
    api POST /api/v1/trials -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
        "$@" --data-binary "{\"exercise\": \"tiny-add\", \"source\": $(jq -Rs . <"$file")}"
}

# trial_done TOKEN ID: waits until the trial is done; prints it
trial_done() {
    for _ in $(seq 600); do
        local t
        t=$(api GET "/api/v1/trials/$2" -H "Authorization: Bearer $1")
        [[ $(jq -r .status <<<"$t") == done ]] && {
            echo "$t"
            return 0
        }
        sleep 0.1
    done
    echo "not done"
}

first=$(try "$ANN" tests/service/kernels/good.cu -D "$TMP/headers")
expect "a trial is accepted: 202 with its id and its events' URL" 0 "^202 /api/v1/trials/[0-9]+/events$" -- \
    bash -c "echo \"$(status) $(jq -r .events_url <<<"$first")\""
expect "... and its Location" 0 "^Location: /api/v1/trials/[0-9]+" -- cat "$TMP/headers"
id=$(jq -r .id <<<"$first")
second=$(try "$ANN" tests/service/kernels/good.cu -D "$TMP/headers2")
expect "a second trial while one waits or runs: 429 with a sentence" 0 "^429 trial_waiting one at a time" -- \
    bash -c "echo \"$(status) $(jq -r .error.code <<<"$second") $(jq -r .error.message <<<"$second" | grep -o 'one at a time')\""
expect "... and Retry-After" 0 "^Retry-After: [0-9]+" -- cat "$TMP/headers2"

trial_done "$ANN" "$id" >"$TMP/trial.json"
expect "a good kernel's trial passes" 0 "^passed$" -- jq -r .verdict "$TMP/trial.json"
expect "... graded at the correctness sizes only, not the assessment's, with no time" 0 \
    '^\[100\] false true null$' -- \
    jq -r '"\([.result.correctness.cases[].sizes.n] | tostring) \(.result.assessment) \(.result.correctness_only) \(.result.performance.ratio)"' "$TMP/trial.json"
expect "... and says when it will be deleted" 0 "^true$" -- jq '.expires_at > .finished_at' "$TMP/trial.json"
timeout 30 curl -s -N -H "Authorization: Bearer $ANN" "$BASE/api/v1/trials/$id/events" >"$TMP/events"
expect "its events end with done" 0 '^data: \{"id":[0-9]+,"verdict":"passed"\}' -- cat "$TMP/events"
mine=$(api GET /api/v1/submissions -H "Authorization: Bearer $ANN" | jq -c .submissions)
expect "a trial leaves nothing among the student's submissions" 0 '^\[\]$' -- echo "$mine"

api GET "/api/v1/trials/$id" -H "Authorization: Bearer $BOB" >/dev/null
expect "another student cannot read it: 404" 0 "^404$" -- status
api GET "/api/v1/trials/$id/events" -H "Authorization: Bearer $BOB" >/dev/null
expect "... nor follow its events" 0 "^404$" -- status
api GET "/api/v1/trials/$id" -H "Authorization: Bearer $TEACH" >/dev/null
expect "... nor can an instructor: a trial is its owner's alone" 0 "^404$" -- status
api POST /api/v1/trials -H 'Content-Type: application/json' --data-binary '{}' >/dev/null
expect "no account, no trial: 401" 0 "^401$" -- status
try "$ANN" /dev/null >/dev/null
expect "an empty source: 422, before any limit is spent" 0 "^422$" -- status

wrong=$(try "$ANN" tests/service/kernels/wrong.cu | jq -r .id)
trial_done "$ANN" "$wrong" >"$TMP/wrong.json"
sub=$(submit_kernel "$ANN" tiny-add tests/service/kernels/wrong.cu)
wait_done "$ANN" "$sub" >/dev/null
api GET "/api/v1/submissions/$sub" -H "Authorization: Bearer $ANN" >"$TMP/sub.json"
expect "a wrong kernel's trial has the submission's verdict at the same size" 0 \
    '^wrong_answer n=100 / wrong_answer n=100$' -- bash -c \
    "echo \"$(jq -r '"\(.verdict) n=\(.result.correctness.cases[-1].sizes.n)"' "$TMP/wrong.json") / $(jq -r '"\(.verdict) n=\(.result.correctness.cases[-1].sizes.n)"' "$TMP/sub.json")\""
expect "... and the inputs at the wrong element" 0 '^\["a","b"\]$' -- \
    jq -c '[.result.correctness.cases[-1].first_mismatch.inputs[].name]' "$TMP/wrong.json"
good=$(submit_kernel "$ANN" tiny-add tests/service/kernels/good.cu)
expect "a good kernel's submission passes as its trial did" 0 "^passed$" -- wait_done "$ANN" "$good"
mine=$(api GET /api/v1/submissions -H "Authorization: Bearer $ANN" | jq '.submissions | length')
expect "the student's submissions are the two submitted, no trial" 0 "^2$" -- echo "$mine"

# bob: trials only, never a submission
bobs=$(try "$BOB" tests/service/kernels/good.cu | jq -r .id)
trial_done "$BOB" "$bobs" >/dev/null
api GET /api/v1/scoreboard/tiny-add >"$TMP/scoreboard"
expect "a student with only trials is not on the scoreboard" 0 "^ann$" -- \
    jq -r '[.. | objects | select(has("rank")) | .user] | unique | join(" ")' "$TMP/scoreboard"
api GET /api/v1/export/grades.csv -H "Authorization: Bearer $TEACH" >"$TMP/grades.csv"
expect "... nor graded in the export (a row of bob's, if any, has no verdict)" 1 "^0$" -- \
    bash -c "grep bob '$TMP/grades.csv' | grep -cE 'passed|wrong_answer'"

# ann has spent 3 of her 6 a minute (good, the refused one, wrong; the
# empty one did not count); three more, then 429
for _ in 1 2 3; do
    last=$(try "$ANN" tests/service/kernels/good.cu | jq -r .id)
    trial_done "$ANN" "$last" >/dev/null
done
try "$ANN" tests/service/kernels/good.cu -D "$TMP/headers3" >"$TMP/limited"
expect "over the trials a minute: 429 rate_limited with a sentence" 0 "^429 rate_limited .*trials a minute" -- \
    bash -c "echo \"$(status) $(jq -r '.error.code + " " + .error.message' "$TMP/limited")\""
expect "... and Retry-After" 0 "^Retry-After: [0-9]+" -- cat "$TMP/headers3"

kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
finish
