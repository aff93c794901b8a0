#!/usr/bin/env bash
# Integration tests of opening times, deadlines, extensions and the
# gradebook through `kgrade serve`: dates from the files (a bad one refused
# naming the file and the key), an exercise not yet open refused to a
# student (403 not_open, for a submission and a trial alike) but not to an
# instructor, an instructor's override
# that wins over the file until cleared, a submission after the deadline
# graded and marked late and not counted (no certificate, the gradebook's
# late mark), an extension that makes it count (the certificate issued at
# once), the gradebook JSON with a student who never submitted, the long
# and wide CSV with their dates (a display name that is a spreadsheet
# formula written inert), and the audit log.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/service_lib.sh

EXERCISES="$TMP/exercises"
mkdir -p "$EXERCISES/courses"
cp -r tests/service/exercises/tiny-add tests/service/exercises/tiny-add-twice "$EXERCISES/"
cp tests/service/exercises/courses/test-course.json "$EXERCISES/courses/"
# tiny-add-twice opens in 2099; a second course file has a time without a zone
jq '.opens = "2099-01-01T00:00:00+01:00"' tests/service/exercises/tiny-add-twice/exercise.json \
    >"$EXERCISES/tiny-add-twice/exercise.json"
jq '.id = "broken" | .deadline = "2026-12-15T23:59"' tests/service/exercises/courses/test-course.json \
    >"$EXERCISES/courses/broken.json"
start_server "$EXERCISES" || exit 1
SAM=$(student_token sam)
# nora never submits; her display name is a spreadsheet formula, which the CSV makes inert
printf 'name,display_name,role\nnora,"=HYPERLINK(""http://evil.example/"",""nora"")",student\n' |
    "$KGRADE" --db "$DATA/kgrade.db" user import - >/dev/null
echo "teach-password" | "$KGRADE" --db "$DATA/kgrade.db" user add teach --role instructor --password-stdin >/dev/null
TEACH=$("$KGRADE" --db "$DATA/kgrade.db" token create teach)
as_teacher() { api "$1" "$2" -H "Authorization: Bearer $TEACH" -H 'Content-Type: application/json' "${@:3}"; }
in_days() { date -u -d "$1 days" +%Y-%m-%dT%H:%M:%SZ; }

# ---- dates from the files
expect "an exercise's dates: its own, else its course's, in UTC" 0 \
    '^2030-06-30T21:59:00.000Z 2026-01-01T00:00:00.000Z 2098-12-31T23:00:00.000Z$' -- bash -c \
    "curl -s $BASE/api/v1/exercises | jq -r '[(.[] | select(.id == \"tiny-add\") | .deadline, .opens), (.[] | select(.id == \"tiny-add-twice\") | .opens)] | join(\" \")'"
expect "the courses carry their dates" 0 '^2030-06-30T21:59:00.000Z$' -- bash -c \
    "curl -s $BASE/api/v1/courses | jq -r '.courses[] | select(.id == \"test-course\") | .deadline'"
expect "a time without a zone is refused, naming the file and the key" 0 \
    "courses/broken.json: deadline: '2026-12-15T23:59' has no time zone" -- bash -c \
    "curl -s $BASE/api/v1/courses | jq -r '.courses[] | select(.id == \"broken\") | .error'"
jq '.deadline = "2026-02-30T00:00:00Z"' tests/service/exercises/tiny-add/exercise.json >"$TMP/bad.json"
mkdir -p "$TMP/bad/tiny-add" && cp "$TMP/bad.json" "$TMP/bad/tiny-add/exercise.json"
expect "an exercise with a bad date is listed with its error" 0 \
    "tiny-add/exercise.json: deadline: '2026-02-30T00:00:00Z' names no such day" -- \
    "$KGRADE" exercises --exercises "$TMP/bad" --json

# ---- not open yet
submit_kernel "$SAM" tiny-add-twice tests/service/kernels/good.cu >/dev/null
expect "a student's submission before the opening is 403 not_open" 0 "^403$" -- status
expect "... saying when it opens" 0 "opens at 2098-12-31T23:00:00.000Z" -- cat "$TMP/body"
expect "... with the API's error shape" 0 "^not_open$" -- jq -r .error.code "$TMP/body"
jq -c .error "$TMP/body" >"$TMP/submit-error"
try_twice() {
    api POST /api/v1/trials -H "Authorization: Bearer $1" -H 'Content-Type: application/json' \
        --data-binary "{\"exercise\": \"tiny-add-twice\", \"source\": $(jq -Rs . <tests/service/kernels/good.cu)}"
}
try_twice "$SAM" >/dev/null
expect "a student's trial before the opening is refused as the submission was: 403 not_open" 0 \
    "^403 same$" -- bash -c "echo \$(cat $TMP/status) \$([[ \$(jq -c .error $TMP/body) == \$(cat $TMP/submit-error) ]] && echo same || cat $TMP/body)"
try_twice "$TEACH" >/dev/null
expect "an instructor may try before the opening" 0 "^202$" -- status
early=$(submit_kernel "$TEACH" tiny-add-twice tests/service/kernels/good.cu)
expect "an instructor may submit before the opening" 0 "^passed$" -- wait_done "$TEACH" "$early"

# ---- an override: a deadline in the past for tiny-add
as_teacher PUT /api/v1/exercises/tiny-add/dates --data-binary '{"deadline": "2026-12-15T23:59"}' >/dev/null
expect "a date without a zone is 422, saying so" 0 "^422 .*no time zone" -- bash -c "echo \"\$(cat $TMP/status) \$(cat $TMP/body)\""
api PUT /api/v1/exercises/tiny-add/dates -H "Authorization: Bearer $SAM" -H 'Content-Type: application/json' \
    --data-binary '{"deadline": null}' >/dev/null
expect "a student may not set dates" 0 "^403$" -- status
as_teacher PUT /api/v1/exercises/nope/dates --data-binary '{"deadline": null}' >/dev/null
expect "an unknown exercise's dates are 404" 0 "^404$" -- status
as_teacher PUT /api/v1/exercises/tiny-add/dates --data-binary "{\"deadline\": \"$(in_days -1)\"}" >/dev/null
expect "an instructor sets tiny-add's deadline to yesterday" 0 "^200$" -- status
expect "... and the exercise shows it" 0 "^$(in_days -1 | cut -c1-10)" -- bash -c \
    "curl -s $BASE/api/v1/exercises/tiny-add | jq -r .deadline"
as_teacher PUT /api/v1/exercises/tiny-add-twice/dates --data-binary '{"opens": null, "deadline": null}' >/dev/null
expect "an override with no dates of its own takes its course's: tiny-add-twice is open" 0 \
    "^2026-01-01T00:00:00.000Z$" -- bash -c "curl -s $BASE/api/v1/exercises/tiny-add-twice | jq -r .opens"

# ---- a late submission: graded, marked, not counted
late=$(submit_kernel "$SAM" tiny-add tests/service/kernels/good.cu)
expect "a submission after the deadline is taken and graded" 0 "^passed$" -- wait_done "$SAM" "$late"
expect "... and marked late, with the deadline" 0 "^true $(in_days -1 | cut -c1-10)" -- bash -c \
    "curl -s -H 'Authorization: Bearer $SAM' $BASE/api/v1/submissions/$late | jq -r '\"\(.late) \(.deadline)\"'"
expect "... in the student's list too" 0 "^true$" -- bash -c \
    "curl -s -H 'Authorization: Bearer $SAM' '$BASE/api/v1/submissions?exercise=tiny-add' | jq -r '.submissions[0].late'"
twice=$(submit_kernel "$SAM" tiny-add-twice tests/service/kernels/good.cu)
expect "the other assessment passes on time" 0 "^passed$" -- wait_done "$SAM" "$twice"
certificates_of_sam() { curl -s -H "Authorization: Bearer $SAM" "$BASE/api/v1/certificates?user=me" | jq '.certificates | length'; }
expect "a late pass does not earn the certificate" 0 "^0$" -- certificates_of_sam

as_teacher GET /api/v1/gradebook >"$TMP/book.json"
expect "the gradebook lists every student, one who never submitted too" 0 '^\["nora","sam"\]$' -- \
    jq -c '[.students[].name]' "$TMP/book.json"
expect "... the exercises in course order, assessments marked" 0 '^\[\["tiny-add",true\],\["tiny-add-twice",true\]\]$' -- \
    jq -c '[.exercises[] | [.id, .assessment]]' "$TMP/book.json"
expect "... the late pass marked, not counted" 0 '^"failed" true null 1$' -- \
    jq -r '.students[1] | "\(.cells["tiny-add"].status | tojson) \(.cells["tiny-add"].late) \(.cells["tiny-add"].best_ratio) \(.assessments_passed)"' "$TMP/book.json"
expect "... and nora has no cells" 0 '^\{\}$' -- jq -c '.students[0].cells' "$TMP/book.json"
as_teacher GET "/api/v1/gradebook?course=nope" >/dev/null
expect "an unknown course's gradebook is 404" 0 "^404$" -- status
expect "the long CSV keeps its columns and appends the dates and the late mark" 0 \
    '^sam,sam,tiny-add,failed,,1,20[0-9-]{8}T[0-9:.]{12}Z,,late$' -- \
    curl -s -H "Authorization: Bearer $TEACH" "$BASE/api/v1/export/grades.csv"
expect "... under its header" 0 '^name,display_name,exercise,status,best_ratio,submissions,first_submitted_at,best_submitted_at,late$' -- \
    curl -s -H "Authorization: Bearer $TEACH" "$BASE/api/v1/export/grades.csv"
api GET "/api/v1/export/grades.csv?format=tall" -H "Authorization: Bearer $TEACH" >/dev/null
expect "an unknown CSV format is 422" 0 "^422$" -- status

# ---- an extension makes the late pass count; the certificate comes at once
as_teacher POST /api/v1/extensions --data-binary "{\"user\": \"sam\", \"exercise\": \"tiny-add\", \"deadline\": \"$(in_days 2)\"}" >"$TMP/ext.json"
expect "an instructor grants sam an extension on tiny-add" 0 "^201$" -- status
expect "the late submission now counts" 0 "^false$" -- bash -c \
    "curl -s -H 'Authorization: Bearer $SAM' $BASE/api/v1/submissions/$late | jq -r .late"
expect "the extension issued the certificate at once" 0 "^1$" -- certificates_of_sam
as_teacher GET /api/v1/gradebook >"$TMP/book.json"
expect "the gradebook counts it: passed, 2 assessments, the certificate" 0 '^passed false 2 true$' -- \
    jq -r '.students[1] | "\(.cells["tiny-add"].status) \(.cells["tiny-add"].late) \(.assessments_passed) \(.certificate.id | length == 26)"' "$TMP/book.json"
curl -s -H "Authorization: Bearer $TEACH" "$BASE/api/v1/export/grades.csv?format=wide" >"$TMP/wide.csv"
expect "the wide CSV: a header with each exercise's columns in course order" 0 \
    '^name,display_name,tiny-add.status,tiny-add.best_ratio,tiny-add.best_submitted_at,tiny-add.late,tiny-add-twice.status,tiny-add-twice.best_ratio,tiny-add-twice.best_submitted_at,tiny-add-twice.late,assessments_passed,certificate_id,certificate_issued_at,certificate_revoked$' -- \
    head -1 "$TMP/wide.csv"
expect "... one row per student, nora's untried, her formula of a name quoted with a ' (inert)" 0 \
    "^nora,\"'=HYPERLINK\(\"\"http://evil.example/\"\",\"\"nora\"\"\)\",untried,,,,untried,,,,0,,,\$" -- cat "$TMP/wide.csv"
expect "... sam's with ratios, dates and the certificate" 0 \
    '^sam,sam,passed,1\.00,20[0-9-]{8}T[0-9:.]{12}Z,,passed,[0-9.]+,20[0-9-]{8}T[0-9:.]{12}Z,,2,[a-z2-7]{26},20[0-9-]{8}T[0-9:.]{12}Z,$' -- cat "$TMP/wide.csv"
as_teacher GET /api/v1/extensions >/dev/null
expect "the extensions are listed" 0 '^sam exercise tiny-add$' -- jq -r '.extensions[] | "\(.user) \(.scope) \(.name)"' "$TMP/body"
as_teacher DELETE "/api/v1/extensions/$(jq -r .id "$TMP/ext.json")" >/dev/null
expect "an extension is revoked" 0 "^200$" -- status
expect "... and the submission is late again (the certificate stays)" 0 "^true 1$" -- bash -c \
    "echo \"\$(curl -s -H 'Authorization: Bearer $SAM' $BASE/api/v1/submissions/$late | jq -r .late) \$(curl -s -H 'Authorization: Bearer $SAM' '$BASE/api/v1/certificates?user=me' | jq '.certificates | length')\""

# ---- clearing the override: the file's dates again
as_teacher DELETE /api/v1/exercises/tiny-add/dates >/dev/null
expect "an override cleared: the file's (course's) deadline again" 0 "^2030-06-30T21:59:00.000Z$" -- bash -c \
    "curl -s $BASE/api/v1/exercises/tiny-add | jq -r .deadline"
expect "... and the submission is on time again" 0 "^false$" -- bash -c \
    "curl -s -H 'Authorization: Bearer $SAM' $BASE/api/v1/submissions/$late | jq -r .late"
as_teacher PUT /api/v1/courses/test-course/dates --data-binary "{\"opens\": \"$(in_days -10)\", \"deadline\": \"$(in_days -20)\"}" >/dev/null
expect "a deadline before the opening is 422" 0 "^422$" -- status
expect "every change is in the audit log" 0 "^extension revoke,extension grant,dates set,dates set,dates clear|dates clear,extension revoke,extension grant,dates set,dates set$" -- bash -c \
    "curl -s -H 'Authorization: Bearer $TEACH' $BASE/api/v1/audit | jq -r '[.entries[].action | select(startswith(\"dates\") or startswith(\"extension\"))] | join(\",\")'"
kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
finish
