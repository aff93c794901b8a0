#!/usr/bin/env bash
# Integration tests of `kgrade serve`'s accounts and HTTP hardening, on a
# server of their own: the data folder (made 0755 by hand before), database
# and key private; a password someone else made up (the first admin's, a
# generated one, a reset) to be changed before anything else; POST
# /api/v1/me/password ending the other sessions; a reset ending the user's
# sessions and tokens; who may reset whose password; login limits (a class
# of 30 behind one address logs in, one account cannot be guessed, a known
# browser's budget is its account's, an unknown name costs the time of a
# wrong password, logins that work are limited per account, an address runs
# out and then adds no key to the limiter while known browsers and
# submissions go on); sessions and API tokens capped per user; event streams
# capped per user; Content-Type checked exactly; NUL bytes in paths;
# slowloris clients (slow headers, a slow body) cut off while others are
# served.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

EXERCISES=tests/service/exercises
. tests/integration/service_lib.sh

KERNELS=tests/service/kernels

error_shape() { echo "^$1 \{\"error\":\{\"code\":\"$2\",\"message\":\".+\"\}\}$"; }

# metric NAME: a value of GET /metrics
metric() { curl -s "$BASE/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
# until_metric NAME VALUE: waits (up to 10 s) until the metric has the value
until_metric() {
    for _ in $(seq 200); do
        [[ $(metric "$1") == "$2" ]] && return 0
        sleep 0.05
    done
    return 1
}
change_password() { # JAR CSRF CURRENT NEW
    as "$1" "$2" POST /api/v1/me/password "{\"current_password\": \"$3\", \"new_password\": \"$4\"}"
}

mkdir -m 755 "$DATA" # made by hand, as mkdir does
start_server "$EXERCISES" || exit 1
ADMIN_PASSWORD=$(grep -A2 'temporary password' "$TMP/server.out" | tail -1 | tr -d ' ')

# ---- 7. private files
expect "the data folder is 0700, though it was 0755 before the server started" 0 "^700$" -- \
    stat -c %a "$DATA"
expect "... and the server said so, with the old mode" 0 \
    "^kgrade serve: the data folder $DATA was 0755: made it 0700" -- cat "$TMP/server.log"
expect "the database is 0600" 0 "^600$" -- stat -c %a "$DATA/kgrade.db"
expect "its -wal and -shm are 0600" 0 "^600 600$" -- \
    bash -c "echo \$(stat -c %a '$DATA/kgrade.db-wal') \$(stat -c %a '$DATA/kgrade.db-shm')"
expect "the signing key is 0600" 0 "^600$" -- stat -c %a "$DATA/signing.key"
expect "serve says the admin's password lasts until it is changed, leading only to the password page" 0 "works until it is changed, and every login with it leads" -- \
    cat "$TMP/server.out"

# ---- 4. the first admin's temporary password must be changed first
ADMIN_CSRF=$(login admin "$ADMIN_PASSWORD" "$TMP/admin.jar")
expect "the admin logs in with the temporary password, told to change it" 0 '^200 .*"must_change_password":true' -- answered
login admin "$ADMIN_PASSWORD" "$TMP/admin-other.jar" >/dev/null
expect "GET /api/v1/me says so too" 0 "^true$" -- bash -c \
    "curl -s -b $TMP/admin.jar $BASE/api/v1/me | jq -e '.must_change_password == true and .name == \"admin\"'"
api GET /api/v1/users -b "$TMP/admin.jar" >/dev/null
expect "every other route is 403 password_change_required" 0 "$(error_shape 403 password_change_required)" -- answered
as "$TMP/admin.jar" "$ADMIN_CSRF" POST /api/v1/tokens '{"name": "ci"}' >/dev/null
expect "... a token cannot be made either" 0 "^403 .*password_change_required" -- answered
change_password "$TMP/admin.jar" "$ADMIN_CSRF" wrong-password admin-password-1 >/dev/null
expect "a wrong current password is 403 wrong_password" 0 "$(error_shape 403 wrong_password)" -- answered
change_password "$TMP/admin.jar" "$ADMIN_CSRF" "$ADMIN_PASSWORD" short >/dev/null
expect "a new password under 8 characters is 422" 0 "^422 .*8 to 1024 characters" -- answered
change_password "$TMP/admin.jar" "$ADMIN_CSRF" "$ADMIN_PASSWORD" "$ADMIN_PASSWORD" >/dev/null
expect "the same password again is 422" 0 "^422 .*same_password" -- answered
change_password "$TMP/admin.jar" "$ADMIN_CSRF" "$ADMIN_PASSWORD" admin-password-1 >/dev/null
expect "the admin changes it" 0 '^200 \{"changed":true,"must_change_password":false\}$' -- answered
api GET /api/v1/users -b "$TMP/admin.jar" >/dev/null
expect "the session that changed it goes on, with every route" 0 "^200$" -- status
api GET /api/v1/me -b "$TMP/admin-other.jar" >/dev/null
expect "the admin's other session has ended" 0 '"signed_in":false' -- answered
api GET /api/v1/users -b "$TMP/admin-other.jar" >/dev/null
expect "... and is refused (401)" 0 "^401$" -- status
login admin "$ADMIN_PASSWORD" "$TMP/x.jar" >/dev/null
expect "the temporary password no longer works" 0 "^401$" -- status
ADMIN_CSRF=$(login admin admin-password-1 "$TMP/admin.jar")
expect "the new one does, with nothing left to change" 0 '^200 .*"must_change_password":false' -- answered

# ---- accounts made with and without a password of their own
as "$TMP/admin.jar" "$ADMIN_CSRF" POST /api/v1/users '{"name": "gus", "role": "student"}' >/dev/null
GUS_PASSWORD=$(jq -r .password "$TMP/body")
expect "an account made without a password gets one to change" 0 '^201 .*"must_change_password":true' -- answered
GUS_CSRF=$(login gus "$GUS_PASSWORD" "$TMP/gus.jar")
api GET /api/v1/submissions -b "$TMP/gus.jar" >/dev/null
expect "... and must change it before anything else" 0 "^403 .*password_change_required" -- answered
api POST /api/v1/logout -b "$TMP/gus.jar" -H "X-CSRF-Token: $GUS_CSRF" >/dev/null
expect "... though it may log out" 0 "^200$" -- status
"$KGRADE" --db "$DATA/kgrade.db" user add hal --role student >/dev/null 2>"$TMP/hal.err"
expect "kgrade user add says a generated password is to be changed" 0 "hal must change this password" -- cat "$TMP/hal.err"
HAL=$("$KGRADE" --db "$DATA/kgrade.db" token create hal)
api GET /api/v1/submissions -H "Authorization: Bearer $HAL" >/dev/null
expect "... and until it is, the account's API tokens get 403 too" 0 "^403 .*password_change_required" -- answered
as "$TMP/admin.jar" "$ADMIN_CSRF" POST /api/v1/users \
    '{"name": "kim", "role": "student", "password": "a-password-the-instructor-chose"}' >/dev/null
expect "an account made with a password an instructor chose must change it too" 0 \
    '^201 .*"must_change_password":true' -- answered
KIM_CSRF=$(login kim a-password-the-instructor-chose "$TMP/kim.jar")
api GET /api/v1/submissions -b "$TMP/kim.jar" >/dev/null
expect "... before anything else" 0 "^403 .*password_change_required" -- answered
for u in sam tess tim uma; do
    new_account "$TMP/admin.jar" "$ADMIN_CSRF" "$u" student "$u-password"
done
for u in ivy ian; do
    new_account "$TMP/admin.jar" "$ADMIN_CSRF" "$u" instructor "$u-password"
done

# ---- 3. a reset ends the user's sessions and tokens at once
SAM_CSRF=$(login sam sam-password "$TMP/sam.jar")
SAM=$(as "$TMP/sam.jar" "$SAM_CSRF" POST /api/v1/tokens '{"name": "ci"}' | jq -r .token)
api GET /api/v1/submissions -H "Authorization: Bearer $SAM" >/dev/null
expect "sam's token works before the reset" 0 "^200$" -- status
IVY_CSRF=$(login ivy ivy-password "$TMP/ivy.jar")
NEW_SAM=$(as "$TMP/ivy.jar" "$IVY_CSRF" POST /api/v1/users/sam/password | jq -r .password)
expect "an instructor resets a student's password" 0 '^200 .*"must_change_password":true' -- answered
api GET /api/v1/submissions -H "Authorization: Bearer $SAM" >/dev/null
expect "right after the reset sam's token is refused (401)" 0 "^401$" -- status
api GET /api/v1/submissions -b "$TMP/sam.jar" >/dev/null
expect "... and sam's session cookie too (401)" 0 "^401$" -- status
SAM_CSRF=$(login sam "$NEW_SAM" "$TMP/sam.jar")
expect "sam logs in with the new password, to be changed" 0 '^200 .*"must_change_password":true' -- answered
change_password "$TMP/sam.jar" "$SAM_CSRF" "$NEW_SAM" sam-password-2 >/dev/null
expect "... and changes it" 0 "^200$" -- status

# ---- 5. who may reset whose password
as "$TMP/ivy.jar" "$IVY_CSRF" POST /api/v1/users/ian/password >/dev/null
expect "an instructor cannot reset another instructor's password (403)" 0 "$(error_shape 403 forbidden)" -- answered
as "$TMP/ivy.jar" "$IVY_CSRF" POST /api/v1/users/admin/password >/dev/null
expect "... nor an admin's (403)" 0 "^403 .*only an admin" -- answered
login ian ian-password "$TMP/ian.jar" >/dev/null
expect "... and ian's password still works" 0 "^200$" -- status
as "$TMP/admin.jar" "$ADMIN_CSRF" POST /api/v1/users/ian/password >/dev/null
expect "an admin resets an instructor's password" 0 '^200 .*"password":".{16}"' -- answered

# ---- 2. login limits: failures only, per account and per address
for u in $(seq -w 1 30); do
    as "$TMP/admin.jar" "$ADMIN_CSRF" POST /api/v1/users \
        "{\"name\": \"s$u\", \"role\": \"student\", \"password\": \"password-s$u\"}" >/dev/null
done
start=$(date +%s)
logged_in=0
for u in $(seq -w 1 30); do
    [[ $((10#$u)) -le 5 ]] && login "s$u" typo-password "$TMP/class.jar" >/dev/null # a few typos first
    login "s$u" "password-s$u" "$TMP/class.jar" >/dev/null
    [[ $(status) == 200 ]] && logged_in=$((logged_in + 1))
done
took=$(($(date +%s) - start))
expect "a class of 30 behind one address, typos included, all log in within a minute" 0 "^30 in [0-9] s$|^30 in [1-5][0-9] s$" -- \
    echo "$logged_in in $took s"
ok=0
for _ in $(seq 15); do
    login uma uma-password "$TMP/uma.jar" >/dev/null
    [[ $(status) == 200 ]] && ok=$((ok + 1))
done
expect "successful logins cost nothing: 15 in a row all work" 0 "^15$" -- echo "$ok"
login tess tess-password "$TMP/tess-own.jar" >/dev/null # tess's own browser, before the attack
expect "a login that works makes the browser known: a cookie for the login path only" 0 \
    "/api/v1/login.*kgrade_browser" -- cat "$TMP/tess-own.jar"
for _ in $(seq 10); do login tess wrong-password "$TMP/tess.jar" >/dev/null; done
expect "ten wrong passwords for one account are each 401" 0 "^401$" -- status
api POST /api/v1/login -H 'Content-Type: application/json' -D "$TMP/headers" \
    --data-binary '{"name": "tess", "password": "tess-password"}' >/dev/null
expect "then the account waits (429), even with the right password" 0 "$(error_shape 429 too_many_logins)" -- answered
expect "with Retry-After" 0 "^Retry-After: [0-9]+" -- tr -d '\r' <"$TMP/headers"
login uma uma-password "$TMP/uma.jar" >/dev/null
expect "another account logs in from the same address" 0 "^200$" -- status
# login_from JAR NAME PASSWORD: a login from the browser whose cookies are in JAR
login_from() { login "$2" "$3" "$1" -b "$1"; }
login_from "$TMP/tess-own.jar" tess tess-password >/dev/null
expect "tess is not locked out of the browser she logged in from before (no lockout by a classmate)" 0 "^200$" -- status
sed -i "s/\(kgrade_browser\t[^.]*\.\).*/\1$(printf 'A%.0s' $(seq 43))/" "$TMP/tess-own.jar"
login_from "$TMP/tess-own.jar" tess tess-password >/dev/null
expect "... a forged browser cookie counts for nothing (429)" 0 "^429$" -- status
login_from "$TMP/uma.jar" tess tess-password >/dev/null
expect "... nor uma's browser cookie for tess's name (429)" 0 "^429$" -- status
for _ in $(seq 10); do login_from "$TMP/uma.jar" uma wrong-password >/dev/null; done
login_from "$TMP/uma.jar" uma uma-password >/dev/null
expect "a known browser has ten wrong passwords of its own, then waits too" 0 "^429 .*for this account" -- answered
login uma uma-password "$TMP/uma-2.jar" >/dev/null
expect "... which are not the account's" 0 "^200$" -- status
login_from "$TMP/uma-2.jar" uma uma-password >/dev/null
expect "... and a fresh cookie does not bring ten more: they are the account's known browsers'" 0 \
    "^429 .*for this account" -- answered

# An unknown name must cost what a wrong password does (a dummy hash is
# checked): a functional check with a generous bound, not a speed test.
timed_login() { curl -s -o /dev/null -w '%{time_total}\n' -H 'Content-Type: application/json' \
    --data-binary "{\"name\": \"$1\", \"password\": \"not-the-password\"}" "$BASE/api/v1/login"; }
times=$(for i in 1 2 3; do echo "wrong $(timed_login tim)"; echo "unknown $(timed_login "ghost$i")"; done)
expect "an unknown account takes at least half the time of a wrong password" 0 "^yes" -- \
    awk '{ t[$1] += $2 } END { printf "%s (unknown %.3f s, wrong %.3f s)\n", \
        (t["unknown"] >= 0.5 * t["wrong"] ? "yes" : "no"), t["unknown"], t["wrong"] }' <<<"$times"

# A password over 1,024 characters (no account's) would cost no Argon2
# check: it is refused before it counts, so it cannot spend the address's
# or the account's failures, nor fill the limiter.
keys=$(metric 'kgrade_rate_limit_keys{limiter="anonymous"}')
long=$(printf 'x%.0s' $(seq 1025))
refused=0
for i in $(seq 120); do # more than the address's 100 failures
    login "uma$((i % 2))" "$long" "$TMP/x.jar" >/dev/null
    [[ $(status) == 422 ]] && refused=$((refused + 1))
done
expect "120 passwords over 1,024 characters are each 422, unchecked" 0 "^120$" -- echo "$refused"
expect "... saying why" 0 "^422 .*a password has at most 1024 characters" -- answered
expect "... and add no key to the limiter" 0 "^$keys$" -- metric 'kgrade_rate_limit_keys{limiter="anonymous"}'
login uma uma-password "$TMP/uma-new.jar" >/dev/null
expect "... nor spend the address's failures: a right password from a new browser logs in" 0 "^200$" -- status

# ---- logins that work: 30 an account a quarter of an hour; 20 sessions a user
# (val is made by the operator's kgrade user add, with a password of their
# own: no login is spent on a first password)
echo val-password | "$KGRADE" --db "$DATA/kgrade.db" user add val --role student --password-stdin \
    >/dev/null 2>&1
ok=0
for i in $(seq 30); do
    VAL_CSRF=$(login val val-password "$TMP/val-$i.jar")
    [[ $(status) == 200 ]] && ok=$((ok + 1))
done
expect "an account logs in 30 times in a row" 0 "^30$" -- echo "$ok"
api POST /api/v1/login -H 'Content-Type: application/json' -D "$TMP/headers" \
    --data-binary '{"name": "val", "password": "val-password"}' >/dev/null
expect "the 31st login in 15 minutes is 429, saying why" 0 \
    "^429 .*too_many_logins.*logged in \(or had its password checked\) 30 times in 15 minutes" -- answered
expect "... with Retry-After" 0 "^Retry-After: [0-9]+" -- tr -d '\r' <"$TMP/headers"
login val wrong-password "$TMP/x.jar" >/dev/null
expect "... a wrong password too (no Argon2 spent on it)" 0 "^429 .*30 times" -- answered
signed_in() { curl -s -b "$1" "$BASE/api/v1/me" | jq -r .signed_in; }
expect "a user keeps their 20 newest sessions" 0 "^true true$" -- \
    echo "$(signed_in "$TMP/val-11.jar") $(signed_in "$TMP/val-30.jar")"
expect "... a login past them ended the oldest" 0 "^false false$" -- \
    echo "$(signed_in "$TMP/val-1.jar") $(signed_in "$TMP/val-10.jar")"

# ---- API tokens: 20 live ones a user
made=0
for i in $(seq 20); do
    as "$TMP/val-30.jar" "$VAL_CSRF" POST /api/v1/tokens "{\"name\": \"ci-$i\"}" >/dev/null
    [[ $(status) == 201 ]] && made=$((made + 1))
done
expect "a user makes 20 API tokens" 0 "^20$" -- echo "$made"
as "$TMP/val-30.jar" "$VAL_CSRF" POST /api/v1/tokens '{"name": "one-more"}' >/dev/null
expect "the 21st is 409, saying to revoke one" 0 "$(error_shape 409 too_many_tokens)" -- answered
expect "... in words" 0 "you have 20 live tokens.*revoke one" -- answered
first_token=$(as "$TMP/val-30.jar" "$VAL_CSRF" GET /api/v1/tokens | jq -r '.tokens[-1].id')
as "$TMP/val-30.jar" "$VAL_CSRF" DELETE "/api/v1/tokens/$first_token" >/dev/null
as "$TMP/val-30.jar" "$VAL_CSRF" POST /api/v1/tokens '{"name": "one-more"}' >/dev/null
expect "... and once one is revoked, another can be made" 0 "^201$" -- status

# ---- event streams: 8 a user
TIM=$("$KGRADE" --db "$DATA/kgrade.db" token create tim)
warm=$(submit_kernel "$TIM" tiny-add "$KERNELS/good.cu") # the reference compiled and kept
wait_done "$TIM" "$warm" >/dev/null
running=$(submit_kernel "$TIM" tiny-add "$KERNELS/slow.cu")
wait_running "$TIM" "$running"
stopped=$(worker_pid) && kill -STOP "$stopped" # the grading holds still
streams=()
for i in $(seq 8); do
    curl -s -N --max-time 60 -H "Authorization: Bearer $TIM" \
        "$BASE/api/v1/submissions/$running/events" >"$TMP/stream-$i.out" &
    streams+=($!)
done
until_metric kgrade_event_streams 8
api GET "/api/v1/submissions/$running/events" -H "Authorization: Bearer $TIM" -D "$TMP/headers" >/dev/null
expect "a user's ninth event stream is 429" 0 "$(error_shape 429 too_many_streams)" -- answered
expect "... saying so" 0 "you have 8 event streams open" -- answered
expect "... with Retry-After" 0 "^Retry-After: 15" -- tr -d '\r' <"$TMP/headers"
"$KGRADE" submit --server "$BASE" --token "$TIM" --exercise tiny-add "$KERNELS/good.cu" \
    >"$TMP/submit.out" 2>"$TMP/submit.err" &
submitting=$!
for _ in $(seq 100); do grep -q "every 2 s instead" "$TMP/submit.err" && break; sleep 0.1; done
expect "kgrade submit refused a stream asks for its submission instead" 0 \
    "you have 8 event streams open.*; asking for the submission every 2 s instead" -- cat "$TMP/submit.err"
kill -CONT "$stopped"
wait "${streams[@]}"
wait "$submitting"
expect "... and gets its verdict" 0 "^0 tiny-add: passed" -- echo "$? $(cat "$TMP/submit.out")"
expect "the eight streams all end with the grading" 0 "^8$" -- \
    bash -c "cat $TMP/stream-*.out | grep -c '^event: done$'"
until_metric kgrade_event_streams 0
expect "then the user opens a stream again" 0 "^event: done$" -- \
    timeout 20 curl -s -N -H "Authorization: Bearer $TIM" "$BASE/api/v1/submissions/$running/events"

# ---- 8b. Content-Type exactly application/json
for type in 'application/json; charset=utf-8' 'Application/JSON' 'application/json ;charset=UTF-8'; do
    api POST /api/v1/login -H "Content-Type: $type" --data-binary '{"name": "uma", "password": "uma-password"}' >/dev/null
    expect "Content-Type '$type' is JSON" 0 "^200$" -- status
done
for type in 'application/jsonx' 'text/json' 'application/json-patch+json' 'text/plain'; do
    api POST /api/v1/login -H "Content-Type: $type" --data-binary '{"name": "uma", "password": "uma-password"}' >/dev/null
    expect "Content-Type '$type' is 415" 0 "$(error_shape 415 unsupported_media_type)" -- answered
done

# ---- 8c. NUL bytes in a static file's path
raw_status() { # the status line of a raw request line
    python3 - "$PORT" "$1" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(sys.argv[2].encode().replace(b"<NUL>", b"\0") + b"\r\nHost: x\r\nConnection: close\r\n\r\n")
answer = b""
while (chunk := s.recv(65536)):
    answer += chunk
print(answer.split(b"\r\n")[0].decode())
EOF
}
api GET /static/app.js >/dev/null
expect "a static file is served" 0 "^200$" -- status
api GET '/static/app.js%00.png' >/dev/null
expect "an encoded NUL (%00) in its path is 404" 0 "$(error_shape 404 not_found)" -- answered
api GET '/static/app.js%00' >/dev/null
expect "... at the end too" 0 "^404$" -- status
expect "a raw NUL byte in its path is 404" 0 "^HTTP/1.1 404" -- raw_status 'GET /static/app.js<NUL>.png HTTP/1.1'
expect "... before a query too" 0 "^HTTP/1.1 404" -- raw_status 'GET /static/app.js<NUL>?x=1 HTTP/1.1'
expect "a NUL-free request line is still served" 0 "^HTTP/1.1 200" -- raw_status 'GET /static/app.js HTTP/1.1'

# ---- 8a. slowloris: headers, or a body, trickled a byte a second are cut off
# trickle REQUEST: sends REQUEST ("|" for CRLF), then a byte a second for up
# to 60 s; says when the server closed the connection (or that it did not)
trickle() {
    python3 - "$PORT" "$1" <<'EOF'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(sys.argv[2].encode().replace(b"|", b"\r\n"))
start = time.monotonic()
s.settimeout(1)
while time.monotonic() - start < 60:
    try:
        s.send(b"a")  # one byte a second: never idle
        if s.recv(1) == b"":
            break
    except socket.timeout:
        continue
    except OSError:
        break
print("closed after %d s" % (time.monotonic() - start) if time.monotonic() - start < 60 else "still open")
EOF
}
trickle "GET /api/v1/health HTTP/1.1|Host: x|X-Slow: " >"$TMP/slow.out" &
slow=$!
trickle "POST /api/v1/login HTTP/1.1|Host: x|Content-Type: application/json|Content-Length: 100000||" \
    >"$TMP/slow-body.out" &
slow_body=$!
sleep 3
expect "others are served while clients trickle their headers and a body" 0 '"status":"ok"' -- \
    curl -s --max-time 5 "$BASE/api/v1/health"
wait "$slow" "$slow_body"
expect "the client trickling its headers is closed after about 10 s" 0 "^closed after (9|1[0-9]) s$" -- \
    cat "$TMP/slow.out"
expect "... and the server says why" 0 "headers took over 10 s" -- cat "$TMP/server.log"
expect "the client trickling its body is closed after about 20 s" 0 \
    "^closed after (19|2[0-9]|3[0-5]) s$" -- cat "$TMP/slow-body.out"
expect "... and the server says why" 0 "body took over 20 s" -- cat "$TMP/server.log"
expect "the server still answers" 0 '"status":"ok"' -- curl -s --max-time 5 "$BASE/api/v1/health"

# ---- 2, last (it spends the address's budget): an address runs out too
login tim tim-password "$TMP/tim.jar" >/dev/null # tim's browser, known before the flood
n=0
until [[ $n -ge 110 ]]; do
    n=$((n + 1))
    login "nobody$n" wrong-password "$TMP/x.jar" >/dev/null
    [[ $(status) == 429 ]] && break
done
expect "an address trying name after name waits (429) after 100 failures in all" 0 \
    "^429 .*too many wrong passwords from this address \\(127.0.0.1\\): 100 in 15 minutes, whatever the names; wait [0-9]+ s" -- \
    answered
keys=$(metric 'kgrade_rate_limit_keys{limiter="anonymous"}')
for i in $(seq 50); do login "more$i" wrong-password "$TMP/x.jar" >/dev/null; done
expect "... and the names it tries past its budget add no key: one address cannot fill the limiter" 0 \
    "^$keys$" -- metric 'kgrade_rate_limit_keys{limiter="anonymous"}'
api POST /api/v1/login -H 'Content-Type: application/json' --data-binary '{"name": "uma", "password": "uma-password"}' >/dev/null
expect "... for every account" 0 "^429$" -- status
login_from "$TMP/tim.jar" tim tim-password >/dev/null
expect "... but from a browser an account logged in from before, the account logs in" 0 "^200$" -- status
login uma uma-password "$TMP/uma-elsewhere.jar" --interface 127.0.0.2 >/dev/null
expect "... and from another address too" 0 "^200$" -- status
submit_kernel "$TIM" tiny-add "$KERNELS/good.cu" >/dev/null
expect "... and submissions are still taken" 0 "^202$" -- status
kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
finish
