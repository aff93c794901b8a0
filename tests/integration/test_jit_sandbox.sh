#!/usr/bin/env bash
# The virtual GPU's compiled tier (KGEMU_TIER=jit, emulator/jit.c) inside
# the sandbox: the grade job loads LLVM and compiles its kernels there (its
# view shows the virtual GPU with every library it needs; seccomp, Landlock
# and the limits let LLVM's JIT work), and its grade is the interpreter's.
# KGEMU_JIT_STATS=1 makes the job say what it compiled on its standard
# error, which `kgrade grade` shows on its own; KGEMU_JIT_AFTER=0 compiles
# each kernel at its first launch (at a quick size it would otherwise end
# interpreted before a compile pays, emulator/JIT.md). The three
# assessments' references at a quick size through `kgrade grade`, then a
# kernel through `kgrade serve`'s workers (a few seconds in all).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/solutions_lib.sh
. tests/integration/service_lib.sh

# grade_on TIER EXERCISE: the reference graded as the student's kernel; its
# JSON in $TMP/EXERCISE.TIER.json less the wall-clock (ptxas's compile time
# in the compile log), its standard error in $TMP/EXERCISE.TIER.err.
grade_on() {
    local rc=0
    KGEMU_TIER=$1 KGEMU_JIT_AFTER=0 KGEMU_JIT_STATS=1 "$KGRADE" grade --exercise "$2" --n "$(quick_size "$2")" \
        --seed 19 --json "exercises/$2/reference.cu" >"$TMP/$2.$1.raw" 2>"$TMP/$2.$1.err" || rc=$?
    jq -S '.compile.log |= gsub("Compile time = [0-9.]+ ms"; "")' "$TMP/$2.$1.raw" \
        >"$TMP/$2.$1.json"
    return $rc
}

for exercise in hidden-layer histogram transpose; do
    expect "$exercise: the reference passes on the compiled tier in the sandbox" 0 "" -- \
        grade_on jit "$exercise"
    expect "$exercise: its kernel was compiled by LLVM inside the job" 0 \
        "^kgemu jit: [1-9][0-9]* kernels? compiled" -- cat "$TMP/$exercise.jit.err"
    expect "$exercise: the verdict is passed" 0 "^passed$" -- jq -r .verdict "$TMP/$exercise.jit.json"
    grade_on interp "$exercise"
    expect "$exercise: the interpreter compiled nothing" 1 "" -- grep -q "kgemu jit" \
        "$TMP/$exercise.interp.err"
    expect "$exercise: the compiled tier's grade is the interpreter's" 0 "" -- \
        diff "$TMP/$exercise.interp.json" "$TMP/$exercise.jit.json"
done

# The service's workers start their jobs the same way, from a long-lived
# threaded process: the compiled tier passes into them and runs there.
export KGEMU_TIER=jit KGEMU_JIT_AFTER=0
start_server tests/service/exercises
token=$(student_token jit-student)
id=$(submit_kernel "$token" tiny-add tests/service/kernels/good.cu)
expect "kgrade serve: a kernel passes on the compiled tier" 0 "^passed$" -- wait_done "$token" "$id"
id=$(submit_kernel "$token" tiny-add tests/service/kernels/wrong.cu)
expect "kgrade serve: a wrong kernel is wrong_answer on it" 0 "^wrong_answer$" -- \
    wait_done "$token" "$id"

kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
finish
