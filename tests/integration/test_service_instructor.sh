#!/usr/bin/env bash
# Integration tests of the instructors' tools of `kgrade serve`, on a
# server of their own: hiding a submission with a reason (stored with who
# and when, shown to its owner and to instructors, never to other students
# nor on the scoreboard; too long a reason is 422; the bare POST of before
# still hides; showing again clears it; the audit log keeps the reason),
# regrading every submission of an exercise by its own route (what it would
# do first, then done; unknown exercise 404, nothing to regrade 409,
# students 403) and by the older form through a submission, one
# submission's regrade, and instructors listing every certificate issued
# (?all=true; students 403).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

EXERCISES=tests/service/exercises
KERNELS=tests/service/kernels
. tests/integration/service_lib.sh

# as_admin METHOD PATH [BODY]: the admin's session, a JSON body
as_admin() {
    api "$1" "$2" -b "$TMP/admin.jar" -H "X-CSRF-Token: $ADMIN_CSRF" \
        -H 'Content-Type: application/json' --data-binary "${3:-{\}}"
}
# "STATUS BODY" of the last call
answered() { echo "$(cat "$TMP/status") $(cat "$TMP/body")"; }
# field TOKEN ID JQ: a field of a submission as TOKEN's owner sees it
field() { curl -s -H "Authorization: Bearer $1" "$BASE/api/v1/submissions/$2" | jq -r "$3"; }
# the newest audit entry as "action|target|detail"
newest_audit() { curl -s -b "$TMP/admin.jar" "$BASE/api/v1/audit" | jq -r '.entries[0] | "\(.action)|\(.target)|\(.detail)"'; }

start_server "$EXERCISES" || exit 1
ADMIN_PASSWORD=$(grep -A2 'one-time password' "$TMP/server.out" | tail -1 | tr -d ' ')
ADMIN_CSRF=$(login admin "$ADMIN_PASSWORD" "$TMP/admin.jar")
as_admin POST /api/v1/me/password \
    "{\"current_password\": \"$ADMIN_PASSWORD\", \"new_password\": \"admin-password\"}" >/dev/null
SAM=$(student_token sam)
TOM=$(student_token tom)

sam_good=$(submit_kernel "$SAM" tiny-add "$KERNELS/good.cu")
tom_good=$(submit_kernel "$TOM" tiny-add "$KERNELS/good.cu")
expect "sam's kernel passes" 0 "^passed$" -- wait_done "$SAM" "$sam_good"
expect "tom's kernel passes" 0 "^passed$" -- wait_done "$TOM" "$tom_good"

# ---- hiding with a reason
as_admin POST "/api/v1/submissions/$sam_good/hide" \
    '{"hidden": true, "reason": "the same kernel as tom'"'"'s, character for character"}' >/dev/null
expect "an instructor hides a submission with a reason" 0 \
    '^200 \{"id":[0-9]+,"hidden":true,"hidden_reason":"the same kernel as tom.s, character for character"\}$' -- answered
expect "its owner reads the reason, who hid it and when" 0 "^true the same kernel as tom's, character for character admin true$" -- \
    field "$SAM" "$sam_good" '"\(.hidden) \(.hidden_reason) \(.hidden_by) \(.hidden_at != null)"'
expect "... and in their list" 0 "^the same kernel as tom's, character for character$" -- bash -c \
    "curl -s -H 'Authorization: Bearer $SAM' $BASE/api/v1/submissions | jq -r '.submissions[] | select(.id == $sam_good) | .hidden_reason'"
expect "instructors read it too" 0 "^the same kernel as tom's, character for character$" -- bash -c \
    "curl -s -b $TMP/admin.jar '$BASE/api/v1/submissions?user=sam' | jq -r '.submissions[0].hidden_reason'"
api GET "/api/v1/submissions/$sam_good" -H "Authorization: Bearer $TOM" >/dev/null
expect "another student cannot read it (404)" 0 "^404$" -- status
expect "nor find it on the scoreboard" 0 "^tom 0$" -- bash -c \
    "curl -s $BASE/api/v1/scoreboard/tiny-add | jq -r '\"\([.rows[].user] | join(\",\")) \(tostring | [scan(\"character\")] | length)\"'"
expect "the audit log keeps the reason, and whose submission it was" 0 \
    "^hide\|submission $sam_good of sam\|the same kernel as tom's, character for character$" -- newest_audit

long=$(printf 'x%.0s' $(seq 501))
as_admin POST "/api/v1/submissions/$tom_good/hide" "{\"reason\": \"$long\"}" >/dev/null
expect "a reason over 500 bytes is 422, saying the limit" 0 \
    '^422 \{"error":\{"code":"reason_too_long","message":"the reason is 501 bytes long; at most 500 are kept: shorten it"\}\}$' -- answered
expect "... and hides nothing" 0 "^false$" -- field "$TOM" "$tom_good" .hidden
as_admin POST "/api/v1/submissions/$tom_good/hide" "{\"reason\": \"${long:1}\"}" >/dev/null
expect "500 bytes are kept" 0 "^200 500$" -- bash -c "echo \$(cat $TMP/status) \$(jq '.hidden_reason | length' $TMP/body)"
as_admin POST "/api/v1/submissions/$tom_good/hide" '{"reason": 42}' >/dev/null
expect "a reason that is no string is 422" 0 "^422 .*\"code\":\"invalid\"" -- answered
as_admin POST "/api/v1/submissions/$tom_good/hide" '{"hidden": "yes"}' >/dev/null
expect "a hidden flag that is no boolean is 422" 0 "^422 .*\"code\":\"invalid\"" -- answered
as_admin POST "/api/v1/submissions/$tom_good/hide" '{"hidden": tru' >/dev/null
expect "a body that is no JSON is 400" 0 "^400 .*\"code\":\"bad_json\"" -- answered
as_admin POST "/api/v1/submissions/99999/hide" '{"reason": "x"}' >/dev/null
expect "no such submission is 404" 0 "^404$" -- status
api POST "/api/v1/submissions/$tom_good/hide" -H "Authorization: Bearer $SAM" \
    -H 'Content-Type: application/json' --data-binary '{"reason": "x"}' >/dev/null
expect "a student cannot hide (403)" 0 "^403$" -- status
as_admin POST "/api/v1/submissions/$tom_good/hide" '{"hidden": false}' >/dev/null
expect "shown again, the reason is gone" 0 "^false null null$" -- \
    field "$TOM" "$tom_good" '"\(.hidden) \(.hidden_reason) \(.hidden_by)"'
expect "... and the audit log says show" 0 "^show\|submission $tom_good of tom\|null$" -- newest_audit
api POST "/api/v1/submissions/$tom_good/hide" -b "$TMP/admin.jar" -H "X-CSRF-Token: $ADMIN_CSRF" >/dev/null
expect "a bare POST still hides, with no reason (the API of before)" 0 "^200 .*\"hidden\":true,\"hidden_reason\":null" -- answered
as_admin POST "/api/v1/submissions/$tom_good/hide" '{"hidden": false}' >/dev/null

# ---- regrading every submission of an exercise
as_admin GET /api/v1/exercises/tiny-add/regrade >/dev/null
expect "what a regrade of the exercise would do" 0 '^200 \{"exercise":"tiny-add","regradable":2,"queue_length":0\}$' -- answered
as_admin POST /api/v1/exercises/tiny-add/regrade >/dev/null
expect "the exercise's route queues each graded submission again" 0 \
    '^202 \{"exercise":"tiny-add","requeued":2,"queue_length":[0-2]\}$' -- answered
expect "the audit log says so" 0 "^regrade\|exercise tiny-add\|2 submissions$" -- newest_audit
expect "sam's is graded again" 0 "^passed$" -- wait_done "$SAM" "$sam_good"
expect "tom's too" 0 "^passed$" -- wait_done "$TOM" "$tom_good"
expect "the old result is kept beside the new" 0 "^2$" -- field "$SAM" "$sam_good" '.results | length'
expect "a hidden submission stays hidden, with its reason, through a regrade" 0 "^true$" -- \
    field "$SAM" "$sam_good" '.hidden and (.hidden_reason | length > 0)'
as_admin POST /api/v1/exercises/no-such-exercise/regrade >/dev/null
expect "an unknown exercise is 404" 0 '^404 .*no exercise .no-such-exercise.' -- answered
as_admin GET /api/v1/exercises/no-such-exercise/regrade >/dev/null
expect "... also when asking what a regrade would do" 0 "^404$" -- status
as_admin POST /api/v1/exercises/tiny-add-twice/regrade >/dev/null
expect "an exercise with nothing graded is 409" 0 '^409 .*"code":"nothing_to_regrade"' -- answered
api POST /api/v1/exercises/tiny-add/regrade -H "Authorization: Bearer $SAM" >/dev/null
expect "a student cannot regrade an exercise (403)" 0 "^403$" -- status
api GET /api/v1/exercises/tiny-add/regrade -H "Authorization: Bearer $SAM" >/dev/null
expect "... nor ask what it would do (403)" 0 "^403$" -- status
as_admin POST "/api/v1/submissions/$tom_good/regrade" '{"all_of_exercise": true}' >/dev/null
expect "the older form, through one submission, still regrades the whole exercise" 0 \
    '^202 \{"exercise":"tiny-add","requeued":2,' -- answered
wait_done "$SAM" "$sam_good" >/dev/null
wait_done "$TOM" "$tom_good" >/dev/null
as_admin POST "/api/v1/submissions/$tom_good/regrade" >/dev/null
expect "one submission's regrade answers its place in the queue" 0 '^202 \{"requeued":1,"queue_position":[01]\}$' -- answered
expect "the audit log names the submission and its owner" 0 "^regrade\|submission $tom_good of tom\|null$" -- newest_audit
wait_done "$TOM" "$tom_good" >/dev/null

# ---- every certificate, for instructors
wait_done "$SAM" "$(submit_kernel "$SAM" tiny-add-twice "$KERNELS/good.cu")" >/dev/null
expect "instructors list every certificate, with student and course title" 0 \
    "^1 sam sam The service's test course false$" -- bash -c \
    "curl -s -b $TMP/admin.jar '$BASE/api/v1/certificates?all=true' | jq -r '.certificates | \"\(length) \(.[0].user) \(.[0].display_name) \(.[0].course_title) \(.[0].revoked)\"'"
api GET "/api/v1/certificates?all=true" -H "Authorization: Bearer $TOM" >/dev/null
expect "a student cannot list everyone's (403)" 0 "^403$" -- status
expect "a student still lists their own" 0 "^1$" -- bash -c \
    "curl -s -H 'Authorization: Bearer $SAM' '$BASE/api/v1/certificates?user=me' | jq '.certificates | length'"
finish
