#!/usr/bin/env bash
# Integration tests of the host form timed by the wall clock (grader/host_wall.c),
# as on a real GPU server, where the host jobs run on the GPU's own driver and
# the grade job times each call from outside the student's process, as DLI's
# assess does. With no GPU here, kgrade grade's test hook
# (KGRADE_TEST_HOST_IN_PROCESS=1: server/grading_job.h) gives each sandboxed host
# job the virtual GPU in its own process (with --device emulator, which a GPU
# server's GPU would otherwise override); the grade job serves no session and
# takes the path it takes on a GPU: wall-clock times, single or repeated, no
# provenance rule, no copies in the message. The verdicts checked do not hang on
# a speed figure: the course's answer is graded against a copy of hidden-layer
# whose bar is 4× (it is about 1× the reference, which is the same code), and the
# too_slow answer sleeps 2 s against a reference's call of a fraction of one.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/service_lib.sh

EXERCISE=exercises/hidden-layer
SOLUTIONS="$EXERCISE/solutions"
N=20001
BAR=4

# hidden-layer with a generous bar, at a small assessed size (for the service)
tests/service/small_hidden_layer.sh "$TMP/exercises"
jq --argjson bar "$BAR" '.speed.max_ratio = $bar' "$TMP/exercises/hidden-layer/exercise.json" \
    >"$TMP/exercise.json" && mv "$TMP/exercise.json" "$TMP/exercises/hidden-layer/exercise.json"

# numpy on the host (the course's starting point: right values, no device
# work) sleeping 2 s in its call: host work counts, as DLI's assess counts it
{
    echo "import time"
    sed 's/^    normalized = normalize(greyscales)$/    time.sleep(2.0)\n&/' "$SOLUTIONS/wrong_answer__numpy_on_host.py"
} >"$TMP/sleeps_on_the_host.py"
expect "the slow host answer is numpy's with a 2 s sleep" 0 "^    time.sleep\(2.0\)$" -- cat "$TMP/sleeps_on_the_host.py"

# the course's answer, right only on its first call
cat "$SOLUTIONS/passed__course_host_answer.py" - >"$TMP/right_once.py" <<'EOF'
course_answer, calls = create_hidden_layer, 0


def create_hidden_layer(n, greyscales, weights, exp, normalize, weigh, activate):
    global calls
    calls += 1
    out = course_answer(n, greyscales, weights, exp, normalize, weigh, activate)
    return out if calls == 1 else out * 0
EOF

wall() { # EXERCISES SOLUTION [OPTION...]: its grade JSON, the host jobs on their own drivers
    local exercises="$1" solution="$2"
    shift 2
    KGRADE_TEST_HOST_IN_PROCESS=1 "$KGRADE" grade --device emulator --exercises "$exercises" \
        --exercise hidden-layer --n "$N" --json "$@" "$solution" 2>/dev/null
}
wall "$TMP/exercises" "$SOLUTIONS/passed__course_host_answer.py" >"$TMP/course.json"
wall "$TMP/exercises" "$SOLUTIONS/passed__course_host_answer.py" --timing repeated >"$TMP/repeated.json"
wall "$TMP/exercises" "$TMP/right_once.py" --timing repeated >"$TMP/right_once.json"
wall exercises tests/integration/host_form/wrong_answer__halves_the_greyscales.py >"$TMP/wrong.json"
wall exercises "$TMP/sleeps_on_the_host.py" >"$TMP/slow.json"
# the same without the hook: the virtual GPU's served sessions, as always
# (--device emulator: on a GPU server too)
KGRADE_TEST_HOST_IN_PROCESS=0 "$KGRADE" grade --device emulator --exercises "$TMP/exercises" \
    --exercise hidden-layer --n "$N" --json "$SOLUTIONS/passed__course_host_answer.py" \
    2>/dev/null >"$TMP/served.json"

expect "the course's answer passes, in the host form, timed by the wall clock" 0 \
    "^passed host wall_clock$" -- jq -r '"\(.verdict) \(.form) \(.host_timing)"' "$TMP/course.json"
expect "... both calls have their wall-clock ms, and nothing a served session would tell" 0 \
    '^\[\["student","wall_ms"\],\["reference","wall_ms"\]\] true true$' -- \
    jq -c -r '.correctness.cases[0].calls as $c | "\([$c | to_entries[] | [.key, (.value | keys[])]]
        | sort | reverse | tojson) \($c.student.wall_ms > 0) \($c.reference.wall_ms > 0)"' "$TMP/course.json"
expect "... its message says how the time was taken, with no copies part" 0 \
    "^correct; time as a ratio to the reference's: [0-9.]+× \(the bar is [0-9.]+×\): the wall-clock time of create_hidden_layer's calls, measured from outside the program \(host work, copies and kernels included; one call each\)$" -- \
    jq -r .message "$TMP/course.json"
expect "... the speed is the calls' wall-clock ms, measured, not modeled" 0 "^true$" -- \
    jq -r '.performance.student_ms == .correctness.cases[0].calls.student.wall_ms and
        .performance.estimated == false' "$TMP/course.json"
expect "repeated timing: a warm-up, then at least 5 calls of each side, the medians" 0 \
    "^passed repeated true .*the median of [0-9]+ calls each\)$" -- \
    jq -r '"\(.verdict) \(.performance.timing.method) \(.performance.timing.runs >= 5) \(.message)"' \
    "$TMP/repeated.json"
expect "... each timed call's result checked: right only once is wrong, the call named" 0 \
    "^wrong_answer: with n = $N: on the warm-up run: [0-9]+ of $N elements of 'out' are wrong" -- \
    jq -r '"\(.verdict): \(.message)"' "$TMP/right_once.json"
expect "a wrong result: wrong_answer, the kernel form's first mismatch" 0 \
    "^wrong_answer: .*elements of 'out' are wrong; the first is \[[0-9]+\]" -- \
    jq -r '"\(.verdict): \(.message)"' "$TMP/wrong.json"
expect "host work counts: an answer computed on the host, 2 s in its call, is too_slow" 0 \
    "^too_slow: correct, but [0-9.]+× the reference's time .*the wall-clock time of create_hidden_layer's calls" -- \
    jq -r '"\(.verdict): \(.message)"' "$TMP/slow.json"
expect "... though right: no provenance rule without a served session" 0 "^true$" -- \
    jq -r .correctness.passed "$TMP/slow.json"
expect "without the hook, the virtual GPU serves the sessions: device figures, the copies said" 0 \
    "^passed null true .*2 copies to the device \([0-9.]+ [KMG]?B\) and 1 back, against the reference's 2 and 1$" -- \
    jq -r '"\(.verdict) \(.host_timing) \(.correctness.cases[0].calls.student.device_ms > 0) \(.message)"' \
    "$TMP/served.json"

# The service never takes the test hook: its workers' jobs are its own
# (grading_job_here alone reads KGRADE_TEST_HOST_IN_PROCESS). On a GPU
# server its host jobs run on the GPU (the wall clock again): not checked.
if compgen -G "/dev/nvidia*" >/dev/null; then
    echo "skip the service's check: a GPU server's service times host forms by the wall clock"
    finish
    exit
fi
KGRADE_TEST_HOST_IN_PROCESS=1 start_server "$TMP/exercises" || exit 1
ANN=$(student_token ann)
submission=$(api POST /api/v1/submissions -H "Authorization: Bearer $ANN" -H 'Content-Type: application/json' \
    --data-binary "$(jq -n --rawfile s "$SOLUTIONS/passed__course_host_answer.py" \
        '{exercise: "hidden-layer", source: $s, language: "numba"}')" | jq -r .id)
expect "the service ignores the hook: the virtual GPU serves the sessions" 0 "^passed$" -- \
    wait_done "$ANN" "$submission"
served_result() { curl -s -H "Authorization: Bearer $ANN" "$BASE/api/v1/submissions/$submission" |
    jq -r '"\(.result.host_timing) \(.result.message)"'; }
expect "... its result says the copies, no wall-clock timing" 0 \
    "^null .*and 1 back, against the reference's 2 and 1$" -- served_result
kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
finish
