#!/usr/bin/env bash
# Integration tests of Numba submissions through `kgrade serve` and
# `kgrade submit` (issue 17), on a server of their own: POST
# /api/v1/submissions takes "language" ("cuda", the default, or "numba");
# anything else, or a language the exercise does not take, is a 422 that
# says what is; the language is stored, graded in (a correct Numba kernel
# passes, a wrong one is wrong_answer, one writing past the end a
# memory_error at its Python line; the grade JSON says numba), shown in the
# submission, the lists and an instructor's view, and kept by a regrade; the exercises list each kernel's forms in
# each language, and one exercise its starter in each; `kgrade submit`
# takes --language (else the file's extension says) and the server and
# token from KGRADE_URL and KGRADE_TOKEN.
#
# tiny-add has a Numba form (add_kernel(x, y, out)) and a starter.py;
# tiny-add-twice has neither, so it takes CUDA C only.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/service_lib.sh

KERNELS=tests/service/kernels
# The verdicts of Numba kernels need numba where the server grades (as
# test_numba.sh); without it, everything else is still checked.
if "${KGRADE_PYTHON:-/usr/bin/python3}" -c 'import numba' 2>/dev/null; then
    graded() { echo "^$1\$"; } # graded VERDICT: the pattern of a Numba kernel's verdict
else
    graded() { echo ""; }
    echo "skipped: no numba (apt-get install python3-numba): the Numba kernels' verdicts"
fi
start_server tests/service/exercises || exit 1
ANN=$(student_token ann)
echo "ivy-own-password" | "$KGRADE" --db "$DATA/kgrade.db" user add ivy --role instructor \
    --password-stdin >/dev/null
IVY=$("$KGRADE" --db "$DATA/kgrade.db" token create ivy)

# post TOKEN BODY: POST /api/v1/submissions; prints the answer
post() {
    api POST /api/v1/submissions -H "Authorization: Bearer $1" -H 'Content-Type: application/json' \
        --data-binary "$2"
}
# body EXERCISE FILE [LANGUAGE]: a submission's JSON, with "language" when given
body() {
    jq -n --arg e "$1" --rawfile s "$2" --arg l "${3:-}" \
        '{exercise: $e, source: $s} + (if $l == "" then {} else {language: $l} end)'
}
answered() { echo "$(cat "$TMP/status") $(cat "$TMP/body")"; }
# field TOKEN ID FILTER: a jq filter of GET /api/v1/submissions/ID
field() { curl -s -H "Authorization: Bearer $1" "$BASE/api/v1/submissions/$2" | jq -r "$3"; }

# ---- what the API refuses
post "$ANN" "$(body tiny-add "$KERNELS/good.py" fortran)" >/dev/null
expect "an unknown language is 422, saying which are taken" 0 \
    '^422 \{"error":\{"code":"unknown_language","message":"\\"language\\" is \\"cuda\\" \(CUDA C, the default\) or \\"numba\\" \(Numba CUDA Python\), not '"'"'fortran'"'"'"\}\}$' -- answered
post "$ANN" '{"exercise": "tiny-add", "source": "x", "language": 1}' >/dev/null
expect "a language that is not a string is 422" 0 '^422 .*"unknown_language".*is a string' -- answered
post "$ANN" "$(body tiny-add "$KERNELS/good.py" NUMBA)" >/dev/null
expect "a language's name is lower case" 0 "^422 .*not 'NUMBA'" -- answered
post "$ANN" "$(body tiny-add-twice "$KERNELS/good.py" numba)" >/dev/null
expect "an exercise without a Numba form refuses Numba: 422, saying what it takes" 0 \
    "^422 .*\"language_not_accepted\".*the exercise 'tiny-add-twice' takes cuda submissions only, not numba" -- answered
post "$ANN" "$(body nope "$KERNELS/good.py" numba)" >/dev/null
expect "an unknown exercise is still 422" 0 '^422 .*"unknown_exercise"' -- answered
expect "nothing refused was stored" 0 "^0$" -- bash -c \
    "curl -s -H 'Authorization: Bearer $ANN' $BASE/api/v1/submissions | jq '.submissions | length'"

# ---- stored, graded in its language, shown
cuda=$(post "$ANN" "$(body tiny-add "$KERNELS/good.cu")" | jq -r .id)
expect "a submission without a language is CUDA C, and passes" 0 "^passed$" -- wait_done "$ANN" "$cuda"
expect "... its language is cuda, in the submission and its grade JSON" 0 "^cuda cuda$" -- \
    field "$ANN" "$cuda" '"\(.language) \(.result.language)"'
post "$ANN" "$(body tiny-add "$KERNELS/good.cu" cuda)" >/dev/null
expect "\"language\": \"cuda\" is taken too" 0 "^202$" -- status
explicit=$(jq -r .id "$TMP/body")
numba=$(post "$ANN" "$(body tiny-add "$KERNELS/good.py" numba)" | jq -r .id)
expect "a Numba submission is taken (202)" 0 "^202$" -- status
verdict=$(wait_done "$ANN" "$numba")
expect "a correct Numba kernel passes" 0 "$(graded passed)" -- echo "$verdict"
expect "... graded as Numba: the submission and its grade JSON say numba" 0 "^numba numba$" -- \
    field "$ANN" "$numba" '"\(.language) \(.result.language)"'
expect "... with its source as sent" 0 "^true$" -- bash -c \
    "[[ \"\$(curl -s -H 'Authorization: Bearer $ANN' $BASE/api/v1/submissions/$numba | jq -r .source)\" == \"\$(cat $KERNELS/good.py)\" ]] && echo true"
wrong=$(post "$ANN" "$(body tiny-add "$KERNELS/wrong.py" numba)" | jq -r .id)
expect "a wrong Numba kernel is wrong_answer" 0 "$(graded wrong_answer)" -- wait_done "$ANN" "$wrong"
expect "... with its first mismatch, named as the Numba kernel names it" 0 "$(graded out)" -- field "$ANN" "$wrong" '.result.correctness.cases[0].first_mismatch.buffer'
expect "... and the inputs at the wrong element, named as the Numba kernel names them" 0 \
    "$(graded 'x y')" -- field "$ANN" "$wrong" '[.result.correctness.cases[0].first_mismatch.inputs[].name] | join(" ")'
printf 'from numba import cuda\n\n\n@cuda.jit\ndef add_kernel(x, y, out):\n    i = cuda.grid(1)\n    out[i] = x[i] + y[i]\n' >"$TMP/oob.py"
oob=$(post "$ANN" "$(body tiny-add "$TMP/oob.py" numba)" | jq -r .id)
expect "a Numba kernel writing past the end is memory_error" 0 "$(graded memory_error)" -- wait_done "$ANN" "$oob"
expect "... at its Python line" 0 "$(graded 7)" -- field "$ANN" "$oob" '.result.diagnostics[0].line'
wait_done "$ANN" "$explicit" >/dev/null
expect "the list shows each submission's language, newest first" 0 "^numba,numba,numba,cuda,cuda$" -- bash -c \
    "curl -s -H 'Authorization: Bearer $ANN' '$BASE/api/v1/submissions?exercise=tiny-add' |
        jq -r '[.submissions[].language] | join(\",\")'"
expect "an instructor's view of a student's submissions shows it too" 0 "^numba$" -- bash -c \
    "curl -s -H 'Authorization: Bearer $IVY' '$BASE/api/v1/submissions?user=ann' |
        jq -r '.submissions[] | select(.id == $numba) | .language'"
expect "... and of one submission" 0 "^numba$" -- field "$IVY" "$numba" .language

# ---- a regrade keeps the language
api POST "/api/v1/submissions/$numba/regrade" -H "Authorization: Bearer $IVY" >/dev/null
expect "an instructor regrades the Numba submission (202)" 0 "^202$" -- status
expect "it passes again" 0 "$(graded passed)" -- wait_done "$ANN" "$numba"
expect "... in Numba still: two results, the newest graded as numba" 0 "^numba numba 2$" -- \
    field "$ANN" "$numba" '"\(.language) \(.result.language) \(.results | length)"'
api POST "/api/v1/submissions/$cuda/regrade" -H "Authorization: Bearer $IVY" \
    -H 'Content-Type: application/json' --data-binary '{"all_of_exercise": true}' >/dev/null
expect "a regrade of the whole exercise requeues both languages" 0 "^202$" -- status
wait_done "$ANN" "$cuda" >/dev/null
wait_done "$ANN" "$numba" >/dev/null
wait_done "$ANN" "$explicit" >/dev/null
wait_done "$ANN" "$wrong" >/dev/null
expect "... the wrong Numba kernel graded again, in Numba" 0 "^numba numba$" -- \
    field "$ANN" "$wrong" '"\(.language) \(.result.language)"'

both="$(field "$ANN" "$cuda" '"\(.language) \(.result.language)"') $(field "$ANN" "$numba" '"\(.language) \(.result.language)"')"
expect "... and each keeps its own" 0 "^cuda cuda numba numba$" -- echo "$both"

# ---- the exercises: languages, forms, starters
expect "the list says which languages each exercise takes" 0 "^tiny-add cuda,numba tiny-add-twice cuda$" -- \
    bash -c "curl -s $BASE/api/v1/exercises | jq -r '[.[] | \"\(.id) \(.languages | join(\",\"))\"] | join(\" \")'"
expect "... with a kernel's Numba form and signature" 0 \
    '^\{"kernel":"vector_add","name":"add_kernel","form":"add_kernel\(x, y, out\)","signature":"void\(float32\[::1\], float32\[::1\], float32\[::1\]\)"\}$' -- \
    bash -c "curl -s $BASE/api/v1/exercises | jq -c '.[] | select(.id == \"tiny-add\") | .forms.numba[0]'"
expect "... and its C signature" 0 '^__global__ void vector_add\(const float \*a, const float \*b, float \*c, int n\)$' -- \
    bash -c "curl -s $BASE/api/v1/exercises | jq -r '.[] | select(.id == \"tiny-add\") | .forms.cuda[0].signature'"
expect "an exercise without a Numba form has none" 0 "^0$" -- \
    bash -c "curl -s $BASE/api/v1/exercises | jq '.[] | select(.id == \"tiny-add-twice\") | .forms.numba | length'"
expect "one exercise gives its starter in each language" 0 "^true$" -- bash -c \
    "curl -s $BASE/api/v1/exercises/tiny-add | jq -e '.starters.numba == \$py and .starters.cuda == \$cu and .starter == \$cu and .languages == [\"cuda\", \"numba\"] and .forms.numba[0].form == \"add_kernel(x, y, out)\"' \
        --rawfile py tests/service/exercises/tiny-add/starter.py --rawfile cu tests/service/exercises/tiny-add/starter.cu"
expect "a missing starter.py is null, not an error" 0 "^null$" -- \
    bash -c "curl -s $BASE/api/v1/exercises/tiny-add-twice | jq .starters.numba"

# ---- kgrade submit: --language, the extension, KGRADE_URL and KGRADE_TOKEN
# newest: the language of ann's newest submission
newest() { curl -s -H "Authorization: Bearer $ANN" "$BASE/api/v1/submissions" | jq -r '.submissions[0].language'; }
"$KGRADE" submit --server "$BASE" --token "$ANN" --exercise tiny-add "$KERNELS/good.py" \
    >"$TMP/py.out" 2>"$TMP/py.err"
expect "kgrade submit of a .py file sends it as Numba" 0 "^numba$" -- newest
expect "... which passes" 0 "$(graded "tiny-add: passed: .*")" -- cat "$TMP/py.out"
cp "$KERNELS/good.cu" "$TMP/kernel.txt"
expect "kgrade submit --language cuda of any file is CUDA C" 0 "" -- \
    "$KGRADE" submit --server "$BASE" --token "$ANN" --exercise tiny-add --language cuda "$TMP/kernel.txt"
expect "... sent as cuda" 0 "^cuda$" -- newest
cp "$KERNELS/good.py" "$TMP/kernel.numba"
"$KGRADE" submit --server "$BASE" --token "$ANN" --exercise tiny-add --language numba "$TMP/kernel.numba" \
    >/dev/null 2>&1
expect "kgrade submit --language numba of a file of another name is Numba" 0 "^numba$" -- newest
expect "a language the exercise does not take: exit 2, the server's sentence" 2 \
    "^kgrade submit: the exercise 'tiny-add-twice' takes cuda submissions only, not numba \(HTTP 422\)$" -- \
    "$KGRADE" submit --server "$BASE" --token "$ANN" --exercise tiny-add-twice "$KERNELS/good.py"
expect "kgrade submit --language fortran is a usage error" 2 "cuda\|numba, not 'fortran'" -- \
    "$KGRADE" submit --server "$BASE" --token "$ANN" --exercise tiny-add --language fortran "$KERNELS/good.cu"
expect "the server and the token from KGRADE_URL and KGRADE_TOKEN" 0 "^tiny-add: passed" -- \
    env KGRADE_URL="$BASE" KGRADE_TOKEN="$ANN" "$KGRADE" submit --exercise tiny-add "$KERNELS/good.cu"
expect "--server and --token win over the environment" 0 "^tiny-add: passed" -- \
    env KGRADE_URL=http://127.0.0.1:1 KGRADE_TOKEN=not-a-token \
    "$KGRADE" submit --server "$BASE" --token "$ANN" --exercise tiny-add "$KERNELS/good.cu"
expect "KGRADE_TOKEN with --server" 0 "^tiny-add: passed" -- \
    env KGRADE_TOKEN="$ANN" "$KGRADE" submit --server "$BASE" --exercise tiny-add "$KERNELS/good.cu"
expect "neither --token nor KGRADE_TOKEN: exit 2, saying so" 2 \
    "^kgrade submit: --server and --token are required \(or KGRADE_URL and KGRADE_TOKEN\)$" -- \
    env -u KGRADE_TOKEN KGRADE_URL="$BASE" "$KGRADE" submit --exercise tiny-add "$KERNELS/good.cu"
expect "an empty KGRADE_URL is none" 2 "are required \(or KGRADE_URL and KGRADE_TOKEN\)$" -- \
    env KGRADE_URL= KGRADE_TOKEN="$ANN" "$KGRADE" submit --exercise tiny-add "$KERNELS/good.cu"
expect "... and says nothing on standard output" 0 "" -- \
    bash -c "[[ -z \$(env -u KGRADE_URL -u KGRADE_TOKEN '$KGRADE' submit --exercise tiny-add '$KERNELS/good.cu' 2>/dev/null) ]]"
expect "a bad KGRADE_TOKEN is refused like a bad --token: exit 4" 4 "refused the token" -- \
    env KGRADE_URL="$BASE" KGRADE_TOKEN=not-a-token "$KGRADE" submit --exercise tiny-add "$KERNELS/good.cu"
expect "a KGRADE_URL that is not http(s) is a usage error" 2 "not an http:// or https:// URL" -- \
    env KGRADE_URL=ftp://example KGRADE_TOKEN="$ANN" "$KGRADE" submit --exercise tiny-add "$KERNELS/good.cu"

# Modules that write kgrade's result themselves (tests/hostile/numba/),
# through the service: the student's verdicts, never kgrade's failure.
BOB=$(student_token bob)
forged=$(post "$BOB" "$(body tiny-add tests/hostile/numba/compile_error__forged_internal_error.py numba)" | jq -r .id)
expect "a module forging kgrade's internal_error is the student's compile_error" 0 \
    "$(graded compile_error)" -- wait_done "$BOB" "$forged"
expect "... said in kgrade's words, not the module's" 0 "$(graded true)" -- \
    field "$BOB" "$forged" '.result.message | test("wrote on kgrade.s channel") and (test("evil") | not)'
overread=$(post "$BOB" "$(body tiny-add tests/hostile/numba/rejected__forged_param_overread.py numba)" | jq -r .id)
expect "a module forging a kernel with an 8 KB parameter is rejected" 0 "$(graded rejected)" -- \
    wait_done "$BOB" "$overread"

kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
finish
