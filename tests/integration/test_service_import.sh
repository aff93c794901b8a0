#!/usr/bin/env bash
# Integration tests of accounts in bulk: POST /api/v1/users/import (CSV
# answers by default, JSON when asked; 422 with every problem and its
# line, and then nothing created; who may import and whom: a student is
# refused, an instructor adds no admin, an admin does; one audit entry),
# the imported accounts' passwords (working, and to be changed before
# anything else, by session and by token), an instructor whose password
# must still be changed seeing public scoreboards as anyone does, and
# `kgrade user import` (a file or standard input, name,password on stdout,
# problems with their lines on stderr, exit codes 0, 1 and 2).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

EXERCISES=tests/service/exercises
. tests/integration/service_lib.sh

KERNELS=tests/service/kernels

# import JAR CSRF FILE [curl args]: POST /api/v1/users/import with a CSV file
import() {
    local jar=$1 csrf=$2 file=$3
    shift 3
    api POST /api/v1/users/import -b "$jar" -H "X-CSRF-Token: $csrf" \
        -H 'Content-Type: text/csv' --data-binary "@$file" "$@"
}
users() { curl -s -b "$TMP/admin.jar" "$BASE/api/v1/users" | jq -r '[.users[].name] | join(" ")'; }

start_server "$EXERCISES" || exit 1
ADMIN_PASSWORD=$(grep -A2 'temporary password' "$TMP/server.out" | tail -1 | tr -d ' ')
ADMIN_CSRF=$(login admin "$ADMIN_PASSWORD" "$TMP/admin.jar")
as "$TMP/admin.jar" "$ADMIN_CSRF" POST /api/v1/me/password \
    "{\"current_password\": \"$ADMIN_PASSWORD\", \"new_password\": \"admin-password-1\"}" >/dev/null
for u in ivy:instructor sam:student; do
    new_account "$TMP/admin.jar" "$ADMIN_CSRF" "${u%:*}" "${u#*:}" "${u%:*}-password"
done
IVY_CSRF=$(login ivy ivy-password "$TMP/ivy.jar")
SAM_CSRF=$(login sam sam-password "$TMP/sam.jar")

# ---- who may import
printf 'name,display_name,role\nann,Ann,\n' >"$TMP/one.csv"
import "$TMP/sam.jar" "$SAM_CSRF" "$TMP/one.csv" >/dev/null
expect "a student may not import (403)" 0 '^403 .*"code":"forbidden"' -- answered
api POST /api/v1/users/import -b "$TMP/ivy.jar" -H "X-CSRF-Token: $IVY_CSRF" \
    -H 'Content-Type: application/json' --data-binary '{}' >/dev/null
expect "a body that is not text/csv is 415" 0 '^415 .*text/csv' -- answered
api GET /api/v1/users/import -b "$TMP/ivy.jar" >/dev/null
expect "GET on the import is 405" 0 "^405$" -- status

# ---- an instructor imports: CSV answer by default
printf 'name,display_name,role\r\nann,"Lee, Ann",\r\nbob,"Bob ""B"" Builder",student\r\ncy,,\r\n\r\n\r\n' >"$TMP/class.csv"
import "$TMP/ivy.jar" "$IVY_CSRF" "$TMP/class.csv" -D "$TMP/headers" >"$TMP/class.out"
expect "an instructor imports three students: 201" 0 "^201$" -- status
expect "... answered as CSV" 0 "^Content-Type: text/csv" -- tr -d '\r' <"$TMP/headers"
expect "... name,password and a line per account" 0 \
    "^name,password ann,[A-Za-z0-9]{16} bob,[A-Za-z0-9]{16} cy,[A-Za-z0-9]{16}$" -- \
    bash -c "tr '\n' ' ' <'$TMP/class.out' | sed 's/ $//'"
ANN_PASSWORD=$(awk -F, '$1 == "ann" { print $2 }' "$TMP/class.out")
expect "... display names with a comma and quotes kept" 0 '^Lee, Ann\|Bob "B" Builder\|cy$' -- bash -c \
    "curl -s -b $TMP/admin.jar $BASE/api/v1/users | jq -r '[.users[] | select(.name == \"ann\" or .name == \"bob\" or .name == \"cy\") | .display_name] | join(\"|\")'"
expect "... each to change its password" 0 "^true$" -- bash -c \
    "curl -s -b $TMP/admin.jar $BASE/api/v1/users | jq '[.users[] | select(.name == \"ann\" or .name == \"bob\" or .name == \"cy\") | .must_change_password] | all'"
expect "one audit entry names the import" 0 '^ivy user import 3 accounts ann, bob, cy$' -- bash -c \
    "curl -s -b $TMP/admin.jar $BASE/api/v1/audit | jq -r '.entries[0] | \"\\(.actor) \\(.action) \\(.target) \\(.detail)\"'"

# ---- JSON when asked
printf '\xef\xbb\xbfrole,name,display_name\ninstructor,dee,Dee D\n' >"$TMP/json.csv"
import "$TMP/ivy.jar" "$IVY_CSRF" "$TMP/json.csv" -H 'Accept: application/json' >/dev/null
expect "Accept: application/json gets {users: [{name, display_name, role, password}]}" 0 "^true$" -- bash -c \
    "jq '.users == [{name: \"dee\", display_name: \"Dee D\", role: \"instructor\", password: .users[0].password}] and (.users[0].password | length) == 16' $TMP/body"

# ---- refused whole, every problem with its line
printf 'name,display_name,role\neve,Eve,\nBad Name,,\nann,,\neve,,\nfay,,teacher\ngus,,admin\nhal,,,x\n' >"$TMP/bad.csv"
BEFORE=$(users)
import "$TMP/ivy.jar" "$IVY_CSRF" "$TMP/bad.csv" >/dev/null
expect "a file with bad lines is 422 invalid_csv" 0 '^422 \{"error":\{"code":"invalid_csv","message":"6 problems' -- answered
expect "... every problem listed with its line" 0 \
    "^3 'Bad Name' is not a login name.*\|4 there is already a user 'ann'\|5 'eve' is also on line 2\|6 no role 'teacher'.*\|7 only an admin may add an admin\|8 4 fields where the first line names 3 columns$" -- \
    bash -c "jq -r '[.error.lines[] | \"\\(.line) \\(.problem)\"] | join(\"|\")' $TMP/body"
expect "... and nothing is created, not even the good line" 0 "^$BEFORE$" -- users
printf '' >"$TMP/empty.csv"
import "$TMP/ivy.jar" "$IVY_CSRF" "$TMP/empty.csv" >/dev/null
expect "an empty file is 422, line 1" 0 '^422 .*"lines":\[\{"line":1,"problem":"the file is empty' -- answered
printf 'kim,Kim,student\n' >"$TMP/noheader.csv"
import "$TMP/ivy.jar" "$IVY_CSRF" "$TMP/noheader.csv" >/dev/null
expect "a file without its header is 422" 0 "^422 .*'kim' is no column: the first line names the columns" -- answered

# ---- an admin may add admins
printf 'name,role\nroot2,admin\n' >"$TMP/admin.csv"
import "$TMP/admin.jar" "$ADMIN_CSRF" "$TMP/admin.csv" >/dev/null
expect "an admin imports an admin" 0 "^201$" -- status

# ---- an imported password works, and must be changed before anything else
ANN_CSRF=$(login ann "$ANN_PASSWORD" "$TMP/ann.jar")
expect "ann logs in with the password the import showed, told to change it" 0 '^200 .*"must_change_password":true' -- answered
api GET /api/v1/submissions -b "$TMP/ann.jar" >/dev/null
expect "... her session reaches nothing else (403)" 0 '^403 .*password_change_required' -- answered
ANN_TOKEN=$("$KGRADE" --db "$DATA/kgrade.db" token create ann)
api GET /api/v1/submissions -H "Authorization: Bearer $ANN_TOKEN" >/dev/null
expect "... nor does a token made for her (403)" 0 '^403 .*password_change_required' -- answered
api GET /api/v1/me -b "$TMP/ann.jar" >/dev/null
expect "... while /api/v1/me answers" 0 '^200 .*"must_change_password":true' -- answered
login ann "$ANN_PASSWORD" "$TMP/ann2.jar" >/dev/null
expect "... and the password keeps working until it is changed" 0 '^200 .*"must_change_password":true' -- answered
as "$TMP/ann.jar" "$ANN_CSRF" POST /api/v1/me/password \
    "{\"current_password\": \"$ANN_PASSWORD\", \"new_password\": \"ann-own-password\"}" >/dev/null
expect "ann changes it" 0 "^200$" -- status
api GET /api/v1/submissions -H "Authorization: Bearer $ANN_TOKEN" >/dev/null
expect "... then her token works" 0 "^200$" -- status
login ann "$ANN_PASSWORD" "$TMP/ann3.jar" >/dev/null
expect "... and the imported password no longer does" 0 "^401$" -- status

# ---- an instructor with a password to change sees scoreboards as anyone does
SAM_TOKEN=$("$KGRADE" --db "$DATA/kgrade.db" token create sam)
ID=$(submit_kernel "$SAM_TOKEN" tiny-add "$KERNELS/good.cu")
expect "sam passes tiny-add" 0 "^passed$" -- wait_done "$SAM_TOKEN" "$ID"
DEE_TOKEN=$("$KGRADE" --db "$DATA/kgrade.db" token create dee)
api GET /api/v1/users -H "Authorization: Bearer $DEE_TOKEN" >/dev/null
expect "an imported instructor's token reaches no instructor route before the change (403)" 0 \
    '^403 .*password_change_required' -- answered
expect "an instructor sees login names on the scoreboard" 0 '"name":"sam"' -- \
    curl -s -b "$TMP/ivy.jar" "$BASE/api/v1/scoreboard/tiny-add"
expect "... one whose password must still be changed does not" 0 '^true$' -- bash -c \
    "curl -s -H 'Authorization: Bearer $DEE_TOKEN' $BASE/api/v1/scoreboard/tiny-add | jq '(.rows | length) == 1 and (.rows[0] | has(\"name\") | not)'"

# ---- kgrade user import
printf 'name,display_name,role\nkit,"Kit, K",\nlu,,instructor\n' >"$TMP/cli.csv"
expect "kgrade user import FILE prints name,password" 0 \
    "^name,password kit,[A-Za-z0-9]{16} lu,[A-Za-z0-9]{16}$" -- bash -c \
    "'$KGRADE' --db '$DATA/kgrade.db' user import '$TMP/cli.csv' 2>/dev/null | tr '\n' ' ' | sed 's/ $//'"
expect "... says on stderr that they must change them" 0 "1 account created; each must change" -- bash -c \
    "printf 'name\nmo\n' | '$KGRADE' --db '$DATA/kgrade.db' user import - 2>&1 >/dev/null"
expect "... reads standard input with -" 0 "^mo$" -- bash -c \
    "curl -s -b $TMP/admin.jar $BASE/api/v1/users | jq -r '.users[] | select(.name == \"mo\") | .name'"
expect "a bad file exits 1 with each problem and its line" 1 \
    "bad.csv, line 3: 'Bad Name' is not a login name.*line 8: 4 fields.*nothing was created" -- bash -c \
    "set -o pipefail; '$KGRADE' --db '$DATA/kgrade.db' user import '$TMP/bad.csv' 2>&1 | tr '\n' ' '"
expect_quiet_stdout "... and prints nothing on stdout" -- "$KGRADE" --db "$DATA/kgrade.db" user import "$TMP/bad.csv"
expect "a file that cannot be read exits 2" 2 "kgrade user import: $TMP/missing.csv cannot be read" -- \
    "$KGRADE" --db "$DATA/kgrade.db" user import "$TMP/missing.csv"
expect "kgrade user import --help says what it does" 0 "FILE.csv.*name,display_name,role" -- bash -c \
    "'$KGRADE' user import --help | tr '\n' ' '"

finish
