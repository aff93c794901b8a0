#!/usr/bin/env bash
# Integration tests of the kgrade command line: help, version, the contract
# of DESIGN.md (every subcommand exists; unbuilt ones say so and exit 2),
# usage errors, and `kgrade compile` end to end with the real NVRTC.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

commands=(grade compile exercises serve submit "user add" "token create" worker sandbox-check "cert verify"
    run "jupyter install")

expect "--help lists every subcommand" 0 "" -- "$KGRADE" --help
help=$("$KGRADE" --help)
for c in "${commands[@]}"; do
    expect "--help names '$c'" 0 "" -- grep -q "^  $c " <<<"$help"
    # shellcheck disable=SC2086 # two-word commands are two words
    expect "'$c --help' exits 0" 0 "^usage: kgrade $c" -- "$KGRADE" $c --help
done
expect "--version names kgrade and NVRTC" 0 "^kgrade [0-9]+\.[0-9]+\.[0-9]+.*NVRTC 1[3-9]\." -- \
    bash -c "'$KGRADE' --version | tr '\n' ' '"
expect "no command is a usage error" 2 "missing command" -- "$KGRADE"
expect "unknown command is a usage error" 2 "unknown command 'bogus'" -- "$KGRADE" bogus
expect "unknown option is a usage error" 2 "unknown option '--bogus'" -- "$KGRADE" compile --bogus x.cu
expect "missing argument is a usage error" 2 "missing FILE.cu" -- "$KGRADE" compile
expect "missing required option is a usage error" 2 "'--exercise ID' is required" -- \
    "$KGRADE" grade k.cu
expect_quiet_stdout "usage errors go to stderr" -- "$KGRADE" compile --bogus

# Subcommands that later parts of kgrade build: parsed, then refused plainly.
expect "exercises lists the bundled ones" 0 "^vector-add +Vector addition +cuda-fundamentals$" -- \
    "$KGRADE" exercises
expect "exercises --json gives each one's sizes" 0 "^100000000$" -- \
    bash -c "'$KGRADE' exercises --json | jq -r '.[] | select(.id == \"vector-add\") | .sizes.n'"
host_form() { "$KGRADE" exercises --json | jq -c --arg id "$1" '.[] | select(.id == $id) | .forms.numba_host'; }
expect "... and the host form a Numba module may define instead of the kernels" 0 \
    '^\{"function":"create_hidden_layer","form":"create_hidden_layer\(n, greyscales, weights, exp, normalize, weigh, activate\)","returns":"out"\}$' -- \
    host_form hidden-layer
expect "... null where it has none" 0 "^null$" -- host_form vector-add
mkdir -p "$TMP/set/good" "$TMP/set/broken"
cp exercises/vector-add/exercise.json "$TMP/set/good/"
sed -i 's/"vector-add"/"good"/' "$TMP/set/good/exercise.json"
printf '{"id": "broken"}\n' >"$TMP/set/broken/exercise.json"
expect "a broken exercise is listed with its error" 0 "^broken +BROKEN: .*'title' must be a string" -- \
    "$KGRADE" exercises --exercises "$TMP/set"
expect "exercises lists them by course and section" 0 "^1$" -- bash -c \
    "'$KGRADE' exercises | awk '/^  2\\./ { s = 1 } /^histogram / { print s }'"
mkdir -p "$TMP/set/courses"
printf '{"id": "c", "title": "C", "sections": [{"title": "S", "exercises": ["good", "ghost"]}], "assessments": ["good"]}\n' \
    >"$TMP/set/courses/c.json"
expect "a course's missing exercise is named" 0 "^ghost +MISSING" -- "$KGRADE" exercises --exercises "$TMP/set"
expect "exercises in no course come last, under their header" 0 "^in no course:" -- \
    "$KGRADE" exercises --exercises "$TMP/set"
expect "an unreadable exercise folder is a usage error" 2 "cannot read the exercise folder" -- \
    "$KGRADE" exercises --exercises "$TMP/none"
good_kernel=exercises/vector-add/reference.cu
expect "submit of a missing file is a usage error" 2 "cannot|No such file" -- \
    "$KGRADE" submit --server http://127.0.0.1:8080 --token t --exercise x "$TMP/none.cu"
expect "submit refuses a server that is not an http(s) URL" 2 "not an http:// or https:// URL" -- \
    "$KGRADE" submit --server ftp://example --token t --exercise x "$good_kernel"
expect "submit refuses a token with a space" 2 "the token is not usable" -- \
    "$KGRADE" submit --server http://127.0.0.1:8080 --token "a b" --exercise x "$good_kernel"
expect "user add prints a generated password" 0 "^[A-Za-z0-9]{16}$" -- \
    "$KGRADE" --db "$TMP/db" user add ana --role instructor
expect "user add refuses a second ana" 1 "already a user 'ana'" -- \
    "$KGRADE" --db "$TMP/db" user add ana --role student
expect "user add refuses an unknown role" 2 "--role" -- \
    "$KGRADE" --db "$TMP/db" user add bo --role root
for bad in "Bo" "bo smith" "bo/../x" "" "$(printf 'b%.0s' $(seq 64))"; do
    expect "user add refuses the name '$bad' as the API does, saying what a name may hold" 2 \
        "is not a login name: a name is 1 to 63 characters among a-z, 0-9, '.', '_' and '-'" -- \
        "$KGRADE" --db "$TMP/db" user add "$bad" --role student
done
expect "user add takes a name of 63 of a-z, 0-9, '.', '_' and '-'" 0 "" -- \
    "$KGRADE" --db "$TMP/db" user add "a.b_c-$(printf '9%.0s' $(seq 57))" --role student
expect "user add takes a password on stdin" 0 "^$" -- \
    bash -c "echo 'a long password' | '$KGRADE' --db '$TMP/db' user add bo --role student --password-stdin"
expect "user add refuses a short password" 2 "8 to" -- \
    bash -c "echo short | '$KGRADE' --db '$TMP/db' user add cy --role student --password-stdin"
expect "token create prints only the token" 0 "^kg_[A-Za-z0-9_-]{43}$" -- \
    "$KGRADE" token create ana --db "$TMP/db" --name ci
expect "token create for nobody fails" 1 "no user 'zed'" -- "$KGRADE" token create zed --db "$TMP/db"
expect "a database in a missing folder is a usage error" 2 "cannot be opened" -- \
    "$KGRADE" --db /nonexistent/x.db token create ana
expect "worker outside the sandbox says so" 2 "no result pipe on fd 3 \(started outside the sandbox\?\)" -- \
    "$KGRADE" worker
expect "sandbox-check reports the protections" 0 "^  seccomp +active" -- "$KGRADE" sandbox-check
expect "... and grades in the sandbox on the device kgrade grade would use" 0 \
    "^  a grade +passed +kgrade virtual H100 \(emulated\)$" -- "$KGRADE" sandbox-check
expect "... which fails, saying why, where that device is missing" 1 \
    "^  a grade +FAILED +not graded: no CUDA GPU is usable here" -- "$KGRADE" sandbox-check --device cuda
expect "... or where there is no exercise to grade" 1 "^  a grade +FAILED +no exercise to grade" -- \
    "$KGRADE" sandbox-check --exercises /nonexistent
expect "cert verify of a file that is no certificate is a usage error" 2 "needs \"id\", \"payload\"" -- \
    bash -c "echo '{}' >'$TMP/c.json'; '$KGRADE' cert verify --public-key AAAA '$TMP/c.json'"

# kgrade compile, end to end.
good=$good_kernel
expect "compile: a good kernel compiles" 0 "kernel vector_add: [0-9]+ registers per thread" -- \
    "$KGRADE" compile "$good"
expect "compile --arch compute_90: PTX only" 0 "kernel vector_add$" -- \
    "$KGRADE" compile --arch compute_90 "$good"
expect "compile --arch sm_999 is refused" 2 "not an architecture NVRTC compiles for" -- \
    "$KGRADE" compile --arch sm_999 "$good"

printf 'extern "C" __global__ void k(float *a, int n)\n{\n    int i = threadIdx.x;\n    a[i] = nope + 1.0f;\n}\n' >"$TMP/bad.cu"
expect "compile: an error exits 1 and names line 4" 1 "1 compile error; the first, at line 4: identifier \"nope\" is undefined" -- \
    "$KGRADE" compile "$TMP/bad.cu"
expect "compile: the log uses the file's name" 1 "^bad.cu\(4\): error" -- "$KGRADE" compile "$TMP/bad.cu"

json=$("$KGRADE" compile --json "$TMP/bad.cu")
expect "compile --json: a diagnostic at line 4, column 12" 0 "^4 12 error$" -- \
    jq -er '.diagnostics[0] | "\(.line) \(.column) \(.severity)"' <<<"$json"
expect "compile --json: ok is false" 0 "^true$" -- jq -e '.ok == false' <<<"$json"
expect "compile --json: good kernel has registers" 0 "^true$" -- \
    bash -c "'$KGRADE' compile --json '$good' | jq -e '.ok and (.kernels[0].registers > 0) and .kernels[0].name == \"vector_add\"'"

: >"$TMP/empty.cu"
expect "compile: an empty file is refused" 1 "the source is empty" -- "$KGRADE" compile "$TMP/empty.cu"
printf '__global__ void k() {}\n\0\n' >"$TMP/nul.cu"
expect "compile: a NUL byte is refused" 1 "NUL byte on line 2" -- "$KGRADE" compile "$TMP/nul.cu"
printf '__global__ void k() {}\n// \xff\n' >"$TMP/latin1.cu"
expect "compile: invalid UTF-8 is refused" 1 "not valid UTF-8 on line 2" -- "$KGRADE" compile "$TMP/latin1.cu"
head -c 70000 /dev/zero | tr '\0' 'x' >"$TMP/big.cu"
expect "compile: over 64 KB is refused" 1 "70000 bytes, over the limit of 65536" -- "$KGRADE" compile "$TMP/big.cu"
expect "compile: a missing file is a usage error" 2 "cannot read '$TMP/none.cu': No such file" -- \
    "$KGRADE" compile "$TMP/none.cu"
expect "compile: a folder is a usage error" 2 "is not a regular file" -- "$KGRADE" compile "$TMP"
expect "compile: /dev/zero ends at once" 2 "is not a regular file" -- timeout 10 "$KGRADE" compile /dev/zero

finish
