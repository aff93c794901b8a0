#!/usr/bin/env bash
# Grading integrity: the hostile corpus of tests/hostile/integrity/, each
# kernel a student's attempt to reach what the grading job must never see
# (the reference by absolute and relative paths, a shipped solution, the
# exercise's definition through the #define leak trick, the database, the
# signing key, kgrade's sources and binary, host files, and __has_include
# probes of them all). Graded through `kgrade grade` (sandboxed) and
# through the service, every one must be a compile_error that opened
# nothing, and no line of a secret file may appear anywhere in the result.
# A control shows the corpus is a real attack: without the sandbox (which
# `kgrade grade --no-sandbox` says is for debugging only) the first one
# passes.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/service_lib.sh

CORPUS=tests/hostile/integrity
EXERCISE=hidden-layer
EXERCISE_REL=exercises/$EXERCISE
EXERCISE_DIR=$PWD/$EXERCISE_REL
SOLUTION=passed__fused.cu
KGRADE_PATH=$(realpath "$KGRADE")

start_server "$PWD/exercises" || exit 1
MALLORY=$(student_token mallory)

# The corpus with this machine's paths.
mkdir -p "$TMP/corpus"
for f in "$CORPUS"/*.cu; do
    sed -e "s|@EXERCISE_DIR@|$EXERCISE_DIR|g" -e "s|@EXERCISE_REL@|$EXERCISE_REL|g" \
        -e "s|@SOLUTION@|$SOLUTION|g" -e "s|@DATA@|$DATA|g" -e "s|@SOURCE@|$PWD|g" \
        -e "s|@KGRADE@|$KGRADE_PATH|g" "$f" >"$TMP/corpus/$(basename "$f")"
done
expect "the secrets the corpus aims at exist" 0 "" -- test -f "$DATA/kgrade.db" -a \
    -f "$DATA/signing.key" -a -f "$EXERCISE_DIR/reference.cu" -a -f "$EXERCISE_DIR/solutions/$SOLUTION"

# Lines of the secret text files long enough to recognise, minus those a
# student sees anyway (the starter holds the kernel's signature).
cat "$EXERCISE_DIR"/reference.cu "$EXERCISE_DIR"/solutions/*.cu "$EXERCISE_DIR"/exercise.json \
    grader/grade.c | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' |
    awk 'length($0) >= 16' | sort -u >"$TMP/secret-lines.all"
sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' "$EXERCISE_DIR/starter.cu" | sort -u >"$TMP/public"
comm -23 "$TMP/secret-lines.all" "$TMP/public" >"$TMP/secret-lines"

# The lines of a secret that a result shows, in any of its strings.
leaks() {
    jq -r '.. | strings' "$1" | grep -F -f "$TMP/secret-lines" | head -5
    return 0
}

# check HOW NAME RESULT: a compile_error that opened none of the secrets.
check() {
    local how=$1 name=$2 result=$3 opened="cannot open source file"
    [[ $name == *probe* ]] && opened="probe: nothing in view"
    expect "$how: $name is a compile_error" 0 "^compile_error$" -- jq -r .verdict "$result"
    expect "$how: $name opened nothing" 0 "$opened" -- jq -r '.compile.diagnostics[0].message' "$result"
    expect "$how: $name leaks no line of a secret" 0 "^$" -- leaks "$result"
}

for f in "$TMP"/corpus/*.cu; do
    name=$(basename "$f")
    "$KGRADE" grade --exercise "$EXERCISE" --n 100000 --json "$f" >"$TMP/result.json" 2>/dev/null
    check "kgrade grade" "$name" "$TMP/result.json"
done

for f in "$TMP"/corpus/*.cu; do
    name=$(basename "$f")
    id=$(submit_kernel "$MALLORY" "$EXERCISE" "$f")
    wait_done "$MALLORY" "$id" >/dev/null
    api GET "/api/v1/submissions/$id" -H "Authorization: Bearer $MALLORY" | jq .result >"$TMP/result.json"
    check "the service" "$name" "$TMP/result.json"
done

# The control: without the sandbox the job would see the folder, and the
# one-line "solution" would pass.
expect "without the sandbox the corpus is a real attack (control)" 0 "passed" -- \
    "$KGRADE" grade --no-sandbox --exercise "$EXERCISE" --n 100000 \
    "$TMP/corpus/compile_error__include_reference_absolute.cu"
finish
