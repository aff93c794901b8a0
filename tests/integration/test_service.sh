#!/usr/bin/env bash
# Integration tests of `kgrade serve`: the real daemon on a loopback port,
# with a temporary data folder and a small exercise set
# (tests/service/exercises), driven with curl: the whole journey (accounts,
# login, a token, a good and a bad kernel, the event stream, results,
# scoreboards, CSV), every error status, an idempotent retry (not counted
# by the rate limit; a key reused for another request refused), the rate
# limit and a full queue, a kill -9 with queued and running submissions and
# a restart (each graded exactly once), 50 concurrent submissions, and a
# SIGTERM that drains.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

. tests/integration/service_lib.sh

EXERCISES=tests/service/exercises
KERNELS=tests/service/kernels

json() { printf -- '-H\nContent-Type: application/json\n--data-binary\n%s' "$1"; }
source_of() { jq -Rs . <"$1"; }

# submit TOKEN FILE [extra curl args]: a tiny-add submission; prints its id
submit() { submit_kernel "$1" tiny-add "$2" "${@:3}"; }

# The 50 concurrent submissions below are 25 per user: more than a user may
# have waiting by default (test_service_queue.sh tests that cap).
mkdir -m 700 "$DATA" && echo '{"queue_max_per_user": 50}' >"$DATA/config.json"
start_server "$EXERCISES" || exit 1
ADMIN_PASSWORD=$(grep -A2 'temporary password' "$TMP/server.out" | tail -1 | tr -d ' ')
expect "a new database gets an admin with a temporary password" 0 "^[A-Za-z0-9]{16}$" -- \
    echo "$ADMIN_PASSWORD"
expect "serve prints the sandbox's protections" 0 "seccomp +active" -- cat "$TMP/server.out"

# ---- certificates: the signing key, and kgrade cert verify against an independent signer
expect "the signing key is made at the first start with mode 0600" 0 "^600$" -- stat -c %a "$DATA/signing.key"
KEY=$(curl -s "$BASE/api/v1/certificates/public-key" | jq -r 'select(.algorithm == "Ed25519") | .public_key')
expect "the public key is published: 32 bytes of base64" 0 "^32$" -- bash -c "base64 -d <<<'$KEY' | wc -c"
# Sign as any Ed25519 implementation would (OpenSSL), with the server's key.
{ printf '302e020100300506032b657004220420' | xxd -r -p; head -c 32 "$DATA/signing.key"; } |
    openssl pkey -inform DER -out "$TMP/key.pem" 2>/dev/null
# ID NAME REVOKED [FORMAT RATIO] -> a certificate file on stdout; by default
# of the first format (kgrade-certificate/1, two decimals), as issued before
# issue 16.
certificate() {
    local format=${4:-kgrade-certificate/1} ratio=${5:-1.00}
    local payload="{\"assessments\":[{\"exercise\":\"tiny-add\",\"ratio\":\"$ratio\",\"submission\":1}],\"course\":{\"id\":\"test-course\",\"title\":\"T\"},\"format\":\"$format\",\"id\":\"$1\",\"issued_on\":\"2026-11-24\",\"student\":\"$2\"}"
    printf '%s' "$payload" >"$TMP/payload"
    local sig
    sig=$(openssl pkeyutl -sign -rawin -inkey "$TMP/key.pem" -in "$TMP/payload" | base64 -w0)
    jq -n --arg id "$1" --arg p "$payload" --arg s "$sig" --argjson r "$3" \
        '{id: $id, course: "test-course", payload: $p, signature: $s, revoked: $r, revoked_reason: "copied"}'
}
certificate abc Sam false >"$TMP/good-cert.json"
expect "cert verify --server: a certificate signed with the server's key is valid" 0 "^VALID: T, Sam, issued on 2026-11-24" -- \
    "$KGRADE" cert verify --server "$BASE" "$TMP/good-cert.json"
expect "cert verify --public-key agrees" 0 "^VALID" -- "$KGRADE" cert verify --public-key "$KEY" "$TMP/good-cert.json"
expect "an old-format (/1) certificate still verifies, its ratio as signed" 0 "^  tiny-add: 1\.00×$" -- \
    "$KGRADE" cert verify --public-key "$KEY" "$TMP/good-cert.json"
certificate abc Sam false kgrade-certificate/1 0.00 >"$TMP/old-fast-cert.json"
expect "an old-format 0.00 reads as what it meant" 0 "^  tiny-add: under 0\.005×, over 200× faster than the reference$" -- \
    "$KGRADE" cert verify --public-key "$KEY" "$TMP/old-fast-cert.json"
certificate abc Sam false kgrade-certificate/2 0.00484 >"$TMP/new-cert.json"
expect "a kgrade-certificate/2 verifies, its ratio with three significant figures" 0 \
    "^  tiny-add: 0\.00484×, 207× faster than the reference$" -- \
    "$KGRADE" cert verify --public-key "$KEY" "$TMP/new-cert.json"
certificate abc Sam false kgrade-certificate/3 0.00484 >"$TMP/future-cert.json"
expect "a format kgrade never issued is not valid, whoever signed it" 1 "NOT VALID: the payload is not a kgrade-certificate/2" -- \
    "$KGRADE" cert verify --public-key "$KEY" "$TMP/future-cert.json"
jq '.payload |= sub("Sam"; "Sal")' "$TMP/good-cert.json" >"$TMP/tampered.json"
expect "one byte of the name changed: not valid" 1 "NOT VALID: the signature does not match" -- \
    "$KGRADE" cert verify --public-key "$KEY" "$TMP/tampered.json"
jq '.id = "xyz"' "$TMP/good-cert.json" >"$TMP/other-id.json"
expect "a payload for another id: not valid" 1 "NOT VALID: the payload is not a kgrade-certificate/2 \(or kgrade-certificate/1\) for the certificate xyz" -- \
    "$KGRADE" cert verify --public-key "$KEY" "$TMP/other-id.json"
certificate abc Sam true >"$TMP/revoked-cert.json"
expect "a certificate marked revoked: exit 1, with the reason" 1 "REVOKED: copied" -- \
    "$KGRADE" cert verify --public-key "$KEY" "$TMP/revoked-cert.json"
expect "cert verify --server with no server there: exit 4" 4 "no public key" -- \
    "$KGRADE" cert verify --server "http://127.0.0.1:$((PORT + 1))" "$TMP/good-cert.json"

# ---- accounts, sessions, tokens
ADMIN_CSRF=$(login admin "$ADMIN_PASSWORD" "$TMP/admin.jar")
expect "the admin logs in" 0 "^200$" -- status
# a temporary password is changed before anything else (test_service_accounts.sh)
api POST /api/v1/me/password -b "$TMP/admin.jar" -H "X-CSRF-Token: $ADMIN_CSRF" \
    -H 'Content-Type: application/json' \
    --data-binary "{\"current_password\": \"$ADMIN_PASSWORD\", \"new_password\": \"admin-password\"}" >/dev/null
expect "the admin changes the temporary password" 0 "^200$" -- status
expect "the session cookie is HttpOnly and SameSite=Strict" 0 "HttpOnly.*SameSite=Strict|#HttpOnly" -- \
    grep -i kgrade_session "$TMP/admin.jar"
api POST /api/v1/users -b "$TMP/admin.jar" -H "X-CSRF-Token: $ADMIN_CSRF" \
    -H 'Content-Type: application/json' \
    --data-binary '{"name": "sam", "display_name": "Sam <script>", "role": "student", "password": "sam-first-password"}' >/dev/null
expect "an instructor adds a student" 0 "^201$" -- status
api POST /api/v1/users -b "$TMP/admin.jar" -H 'Content-Type: application/json' \
    --data-binary '{"name": "eve", "role": "student"}' >/dev/null
expect "a session's state change without its CSRF token is 403" 0 "^403$" -- status
api POST /api/v1/users -b "$TMP/admin.jar" -H "X-CSRF-Token: $ADMIN_CSRF" \
    -H 'Content-Type: application/json' --data-binary '{"name": "sam", "role": "student"}' >/dev/null
expect "a second sam is 409" 0 "^409$" -- status
for u in tom una; do
    api POST /api/v1/users -b "$TMP/admin.jar" -H "X-CSRF-Token: $ADMIN_CSRF" \
        -H 'Content-Type: application/json' \
        --data-binary "{\"name\": \"$u\", \"role\": \"student\", \"password\": \"$u-first-password\"}" >/dev/null
done
# a first password, someone else's choice, is replaced by its owner first
for u in sam tom una; do own_password "$u" "$u-first-password" "$u-password"; done
api POST /api/v1/login -H 'Content-Type: application/json' \
    --data-binary '{"name": "sam", "password": "wrong-password"}' >/dev/null
expect "a wrong password is 401" 0 "^401$" -- status
SAM_CSRF=$(login sam sam-password "$TMP/sam.jar")
SAM=$(api POST /api/v1/tokens -b "$TMP/sam.jar" -H "X-CSRF-Token: $SAM_CSRF" \
    -H 'Content-Type: application/json' --data-binary '{"name": "ci"}' | jq -r .token)
expect "a student creates an API token, shown once" 0 "^kg_" -- echo "$SAM"
TOM=$("$KGRADE" --db "$DATA/kgrade.db" token create tom)
UNA=$("$KGRADE" --db "$DATA/kgrade.db" token create una)
expect "the token list never shows a token" 0 "^true$" -- bash -c \
    "curl -s -H 'Authorization: Bearer $SAM' $BASE/api/v1/tokens | jq -e '(.tokens | length) == 1 and (tostring | contains(\"kg_\") | not)'"

# ---- the journey: a good and a bad kernel
good=$(submit "$SAM" "$KERNELS/good.cu")
expect "a submission is accepted with 202" 0 "^202$" -- status
expect "its event stream ends with done and the verdict" 0 '^data: \{"id":[0-9]+,"verdict":"passed"\}$' -- \
    timeout 60 curl -s -N -H "Authorization: Bearer $SAM" "$BASE/api/v1/submissions/$good/events"
expect "the event stream tells the phases" 0 "^event: compiling$" -- \
    timeout 60 curl -s -N -H "Authorization: Bearer $SAM" "$BASE/api/v1/submissions/$good/events"
expect "the good kernel passes" 0 "^passed$" -- wait_done "$SAM" "$good"
expect "its result is the grade JSON" 0 "^true$" -- jq -e \
    '.result.verdict == "passed" and .result.exercise == "tiny-add" and .user == "sam" and (.source | length) > 0' "$TMP/body"
wrong=$(submit "$SAM" "$KERNELS/wrong.cu")
expect "the wrong kernel is wrong_answer" 0 "^wrong_answer$" -- wait_done "$SAM" "$wrong"
expect "a student lists their submissions" 0 "^2$" -- \
    bash -c "curl -s -H 'Authorization: Bearer $SAM' $BASE/api/v1/submissions | jq '.submissions | length'"
tom_good=$(submit "$TOM" "$KERNELS/good.cu")
wait_done "$TOM" "$tom_good" >/dev/null
api GET "/api/v1/submissions/$good" -H "Authorization: Bearer $TOM" >/dev/null
expect "another student's submission is 404" 0 "^404$" -- status
expect "the scoreboard ranks passing users by display name" 0 "^2 Sam <script>$" -- \
    bash -c "curl -s $BASE/api/v1/scoreboard/tiny-add | jq -r '\"\(.rows | length) \(.rows[0].user // .rows[1].user)\"'"
expect "the course scoreboard counts assessments" 0 "^true$" -- bash -c \
    "curl -s $BASE/api/v1/scoreboard/course/test-course | jq -e '.assessments == [\"tiny-add\", \"tiny-add-twice\"] and (.rows | length) == 2'"
expect "the grades export as CSV" 0 "^sam,Sam <script>,tiny-add,passed," -- \
    curl -s -b "$TMP/admin.jar" "$BASE/api/v1/export/grades.csv"
expect "the metrics count the verdicts" 0 '^kgrade_submissions_total\{verdict="passed"\} 2$' -- \
    curl -s "$BASE/metrics"

# ---- instructors: hide, regrade, the audit log; a token revoked
board() { curl -s "$BASE/api/v1/scoreboard/tiny-add" | jq -r '[.rows[].user] | sort | join(",")'; }
expect "the scoreboard before a hide" 0 "^Sam <script>,tom$" -- board
admin_post() { # PATH [BODY]
    api POST "$1" -b "$TMP/admin.jar" -H "X-CSRF-Token: $ADMIN_CSRF" \
        -H 'Content-Type: application/json' --data-binary "${2:-{\}}"
}
api POST "/api/v1/submissions/$good/hide" -H "Authorization: Bearer $SAM" >/dev/null
expect "a student cannot hide a submission (403)" 0 "^403$" -- status
admin_post "/api/v1/submissions/$good/hide" >/dev/null
expect "an instructor hides a submission" 0 "^200$" -- status
expect "a hidden submission leaves the scoreboard at once" 0 "^tom$" -- board
expect "... but is kept" 0 "^passed$" -- bash -c \
    "curl -s -H 'Authorization: Bearer $SAM' $BASE/api/v1/submissions/$good | jq -r .verdict"
admin_post "/api/v1/submissions/$good/hide" '{"hidden": false}' >/dev/null
expect "and shown again with {\"hidden\": false}" 0 "^Sam <script>,tom$" -- board
admin_post "/api/v1/submissions/$wrong/regrade" >/dev/null
expect "an instructor regrades a submission (202)" 0 "^202$" -- status
expect "the regrade gives its verdict again" 0 "^wrong_answer$" -- wait_done "$SAM" "$wrong"
expect "the old result is kept beside the new" 0 "^2$" -- bash -c \
    "curl -s -H 'Authorization: Bearer $SAM' $BASE/api/v1/submissions/$wrong | jq '.results | length'"
admin_post "/api/v1/submissions/$good/regrade" '{"all_of_exercise": true}' >/dev/null
expect "a regrade of a whole exercise requeues each of its submissions" 0 "^202 3$" -- \
    bash -c "echo \"\$(cat $TMP/status) \$(jq .requeued $TMP/body)\""
wait_done "$TOM" "$tom_good" >/dev/null
wait_done "$SAM" "$good" >/dev/null
wait_done "$SAM" "$wrong" >/dev/null
THROWAWAY=$(api POST /api/v1/tokens -b "$TMP/sam.jar" -H "X-CSRF-Token: $SAM_CSRF" \
    -H 'Content-Type: application/json' --data-binary '{"name": "throwaway"}' | jq -r .token)
THROWAWAY_ID=$(jq -r .id "$TMP/body")
api DELETE "/api/v1/tokens/$THROWAWAY_ID" -H "Authorization: Bearer $SAM" >/dev/null
expect "a student revokes a token" 0 "^200$" -- status
api GET /api/v1/submissions -H "Authorization: Bearer $THROWAWAY" >/dev/null
expect "a revoked token is refused (401)" 0 "^401$" -- status
expect "the audit log holds hide, show, regrade, token revoke, user add" 0 \
    "^token revoke,regrade,regrade,show,hide,password change,password change,password change,user add" -- bash -c \
    "curl -s -b $TMP/admin.jar $BASE/api/v1/audit | jq -r '[.entries[].action] | join(\",\")'"
expect "... with who did it" 0 "^admin$" -- bash -c \
    "curl -s -b $TMP/admin.jar $BASE/api/v1/audit | jq -r '.entries[1].actor'"
api GET /api/v1/audit -H "Authorization: Bearer $SAM" >/dev/null
expect "a student cannot read the audit log (403)" 0 "^403$" -- status

# ---- the rest of the routes: exercises, progress, users, password reset, logout, login limits
expect "the exercises are listed" 0 "^tiny-add$" -- bash -c "curl -s $BASE/api/v1/exercises | jq -r '.[].id'"
expect "one exercise comes with its statement and starter" 0 "^true$" -- bash -c \
    "curl -s $BASE/api/v1/exercises/tiny-add | jq -e '(.statement | length) > 0 and (.starter | contains(\"vector_add\"))'"
api GET /api/v1/exercises/nope >/dev/null
expect "an unknown exercise is 404" 0 "^404$" -- status
api GET /api/v1/scoreboard/nope >/dev/null
expect "the scoreboard of an unknown exercise is 404" 0 "^404$" -- status
expect "an instructor sees the class's progress" 0 "^passed$" -- bash -c \
    "curl -s -b $TMP/admin.jar $BASE/api/v1/progress | jq -r '.progress[] | select(.user == \"sam\" or .name == \"sam\") | .status' | head -1"
expect "an instructor lists the users" 0 "^true$" -- bash -c \
    "curl -s -b $TMP/admin.jar $BASE/api/v1/users | jq -e '[.users[].name] | index(\"sam\") != null'"
NEW_TOM=$(admin_post /api/v1/users/tom/password | jq -r .password)
expect "an instructor resets a password (a new one is returned)" 0 "^200 .{16,}$" -- \
    bash -c "echo \"\$(cat $TMP/status) $NEW_TOM\""
login tom "$NEW_TOM" "$TMP/tom.jar" >/dev/null
expect "the user logs in with it" 0 "^200$" -- status
login tom tom-password "$TMP/tom-old.jar" >/dev/null
expect "the old password no longer works" 0 "^401$" -- status
TOM_CSRF=$(login tom "$NEW_TOM" "$TMP/tom.jar")
# the reset ended tom's token and asks for a password of tom's own
api POST /api/v1/me/password -b "$TMP/tom.jar" -H "X-CSRF-Token: $TOM_CSRF" \
    -H 'Content-Type: application/json' \
    --data-binary "{\"current_password\": \"$NEW_TOM\", \"new_password\": \"tom-password-2\"}" >/dev/null
TOM=$("$KGRADE" --db "$DATA/kgrade.db" token create tom)
api POST /api/v1/logout -b "$TMP/tom.jar" -H "X-CSRF-Token: $TOM_CSRF" >/dev/null
expect "logout" 0 "^200$" -- status
api GET /api/v1/submissions -b "$TMP/tom.jar" >/dev/null
expect "a logged-out session is refused (401)" 0 "^401$" -- status
for _ in $(seq 10); do login una wrong-password "$TMP/una.jar" >/dev/null; done
api POST /api/v1/login -H 'Content-Type: application/json' -D "$TMP/headers" \
    --data-binary '{"name": "una", "password": "una-password"}' >/dev/null
expect "after 10 failed logins a user waits (429), even with the right password" 0 "^429$" -- status
expect "with Retry-After" 0 "^Retry-After: [0-9]+" -- tr -d '\r' <"$TMP/headers"

# ---- the web pages: the shell, static files, security headers; the API the pages use
expect "GET / is the pages' shell, with a CSP that forbids inline scripts" 0 "script-src 'self';" -- \
    bash -c "curl -s -D - -o /dev/null $BASE/ | tr -d '\r' | grep -i '^content-security-policy'"
expect "every page path is the same shell" 0 "^200 text/html" -- bash -c \
    "curl -s -o /dev/null -w '%{http_code} %{content_type}' $BASE/exercises/tiny-add"
expect "scripts are served as JavaScript" 0 "^200 text/javascript" -- bash -c \
    "curl -s -o /dev/null -w '%{http_code} %{content_type}' $BASE/static/app.js"
etag=$(curl -s -D - -o /dev/null "$BASE/static/style.css" | tr -d '\r' | sed -n 's/^ETag: //ip')
expect "static files carry an ETag and no-cache" 0 "^Cache-Control: no-cache" -- bash -c \
    "curl -s -D - -o /dev/null $BASE/static/style.css | tr -d '\r'"
expect "... and answer 304 when unchanged" 0 "^304$" -- \
    curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$BASE/static/style.css"
expect "no file outside web/static is served" 0 "^404 404 404$" -- bash -c \
    "echo \$(curl -s --path-as-is -o /dev/null -w '%{http_code}' $BASE/static/..) \$(curl -s -o /dev/null -w '%{http_code}' $BASE/static/.hidden) \$(curl -s -o /dev/null -w '%{http_code}' $BASE/static/nope.js)"
expect "a stale session cookie does not block a public page" 0 "^200$" -- \
    curl -s -o /dev/null -w '%{http_code}' -b "kgrade_session=stale" "$BASE/api/v1/scoreboard/tiny-add"
expect "GET /api/v1/me for nobody" 0 '^\{"signed_in":false\}$' -- curl -s "$BASE/api/v1/me"
expect "GET /api/v1/me gives a session its CSRF token and progress" 0 "^true$" -- bash -c \
    "curl -s -b $TMP/sam.jar $BASE/api/v1/me | jq -e '.name == \"sam\" and .csrf_token == \"$SAM_CSRF\" and (.progress[0].status == \"passed\")'"
expect "GET /api/v1/courses lists the course with its sections" 0 "^tiny-add$" -- bash -c \
    "curl -s $BASE/api/v1/courses | jq -r '.courses[0].sections[0].exercises[0]'"
expect "a statement comes as HTML, rendered in cmark's safe mode" 0 "^true$" -- bash -c \
    "curl -s $BASE/api/v1/exercises/tiny-add | jq -e '(.statement_html | contains(\"<strong>Markdown</strong>\")) and (.statement_html | contains(\"<script\") | not) and (.statement_html | contains(\"javascript:\") | not)'"
expect "?lang=fr gives the French statement where there is one" 0 "^fr # tiny-add, en français" -- bash -c \
    "curl -s '$BASE/api/v1/exercises/tiny-add?lang=fr' | jq -r '.language + \" \" + .statement'"
expect "a language without a statement, or no language code, gives English" 0 "^en en$" -- bash -c \
    "echo \$(curl -s '$BASE/api/v1/exercises/tiny-add?lang=de' | jq -r .language) \$(curl -s '$BASE/api/v1/exercises/tiny-add?lang=../x' | jq -r .language)"
expect "a list of one exercise's submissions" 0 "^true$" -- bash -c \
    "curl -s -H 'Authorization: Bearer $SAM' '$BASE/api/v1/submissions?exercise=nope' | jq -e '.submissions == []'"
api GET "/api/v1/submissions?user=tom" -H "Authorization: Bearer $SAM" >/dev/null
expect "a student cannot list another's submissions (403)" 0 "^403$" -- status
expect "an instructor lists a student's submissions" 0 "^true$" -- bash -c \
    "curl -s -b $TMP/admin.jar '$BASE/api/v1/submissions?user=sam' | jq -e '(.submissions | length) >= 2 and all(.submissions[]; has(\"hidden\"))'"

# ---- certificates: issued on the last assessment, once; verified; revoked
echo cara-password | "$KGRADE" --db "$DATA/kgrade.db" user add cara --role student --password-stdin
CARA=$("$KGRADE" --db "$DATA/kgrade.db" token create cara)
submit_to() { # TOKEN EXERCISE FILE: the id
    api POST /api/v1/submissions -H "Authorization: Bearer $1" -H 'Content-Type: application/json' \
        --data-binary "{\"exercise\": \"$2\", \"source\": $(source_of "$3")}" | jq -r .id
}
certificates_of_cara() { curl -s -H "Authorization: Bearer $CARA" "$BASE/api/v1/certificates?user=me" | jq '.certificates | length'; }
wait_done "$CARA" "$(submit_to "$CARA" tiny-add "$KERNELS/good.cu")" >/dev/null
expect "no certificate before the last assessment is passed" 0 "^0$" -- certificates_of_cara
first=$(submit_to "$CARA" tiny-add-twice "$KERNELS/good.cu")
second=$(submit_to "$CARA" tiny-add-twice "$KERNELS/good.cu")
wait_done "$CARA" "$first" >/dev/null
wait_done "$CARA" "$second" >/dev/null
expect "the last assessment passed issues one certificate, however many passes" 0 "^1$" -- certificates_of_cara
# tiny-add-twice's reference is slow on purpose: a good kernel is ~300× faster.
expect "a kernel faster than the reference says so, with three significant figures" 0 \
    "^correct; time as a ratio to the reference's: 0\.00[1-9][0-9]{2}×, [1-9][0-9]{2}× faster than the reference \(the bar is 1\.25×\)$" -- \
    bash -c "curl -s -H 'Authorization: Bearer $CARA' $BASE/api/v1/submissions/$first | jq -r .result.message"
expect "... and its JSON keeps the ratio and the times as full-precision numbers" 0 "^true$" -- bash -c \
    "curl -s -H 'Authorization: Bearer $CARA' $BASE/api/v1/submissions/$first | jq -e '.result.performance |
        .ratio < 0.005 and ((.ratio - .student_ms / .reference_ms) | fabs) < 1e-12
        and ([.ratio, .student_ms, .reference_ms] | all(type == \"number\" and (tostring | length) > 8))'"
expect "the CSV gives the ratio with three significant figures" 0 "^cara,cara,tiny-add-twice,passed,0\.00[1-9][0-9]{2},2," -- \
    curl -s -b "$TMP/admin.jar" "$BASE/api/v1/export/grades.csv"
expect "... and a ratio of 1 as 1.00" 0 "^cara,cara,tiny-add,passed,1\.00,1," -- \
    curl -s -b "$TMP/admin.jar" "$BASE/api/v1/export/grades.csv"
CERT=$(curl -s -H "Authorization: Bearer $CARA" "$BASE/api/v1/certificates?user=me" | jq -r '.certificates[0].id')
expect "its id is 128 random bits in base32" 0 "^[a-z2-7]{26}$" -- echo "$CERT"
curl -s "$BASE/api/v1/certificates/$CERT" >"$TMP/cert.json"
expect "anyone reads it; the server checks its signature" 0 "^true$" -- jq -e \
    '.signature_valid and (.revoked | not) and (.payload | fromjson | .student == "cara" and (.assessments | length) == 2 and .course.id == "test-course")' "$TMP/cert.json"
expect "kgrade cert verify --server: VALID" 0 "^VALID: The service's test course, cara" -- \
    "$KGRADE" cert verify --server "$BASE" "$TMP/cert.json"
expect "it is issued as kgrade-certificate/2, ratios with three significant figures" 0 "^true$" -- jq -e \
    '.payload | fromjson | .format == "kgrade-certificate/2"
        and ([.assessments[].ratio] | .[0] == "1.00" and (.[1] | test("^0\\.00[1-9][0-9]{2}$")))' "$TMP/cert.json"
expect "kgrade cert verify shows the fast one as faster than the reference" 0 \
    "^  tiny-add-twice: 0\.00[1-9][0-9]{2}×, [1-9][0-9]{2}× faster than the reference$" -- \
    "$KGRADE" cert verify --server "$BASE" "$TMP/cert.json"
expect "no certificate, CSV or message shows 0.00×" 0 "^0$" -- bash -c \
    "{ '$KGRADE' cert verify --server '$BASE' '$TMP/cert.json';
       curl -s -b '$TMP/admin.jar' '$BASE/api/v1/export/grades.csv';
       curl -s -H 'Authorization: Bearer $CARA' '$BASE/api/v1/submissions/$first'; } | grep -c '0\.00×\|,0\.00,' || true"
jq '.payload |= sub("cara"; "carA")' "$TMP/cert.json" >"$TMP/cert-tampered.json"
expect "kgrade cert verify: a tampered name is NOT VALID" 1 "NOT VALID" -- \
    "$KGRADE" cert verify --server "$BASE" "$TMP/cert-tampered.json"
# A certificate issued before issue 16 (kgrade-certificate/1, two decimals)
# as the database keeps it: it still verifies, on the server and offline.
OLD=oldformatcertificate234567
certificate "$OLD" Sam false kgrade-certificate/1 0.00 >"$TMP/old-cert.json"
sqlite3 -cmd '.timeout 10000' "$DATA/kgrade.db" "INSERT INTO certificates (id, user_id, course, payload,
    signature, issued_at) VALUES ('$OLD', (SELECT id FROM users WHERE name = 'sam'), 'old-course',
    '$(jq -r .payload "$TMP/old-cert.json")', '$(jq -r .signature "$TMP/old-cert.json")', 1795564799000)"
expect "the server still finds an old-format certificate valid" 0 "^true$" -- bash -c \
    "curl -s $BASE/api/v1/certificates/$OLD | jq -e '.signature_valid and (.payload | fromjson | .format) == \"kgrade-certificate/1\"'"
expect "kgrade cert verify --server: VALID, its 0.00 read as what it meant" 0 \
    "^  tiny-add: under 0\.005×, over 200× faster than the reference$" -- \
    bash -c "curl -s $BASE/api/v1/certificates/$OLD >'$TMP/old-served.json' && '$KGRADE' cert verify --server '$BASE' '$TMP/old-served.json'"
wait_done "$CARA" "$(submit_to "$CARA" tiny-add "$KERNELS/good.cu")" >/dev/null
expect "a later pass issues no second certificate" 0 "^1$" -- certificates_of_cara
api POST "/api/v1/certificates/$CERT/revoke" -H "Authorization: Bearer $CARA" \
    -H 'Content-Type: application/json' --data-binary '{"reason": "mine"}' >/dev/null
expect "a student cannot revoke (403)" 0 "^403$" -- status
admin_post "/api/v1/certificates/$CERT/revoke" '{}' >/dev/null
expect "a revocation needs a reason (422)" 0 "^422$" -- status
admin_post "/api/v1/certificates/$CERT/revoke" '{"reason": "copied the histogram"}' >/dev/null
expect "an instructor revokes it with a reason" 0 "^200$" -- status
expect "a revoked certificate shows as revoked, with its reason, and is kept" 0 "^true$" -- bash -c \
    "curl -s $BASE/api/v1/certificates/$CERT | jq -e '.revoked and .revoked_reason == \"copied the histogram\" and .signature_valid'"
expect "kgrade cert verify --server asks the server: REVOKED, exit 1" 1 "REVOKED: copied the histogram" -- \
    "$KGRADE" cert verify --server "$BASE" "$TMP/cert.json"
expect "the revocation is in the audit log" 0 "^certificate revoke$" -- bash -c \
    "curl -s -b $TMP/admin.jar $BASE/api/v1/audit | jq -r '.entries[0].action'"
expect "an unknown certificate is 404" 0 "^404$" -- \
    curl -s -o /dev/null -w '%{http_code}' "$BASE/api/v1/certificates/nope"

# ---- kgrade submit: what a student's CI calls
VIC=$(echo vic-password | "$KGRADE" --db "$DATA/kgrade.db" user add vic --role student --password-stdin &&
    "$KGRADE" --db "$DATA/kgrade.db" token create vic)
ksubmit() { "$KGRADE" submit --server "$BASE" --token "$VIC" --exercise tiny-add "$@"; }
# Times and ratios with three significant figures: 3.04 µs, 12.3 ms, 207 ms.
three='([0-9]\.[0-9]{2}|[1-9][0-9]\.[0-9]|[1-9][0-9]{2}) (µs|ms|s)'
expect "submit: a good kernel passes, exit 0, printed like grade" 0 \
    "^  time: $three, reference $three: ratio 1\.00× \(bar 1\.25×\), modeled$" -- \
    ksubmit "$KERNELS/good.cu"
expect "submit: progress from the event stream on stderr" 0 "kgrade submit: compiling" -- \
    ksubmit "$KERNELS/good.cu"
expect_quiet_stdout "submit: progress stays off stdout" -- bash -c \
    "'$KGRADE' submit --server '$BASE' --token '$VIC' --exercise tiny-add '$KERNELS/good.cu' | grep -v '^tiny-add: passed\|^  '"
expect "submit: a wrong kernel gets wrong_answer, exit 1" 1 "^tiny-add: wrong_answer: " -- \
    ksubmit "$KERNELS/wrong.cu"
expect "submit --json prints the grade JSON" 0 "^true$" -- bash -c \
    "'$KGRADE' submit --server '$BASE' --token '$VIC' --exercise tiny-add --json '$KERNELS/good.cu' 2>/dev/null | jq -e '.verdict == \"passed\" and .exercise == \"tiny-add\"'"
printf '__global__ void vector_add(const float *a, const float *b, float *c, int n)\n{\n    c[0] = oops;\n}\n' >"$TMP/broken.cu"
expect "submit: a compile error shows the line and a caret" 1 "broken.cu:3:[0-9]+: error: .*oops.*\n?" -- \
    ksubmit "$TMP/broken.cu"
expect "submit: ... and the source line" 0 "3 \|     c\[0\] = oops;" -- bash -c \
    "'$KGRADE' submit --server '$BASE' --token '$VIC' --exercise tiny-add '$TMP/broken.cu'; true"
expect "submit: a bad token is refused, exit 4" 4 "refused the token" -- \
    "$KGRADE" submit --server "$BASE" --token kg_nope --exercise tiny-add "$KERNELS/good.cu"
expect "submit: an unknown exercise, exit 2" 2 "no exercise 'nope'" -- \
    "$KGRADE" submit --server "$BASE" --token "$VIC" --exercise nope "$KERNELS/good.cu"
expect "submit: a server that is not there, exit 4" 4 "cannot be reached" -- \
    "$KGRADE" submit --server "http://127.0.0.1:$((PORT + 1))" --token "$VIC" --exercise tiny-add "$KERNELS/good.cu"
busy=$(submit "$VIC" "$KERNELS/slow.cu")
expect "submit: the queue position while waiting" 0 "queued, position 1 in the queue" -- \
    ksubmit "$KERNELS/good.cu"
wait_done "$VIC" "$busy" >/dev/null
expect "kgrade submit's submissions are the user's" 0 "^true$" -- bash -c \
    "curl -s -H 'Authorization: Bearer $VIC' $BASE/api/v1/submissions | jq -e '(.submissions | length) == 9'"

# ---- errors: each with its status and the error body
errors() { # NAME STATUS METHOD PATH [curl args]
    local name=$1 want=$2 method=$3 path=$4
    shift 4
    api "$method" "$path" "$@" >/dev/null
    expect "$name is $want" 0 "^$want \{\"error\":\{\"code\":\"[a-z_]+\",\"message\":\".+\"\}\}$" -- \
        bash -c "echo \"\$(cat $TMP/status) \$(cat $TMP/body)\""
}
auth=(-H "Authorization: Bearer $SAM")
errors "an unknown route" 404 GET /api/v1/nothing
errors "a wrong method" 405 DELETE /api/v1/health
errors "a submission without a credential" 401 POST /api/v1/submissions
errors "a bad token" 401 GET /api/v1/submissions -H "Authorization: Bearer kg_nope"
errors "a student on an instructor route" 403 GET /api/v1/progress "${auth[@]}"
errors "a body that is not JSON" 415 POST /api/v1/submissions "${auth[@]}" -H 'Content-Type: text/plain' --data-binary x
errors "malformed JSON" 400 POST /api/v1/submissions "${auth[@]}" -H 'Content-Type: application/json' --data-binary '{"exercise":'
errors "a missing field" 422 POST /api/v1/submissions "${auth[@]}" -H 'Content-Type: application/json' --data-binary '{"exercise": "tiny-add"}'
errors "a wrong type" 422 POST /api/v1/submissions "${auth[@]}" -H 'Content-Type: application/json' --data-binary '{"exercise": "tiny-add", "source": 5}'
errors "an unknown exercise" 422 POST /api/v1/submissions "${auth[@]}" -H 'Content-Type: application/json' --data-binary '{"exercise": "nope", "source": "x"}'
errors "an empty source" 422 POST /api/v1/submissions "${auth[@]}" -H 'Content-Type: application/json' --data-binary '{"exercise": "tiny-add", "source": ""}'
printf '{"exercise": "tiny-add", "source": "%s"}' "$(head -c 70000 /dev/zero | tr '\0' x)" >"$TMP/big.json"
errors "a source over 64 KB" 413 POST /api/v1/submissions "${auth[@]}" -H 'Content-Type: application/json' --data-binary "@$TMP/big.json"
printf '{"exercise": "tiny-add", "source": "%s"}' "$(head -c 300000 /dev/zero | tr '\0' x)" >"$TMP/huge.json"
errors "a body over 256 KB" 413 POST /api/v1/submissions "${auth[@]}" -H 'Content-Type: application/json' --data-binary "@$TMP/huge.json"
printf '{"exercise": "tiny-add", "source": "caf\xe9"}' >"$TMP/latin1.json"
errors "a source that is not UTF-8" 400 POST /api/v1/submissions "${auth[@]}" -H 'Content-Type: application/json' --data-binary "@$TMP/latin1.json"
errors "an expired or forged session" 401 GET /api/v1/submissions -b "kgrade_session=forged"
expect "headers over 64 KB are 431" 0 "^431$" -- curl -s -o /dev/null -w '%{http_code}' \
    -H "X-Big: $(head -c 70000 /dev/zero | tr '\0' a)" "$BASE/api/v1/health"
expect "a URL over 64 KB is 414" 0 "^414$" -- curl -s -o /dev/null -w '%{http_code}' \
    "$BASE/api/v1/health?$(head -c 70000 /dev/zero | tr '\0' a)"
held=()
for _ in $(seq 64); do
    exec {fd}<>"/dev/tcp/127.0.0.1/$PORT"
    held+=("$fd")
done
expect "a client holding 64 connections gets no 65th" 0 "^000$" -- bash -c \
    "curl -s -o /dev/null -w '%{http_code}' --max-time 5 '$BASE/api/v1/health'; true"
for fd in "${held[@]}"; do exec {fd}>&-; done
sleep 0.3
expect "the server still answers after all that" 0 '"status":"ok"' -- curl -s "$BASE/api/v1/health"

# ---- an idempotent retry: the same submission, not counted again; a key
# reused for another request is 422
first=$(submit "$UNA" "$KERNELS/good.cu" -H 'Idempotency-Key: retry-1')
again=$(submit "$UNA" "$KERNELS/good.cu" -H 'Idempotency-Key: retry-1')
expect "a retry with the same Idempotency-Key gets the same submission" 0 "^$first$" -- echo "$again"
wait_done "$UNA" "$first" >/dev/null
VAL=$(student_token val)
once=$(submit "$VAL" "$KERNELS/good.cu" -H 'Idempotency-Key: val-1')
for i in $(seq 40); do # beyond the 30 a minute
    echo "$(submit "$VAL" "$KERNELS/good.cu" -H 'Idempotency-Key: val-1') $(status)"
done | sort | uniq -c | tr -s ' ' >"$TMP/replays"
expect "40 retries, beyond the rate limit, each get the same submission (202)" 0 "^ ?40 $once 202$" -- \
    cat "$TMP/replays"
submit "$VAL" "$KERNELS/good.cu" >/dev/null
expect "... and were not counted: a new submission is taken" 0 "^202$" -- status
submit "$VAL" "$KERNELS/wrong.cu" -H 'Idempotency-Key: val-1' >/dev/null
expect "the key with another source: 422 idempotency_mismatch, naming the submission" 0 \
    "^422 idempotency_mismatch .*submission $once, of another exercise, language or source" -- \
    echo "$(status) $(jq -r '.error.code + " " + .error.message' "$TMP/body")"
reuse() { # BODY: val-1 with another request; prints the error code
    api POST /api/v1/submissions -H "Authorization: Bearer $VAL" -H 'Idempotency-Key: val-1' \
        -H 'Content-Type: application/json' --data-binary "$1" | jq -r .error.code
}
expect "... with another exercise too" 0 "^idempotency_mismatch 422$" -- echo "$(reuse \
    "{\"exercise\": \"tiny-add-twice\", \"source\": $(source_of "$KERNELS/good.cu")}") $(status)"
expect "... and with another language" 0 "^idempotency_mismatch 422$" -- echo "$(reuse \
    "{\"exercise\": \"tiny-add\", \"language\": \"numba\", \"source\": $(source_of "$KERNELS/good.cu")}") $(status)"
expect "val has the two submissions taken, no more" 0 "^2$" -- bash -c \
    "curl -s -H 'Authorization: Bearer $VAL' $BASE/api/v1/submissions | jq '.submissions | length'"

# ---- kill -9 with running and queued submissions, then a restart
running=$(submit "$UNA" "$KERNELS/slow.cu")
queued=$(submit "$UNA" "$KERNELS/good.cu")
for _ in $(seq 100); do
    [[ $(api GET "/api/v1/submissions/$running" -H "Authorization: Bearer $UNA" | jq -r .status) == running ]] && break
    sleep 0.1
done
"$KGRADE" submit --server "$BASE" --token "$UNA" --exercise tiny-add "$KERNELS/slow.cu" \
    >"$TMP/follow.out" 2>"$TMP/follow.err" &
follower=$!
for _ in $(seq 100); do grep -q "submitted as" "$TMP/follow.err" && break; sleep 0.1; done
kill -9 "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
start_server "$EXERCISES"
expect "a restart puts the running one back in the queue" 0 "queued again" -- cat "$TMP/server.out"
expect "the signing key survives a restart" 0 "" -- \
    test "$(curl -s "$BASE/api/v1/certificates/public-key" | jq -r .public_key)" = "$KEY"
wait "$follower"
expect "kgrade submit outlives a server restart: exit 1 for too_slow" 0 "^1$" -- echo $?
expect "... and prints the verdict" 0 "^tiny-add: too_slow: " -- cat "$TMP/follow.out"
expect "the running one is graded after the restart" 0 "^too_slow$" -- wait_done "$UNA" "$running"
expect "the queued one is graded after the restart" 0 "^passed$" -- wait_done "$UNA" "$queued"
expect "each was graded exactly once" 0 "^1 1$" -- bash -c "echo \$(curl -s -H 'Authorization: Bearer $UNA' $BASE/api/v1/submissions/$running | jq '.results | length') \$(curl -s -H 'Authorization: Bearer $UNA' $BASE/api/v1/submissions/$queued | jq '.results | length')"

# ---- 50 concurrent submissions (two users, under their rate limit)
ADMIN=$("$KGRADE" --db "$DATA/kgrade.db" token create admin)
post_quietly() { # TOKEN OUT: one submission by its own curl, the id into OUT
    curl -s -H "Authorization: Bearer $1" -H 'Content-Type: application/json' \
        --data-binary "{\"exercise\": \"tiny-add\", \"source\": $(source_of "$KERNELS/good.cu")}" \
        "$BASE/api/v1/submissions" | jq -r .id >"$2"
}
clients=()
for i in $(seq 25); do
    post_quietly "$TOM" "$TMP/id-tom.$i" &
    clients+=($!)
    post_quietly "$SAM" "$TMP/id-sam.$i" &
    clients+=($!)
done
wait "${clients[@]}" # not the server
ids=$(cat "$TMP"/id-* | sort -n | uniq)
expect "50 concurrent submissions get 50 ids" 0 "^50$" -- bash -c "echo '$ids' | grep -c '^[0-9]'"
for id in $ids; do wait_done "$ADMIN" "$id" >/dev/null; done
graded=$(for id in $ids; do
    curl -s -H "Authorization: Bearer $ADMIN" "$BASE/api/v1/submissions/$id" | jq '.results | length'
done | sort | uniq -c | tr -s ' ')
expect "all 50 were graded, each once" 0 "^ ?50 1$" -- echo "$graded"

# ---- rate limit, then a full queue (limits from the data folder's config.json)
for i in $(seq 5); do submit "$SAM" "$KERNELS/good.cu" >/dev/null; done
api POST /api/v1/submissions -H "Authorization: Bearer $SAM" -H 'Content-Type: application/json' \
    --data-binary "{\"exercise\": \"tiny-add\", \"source\": $(source_of "$KERNELS/good.cu")}" -D "$TMP/headers" >/dev/null
expect "a user over the rate limit gets 429" 0 "^429$" -- status
expect "with Retry-After" 0 "^Retry-After: [0-9]+" -- tr -d '\r' <"$TMP/headers"
kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
drained=$?
expect "SIGTERM drains and exits 0" 0 "" -- test "$drained" -eq 0
expect "a drain lets the running job finish" 0 "draining" -- cat "$TMP/server.log"
echo '{"queue_max": 1, "rate_per_minute": 1000, "client_timeout_seconds": 1}' >"$DATA/config.json"
start_server "$EXERCISES"
exec {slow}<>"/dev/tcp/127.0.0.1/$PORT"
printf 'GET /api/v1/health HTTP/1.1\r\nHost: slow\r\n' >&"$slow" # and never the rest
expect "others are served while a client is slow" 0 '"status":"ok"' -- \
    curl -s --max-time 5 "$BASE/api/v1/health"
sleep 2.5
expect "a slow client is cut off after client_timeout_seconds" 0 "^closed$" -- \
    bash -c "timeout 3 cat <&$slow >/dev/null && echo closed"
exec {slow}>&-
for i in $(seq 4); do submit "$UNA" "$KERNELS/slow.cu" >/dev/null; done
submit "$UNA" "$KERNELS/good.cu" -D "$TMP/headers" >/dev/null
expect "a full queue gets 503" 0 "^503$" -- status
expect "with Retry-After" 0 "^Retry-After: [0-9]+" -- tr -d '\r' <"$TMP/headers"
echo '{"queue_max": "many"}' >"$DATA/config.json"
kill -9 "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
expect "a bad config.json is refused, naming the key" 2 "config.json: 'queue_max' must be a number" -- \
    "$KGRADE" serve --port "$PORT" --data "$DATA" --exercises "$EXERCISES"
finish
