#!/usr/bin/env bash
# Integration tests of the host form's grading (grader/host_form.h) without a
# sandbox: `kgrade worker` serves two host jobs (python3 numba_host.py on the
# exercise's reference_host.py and on a solution) on real sockets, with the
# real numba runtime on the remote driver, and judges each of hidden-layer's
# host-form solutions (the exercises/hidden-layer/solutions/VERDICT__*.py
# that define create_hidden_layer):
# passed, too_slow (ufuncs on host arrays: copies both ways per call),
# wrong_answer for numpy on the host, a result taken to the device and back
# (whole, in halves, or moved by a copy kernel), a device array returned, runtime_error for an exception; and the grade job's
# own hostile modules (tests/integration/host_form/): a call past its limit,
# a program ending in its call or answering on the channel itself, a module
# that does not import, a result computed on the GPU but wrong, the course's
# answer behind a queue of work left at import (timed from an idle device:
# not faster than the reference) and after more copies at import than the
# session keeps records of (the call's own are kept: it passes). Then the
# same through `kgrade grade`, in the sandbox, at a small size (test_grade.sh
# checks every solution's verdict so; these check what its grade says).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

PYTHON=/usr/bin/python3 # Debian's, with numba
EXERCISE=exercises/hidden-layer
N="${HOST_FORM_N:-200003}" # large enough for copies to weigh on the time, and inputs to be checked

grade() { "$PYTHON" tests/integration/host_form_job.py "$KGRADE" "$EXERCISE" "$1" "$N"; }
# the exercise's host-form solutions: those that define its host function
mapfile -t host_solutions < <(grep -l "^def create_hidden_layer(" "$EXERCISE"/solutions/*.py)

# each solution graded once (the exercise's, then the grade job's own
# hostile ones), the checks read what it said
for solution in "${host_solutions[@]}" tests/integration/host_form/*.py; do
    name=$(basename "$solution" .py)
    grade "$solution" >"$TMP/$name.out" 2>&1
    expect "$name: ${name%%__*}" 0 "^verdict: ${name%%__*}$" -- cat "$TMP/$name.out"
done
said() { cat "$TMP/$1.out"; }
# a check of what the exercise's solution $5 (NAME CODE PATTERN -- said SOLUTION) said, when it has it
check() {
    if [[ -f "$TMP/$6.out" ]]; then expect "$@"; else echo "skip $1: no host-form $6 in $EXERCISE/solutions"; fi
}

check "the grade JSON says the host form" 0 "^form: host$" -- said passed__course_host_answer
check "... and the phases the job's limits follow" 0 \
    "^phases: compiling running( running| student)* checking done$" -- said passed__course_host_answer
check "too_slow says where the time went" 0 \
    "cop(y|ies) to the device \([0-9.]+ [KMG]?B(ytes)?\) and [0-9]+ back, against the reference's 2 and 1" -- \
    said too_slow__ufuncs_on_host_arrays
check "numpy on the host: not copied back from the GPU" 0 \
    "result was not copied back from the GPU: .*kgrade grades what the GPU computed" -- \
    said wrong_answer__numpy_on_host
check "the round trip: what the host put on the device, copied back" 0 \
    "it copied back what the host had put on the device, unchanged by any kernel" -- said wrong_answer__host_result_round_trip
check "uploaded in halves, copied back whole: still what the host put there" 0 \
    "it copied back what the host had put on the device, unchanged by any kernel" -- \
    said wrong_answer__numpy_uploaded_in_halves
check "moved by a copy kernel: still what the host sent to the device" 0 \
    "it returned what the host had sent to the device \([0-9.]+ [KMG]?B(ytes)? of its" -- \
    said wrong_answer__numpy_through_a_copy_kernel
check "a device array: numba_host.py's message" 0 "returned a device array" -- \
    said wrong_answer__returns_device_array
check "an exception: its traceback, at the student's line" 0 \
    "raised an exception: .*runtime_error__raises.py" -- said runtime_error__raises
expect "a call past its limit: timeout, naming the function" 0 \
    "create_hidden_layer ran longer than its .* limit on this case" -- said timeout__sleeps
expect "the program ending in the call" 0 "the program ended during create_hidden_layer" -- \
    said runtime_error__exits
expect "a module answering on the channel itself: the program broke the protocol" 0 \
    "the program ended during create_hidden_layer" -- said runtime_error__speaks_on_the_channel
expect "a module that does not import: its traceback, at its line" 0 \
    "the module failed to import: File \"compile_error__import_raises.py\", line 2" -- \
    said compile_error__import_raises
expect "wrong values: the kernel form's first mismatch" 0 \
    "elements of 'out' are wrong; the first is \[[0-9]+\]: expected [-0-9.e]+, got [-0-9.e]+" -- \
    said wrong_answer__halves_the_greyscales
expect "... with the inputs at that element" 0 '"first_mismatch": \{"buffer": "out".*"inputs": \[\{"name": "greyscales"' -- \
    said wrong_answer__halves_the_greyscales
expect "work queued at import and never waited for hides none of the call's time" 0 \
    "time as a ratio to the reference's: (1\.[0-9]+|[2-9][0-9.]*)×" -- said passed__hides_time_behind_a_queue

# Through `kgrade grade`: the host jobs and the grade job in their sandboxes
# (server/grading_job.c), at a small size.
sandboxed() { # SOLUTION: its grade JSON
    "$KGRADE" grade --exercise hidden-layer --n 20001 --json "$EXERCISE/solutions/$1.py" 2>/dev/null
}
course=$(sandboxed passed__course_host_answer)
expect "sandboxed: the course's answer passes, in the host form" 0 "^passed host$" -- \
    jq -r '"\(.verdict) \(.form)"' <<<"$course"
expect "... its message says its copies, as the reference's" 0 \
    "2 copies to the device \([0-9.]+ [KMG]?B\) and 1 back, against the reference's 2 and 1" -- \
    jq -r .message <<<"$course"
expect "sandboxed: the ufuncs on host arrays are too_slow, naming the transfers" 0 \
    "^too_slow: .*4 copies to the device \([0-9.]+ [KMG]?B\) and 3 back, against the reference's 2 and 1$" -- \
    jq -r '"\(.verdict): \(.message)"' < <(sandboxed too_slow__ufuncs_on_host_arrays)
expect "sandboxed: numpy on the host does not pass" 0 \
    "^wrong_answer: .*not copied back from the GPU: the call made no copy from the device" -- \
    jq -r '"\(.verdict): \(.message)"' < <(sandboxed wrong_answer__numpy_on_host)
finish
