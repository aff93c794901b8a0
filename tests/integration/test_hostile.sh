#!/usr/bin/env bash
# The hostile corpus (tests/hostile/): every kernel there, graded in the
# sandbox, gets the verdict its name says; no result holds a host file or
# the environment (a canary variable is planted in kgrade's environment);
# each job ends within its limits (generous bounds: they prove the kill
# works, they are not speed tests); the parent is unharmed and no cgroup
# of a job is left behind. Also the sources the grader must refuse before
# compiling: 10 MB, NUL bytes, invalid UTF-8.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

HOSTILE=tests/hostile
CANARY="kgrade-canary-$RANDOM$RANDOM"
export KGRADE_CANARY="$CANARY"

# grade_hostile FILE EXERCISE: the JSON result, and the seconds it took, in $TMP.
grade_hostile() {
    local start end
    start=$(date +%s)
    "$KGRADE" grade --exercises "$HOSTILE/exercises" --exercise "$2" --json "$1" \
        >"$TMP/result.json" 2>"$TMP/stderr"
    echo $? >"$TMP/code"
    end=$(date +%s)
    echo $((end - start)) >"$TMP/seconds"
}

# No line of the result may show the canary, a host file's content or the
# host's environment.
leaks() {
    grep -E "$CANARY|root:x:0:0|PATH=/|HOME=/root" "$TMP/result.json" "$TMP/stderr"
}

for f in "$HOSTILE"/*.cu; do
    name=$(basename "$f")
    verdict=${name%%__*}
    exercise=hostile-add
    [[ $name == *100m* ]] && exercise=hostile-add-100m
    grade_hostile "$f" "$exercise"
    expect "$name is $verdict" 0 "^$verdict$" -- jq -r .verdict "$TMP/result.json"
    expect "$name leaks nothing of the host" 1 "" -- leaks
    expect "$name's output is capped" 0 "^true$" -- jq -e '(.output | length) <= 17000' "$TMP/result.json"
    # compile 10 s + run 10 s (150 s at 100M) with slack for a loaded machine
    bound=60
    [[ $exercise == hostile-add-100m ]] && bound=240
    expect "$name ends within its limits" 0 "" -- test "$(cat "$TMP/seconds")" -le "$bound"
done

# Sources refused before compiling.
head -c $((10 * 1024 * 1024)) /dev/zero | tr '\0' 'x' >"$TMP/huge.cu"
printf '__global__ void vector_add(const float *a, const float *b, float *c, int n)\n{\0}\n' >"$TMP/nul.cu"
printf '// caf\xe9\n__global__ void vector_add(const float *a, const float *b, float *c, int n) {}\n' >"$TMP/latin1.cu"
for f in huge nul latin1; do
    expect "a $f source is rejected" 1 "hostile-add: rejected: " -- \
        "$KGRADE" grade --exercises "$HOSTILE/exercises" --exercise hostile-add "$TMP/$f.cu"
done

# The sandbox's limits as verdicts: a compile over its time or memory is a
# compile_error, a run over its time a timeout, over its memory a
# runtime_error (exercises whose limits no kernel can meet).
good="$HOSTILE/passed__modifies_its_inputs.cu"
expect "a compile over its time limit is a compile_error" 1 \
    "compile_error: the compile took longer than its 0.05 s limit" -- \
    "$KGRADE" grade --exercises "$HOSTILE/exercises" --exercise hostile-tight-compile "$good"
expect "a run over its time limit is a timeout" 1 \
    "timeout: the grading ran longer than its 0.5 s limit and was stopped" -- \
    "$KGRADE" grade --exercises "$HOSTILE/exercises" --exercise hostile-tight-run "$good"

expect "a run over its memory limit is a runtime_error" 1 \
    "runtime_error: the run used more than its 768 MB of memory and was stopped" -- \
    "$KGRADE" grade --exercises "$HOSTILE/exercises" --exercise hostile-tight-memory "$good"
expect "a compile over its memory limit is a compile_error" 1 \
    "compile_error: the compile used more than its 1024 MB of memory" -- \
    "$KGRADE" grade --exercises "$HOSTILE/exercises" --exercise hostile-add \
    "$HOSTILE/compile_error__exponential_templates.cu"

# A job's time limits scale with the exercise: with the default limits (a
# 120 s run limit) and a first case large enough that its budget of modeled
# time is out of reach of the interpreter's spinning, an endless loop is
# stopped at 50x the reference's time here or the 10 s floor, not after
# 120 s. The compiled tier spins fast enough to meet that budget first.
# The verdict, decided here for a job that was stopped, names the device
# the job said it graded on (it said "unknown" before).
start=$(date +%s)
expect "an endless loop is stopped at the limit scaled to the reference, on its device" 1 \
    "timeout: the kernel ran longer than its [0-9.]+ s limit on this case \(50× the .* on kgrade virtual H100 \(emulated\)" -- \
    bash -c 'set -o pipefail; env KGEMU_TIER=interp "$1" grade --exercises "$2/exercises" \
        --exercise hostile-add-default-limits "$2/timeout__endless_loop.cu" 2>&1 | tr "\n" " "' \
    _ "$KGRADE" "$HOSTILE"
expect "... well before the 120 s run limit" 0 "" -- test $(($(date +%s) - start)) -le 60
expect "on the compiled tier, by its budget of modeled time" 1 \
    "timeout: with n = 1000003: the kernel ran more than 100000× the reference's time" -- \
    env KGEMU_TIER=jit "$KGRADE" grade --exercises "$HOSTILE/exercises" \
    --exercise hostile-add-default-limits "$HOSTILE/timeout__endless_loop.cu"

# Nothing left behind: the parent answers, no job's cgroup remains.
expect "kgrade still works after the corpus" 0 "" -- "$KGRADE" exercises
# A job's cgroup is named job-PID-N after the kgrade that ran it; one whose
# kgrade has exited is left behind (others belong to kgrades still running,
# such as another test's server on the same machine).
leftover() {
    local dir pid
    for dir in $(find /sys/fs/cgroup -maxdepth 3 -path '*kgrade-sandbox/job-*' 2>/dev/null); do
        pid=${dir##*/job-}
        pid=${pid%%-*}
        [[ -d /proc/$pid ]] || echo "$dir"
    done
}
expect "no job's cgroup is left behind" 0 "^$" -- leftover
finish
