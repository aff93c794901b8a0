#!/usr/bin/env bash
# Integration tests of `kgrade grade`: every known-good and known-bad kernel
# in exercises/*/solutions (CUDA C and Numba) gets the verdict its name says,
# with both tiers of the virtual GPU agreeing on every launch, and every
# reference passes as a student's kernel at ratio 1 (at a small size with
# --n, to stay quick), the grade JSON's fields, reproducible seeds, and
# the configuration errors. The gradings at the full assessment size are in
# tests/full/test_assessments.sh (`make test-full`).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

grade() { "$KGRADE" grade "$@" 2>/dev/null; }

. tests/integration/solutions_lib.sh

# Every CUDA C solution, and the Numba solutions of the assessments and
# vector-add (each verdict, memory errors at their Python line) and the
# course's @guvectorize gufuncs (l2-norm's and sum-rows') and
# @cuda.reduce (reduce-sum's). hidden-layer's host form (the modules
# defining create_hidden_layer, called in host jobs) is test_host_form.sh's:
# every solution's verdict with real host jobs, three of them in the
# sandbox, and test_hostile.sh's host corpus in the sandbox. `make
# test-full` grades every Numba solution (tests/full/test_numba_solutions.sh);
# tests/numba checks that every one compiles, or not, as its name says.
solutions=(exercises/*/solutions/*.cu)
if have_numba; then
    for f in exercises/{hidden-layer,histogram,transpose,vector-add}/solutions/*.py; do
        grep -q "^def create_hidden_layer(" "$f" || solutions+=("$f")
    done
    solutions+=(exercises/{l2-norm,sum-rows}/solutions/*gufunc*.py)
    solutions+=(exercises/reduce-sum/solutions/*cuda_reduce*.py)
else
    echo "test_grade.sh: the Numba solutions are skipped: no numba (apt-get install python3-numba)"
fi
# Under KGEMU_TIER=compare (KGEMU_* reaches the sandboxed job): every launch
# of every grading, the reference's included, runs in both tiers of the
# virtual GPU, which must agree bit for bit, or the job aborts and the
# verdict is not the one the file's name says.
KGEMU_TIER=compare grade_solutions "${solutions[@]}"

# A construct the virtual GPU does not run is the student's compile error,
# named with its CUDA line, never an internal_error.
cat >"$TMP/bulk.cu" <<'CU'
__global__ void hidden_layer(const float *greyscales, const float *weights, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], 16;" ::"l"(greyscales));
    if (i < n)
        out[i] = tanhf(greyscales[i] / 255.0f * weights[i]);
}
CU
expect "an instruction the virtual GPU does not support is a compile_error at its line" 1 \
    "^hidden-layer: compile_error: the virtual GPU does not support this kernel: .*cp.async.bulk.prefetch.*\(source line 4\)" -- \
    grade --exercise hidden-layer --n 1000 "$TMP/bulk.cu"

# Every exercise's reference, submitted as the student's kernel, passes at
# exactly its own time (tests/full/test_references.sh: at the full size).
for dir in exercises/*/; do
    [[ -f ${dir}exercise.json ]] || continue
    exercise=$(basename "$dir")
    expect "$exercise: the reference as the student's kernel passes at ratio 1" 0 "^passed 1$" -- \
        bash -c "'$KGRADE' grade --exercise $exercise --n $(quick_size "$exercise") --json \
            ${dir}reference.cu 2>/dev/null | jq -r '\"\\(.verdict) \\(.performance.ratio)\"'"
done

# A too_slow kernel stopped by the budget explains itself: its time and
# ratio as lower bounds, and the counters of the part that ran, with the
# bank conflict at its line (the transpose at 4096 x 4096, to stay quick).
mkdir -p "$TMP/small"
cp -r exercises/transpose "$TMP/small/"
jq '.assessed = {"rows": 4096, "cols": 4096}' exercises/transpose/exercise.json \
    >"$TMP/small/transpose/exercise.json"
stopped=$(grade --exercises "$TMP/small" --exercise transpose --json \
    exercises/transpose/solutions/too_slow__bank_conflicts.cu)
expect "a stopped too_slow says its ratio is a lower bound, and what that means" 0 \
    "^too_slow: too slow: stopped when its modeled time passed the bar of 1.25× .* so it is at least 1\.2[0-9]*× the reference's time, and more if it had gone on$" -- \
    jq -r '"\(.verdict): \(.message)"' <<<"$stopped"
expect "... with its time and ratio marked as lower bounds, at least the bar" 0 "^true$" -- jq -e \
    '.performance.lower_bound and .performance.ratio >= 1.25 and .performance.student_ms > .performance.reference_ms' \
    <<<"$stopped"
expect "... with the counters of the part that ran" 0 "^true$" -- jq -e \
    '.performance.counters.partial.blocks_complete < .performance.counters.partial.blocks_total
     and .performance.counters.partial.blocks_total == 16384 and .performance.counters.limiter == "shared"' \
    <<<"$stopped"
expect "... and the 32-way bank conflict at its line" 0 '^\{"ways":32,"line":15\}$' -- \
    jq -c .performance.counters.worst_bank_conflict <<<"$stopped"
expect "a launch that ran to the end has no partial counters" 0 "^null$" -- bash -c \
    "'$KGRADE' grade --exercise vector-add --n 5000 --json exercises/vector-add/solutions/passed__guarded_index.cu | jq .performance.counters.partial"

# The grade JSON.
good=exercises/vector-add/solutions/passed__guarded_index.cu
json=$(grade --exercise vector-add --n 5000 --seed 77 --json "$good")
expect "--json has the contract's fields" 0 "^true$" -- jq -e '
    .exercise == "vector-add" and .verdict == "passed" and .seed == "77"
    and .assessment == false and .device.emulated == true and .compile.ok == true
    and .correctness.passed == true and (.correctness.cases | length) == 1
    and .performance.ratio > 0 and .performance.estimated == true
    and (.exercise_version | length) == 16 and (.kgrade_version | length) > 0
    and .performance.counters.global_requests > 0' <<<"$json"
# ptxas reports its own compile time in the log: everything else must be equal.
jq -S 'del(.compile.log)' <<<"$json" >"$TMP/first.json"
grade --exercise vector-add --n 5000 --seed 77 --json "$good" | jq -S 'del(.compile.log)' >"$TMP/again.json"
expect "the same seed gives the same result" 0 "" -- cmp "$TMP/first.json" "$TMP/again.json"
bad=$(grade --exercise vector-add --n 5000 --json exercises/vector-add/solutions/wrong_answer__difference.cu)
expect "a wrong answer names its first mismatch" 0 "^c 0$" -- \
    jq -r '.correctness.cases[0].first_mismatch | "\(.buffer) \(.index)"' <<<"$bad"

expect "a read past the end names the buffer and element" 1 \
    "memory_error: with n = 5000: thread \(136,0,0\) of block \(19,0,0\) read a\[5000\], past the end of the 5000-element buffer 'a' \(line 5\)" -- \
    grade --exercise vector-add --n 5000 exercises/vector-add/solutions/memory_error__no_guard.cu
cat >"$TMP/before.cu" <<'EOF'
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i - 2] = a[i] + b[i];
}
EOF
expect "a write before the start names the buffer and element" 1 \
    "memory_error: with n = 5000: thread \(0,0,0\) of block \(0,0,0\) wrote c\[-2\], before the start of the 5000-element buffer 'c' \(line 5\)" -- \
    grade --exercise vector-add --n 5000 "$TMP/before.cu"

# Faults outside the guard zones name the buffer too, or say that the
# address is outside every buffer; never a host address (a device pointer
# is one on the virtual GPU), in the message or in the JSON's diagnostics.
fault_kernel() { # NAME STATEMENT: a vector_add whose thread 0 runs STATEMENT
    printf 'extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)\n{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i == 0)\n        %s\n}\n' \
        "$2" >"$TMP/$1.cu"
}
fault_kernel wild 'c[0] = a[1000000000000ll];'
fault_kernel misaligned '*(float *)((char *)c + 6) = 1.0f;'
fault_kernel straddle '*(double *)(c + n - 1) = 1.0;'
expect "a wild read is outside every buffer" 1 \
    "memory_error: with n = 5000: thread \(0,0,0\) of block \(0,0,0\) read 4 bytes at an address outside every buffer \(line 5\)$" -- \
    grade --exercise vector-add --n 5000 "$TMP/wild.cu"
expect "a misaligned write names the buffer, the element and the bytes past it" 1 \
    "memory_error: with n = 5000: thread \(0,0,0\) of block \(0,0,0\) wrote 4 bytes at c\[1\] \+ 2 bytes of the 5000-element buffer 'c', an address that is not a multiple of 4 \(line 5\)$" -- \
    grade --exercise vector-add --n 5000 "$TMP/misaligned.cu"
expect "a write that starts in the buffer and runs past its end says so" 1 \
    "memory_error: with n = 5001: thread \(0,0,0\) of block \(0,0,0\) wrote 8 bytes at c\[5000\], which run past the end of the 5001-element buffer 'c' \(line 5\)$" -- \
    grade --exercise vector-add --n 5001 "$TMP/straddle.cu"
for kernel in wild misaligned "$PWD/exercises/vector-add/solutions/memory_error__no_guard"; do
    [[ $kernel == /* ]] || kernel="$TMP/$kernel"
    fault_json=$(grade --exercise vector-add --n 5000 --json "$kernel.cu")
    expect "$(basename "$kernel"): the diagnostic is the verdict's sentence" 0 "^true$" -- \
        jq -e '.verdict == "memory_error" and (.message | endswith($d[0].message))' \
        --argjson d "$(jq .diagnostics <<<"$fault_json")" <<<"$fault_json"
    messages=$(jq -r '.message, .diagnostics[].message' <<<"$fault_json")
    expect "... and neither shows a host address" 1 "" -- grep -Eq "$HOST_ADDRESS" <<<"$messages"
done

# The student's line is shown under a diagnostic, with a caret at the column.
printf '__global__ void vector_add(const float *a, const float *b, float *c, int n)\n{\n    c[0] = a[0] + bb[0];\n}\n' >"$TMP/undeclared.cu"
expect "a compile error shows the student's line" 1 "^      3 \|     c\[0\] = a\[0\] \+ bb\[0\];$" -- \
    grade --exercise vector-add --n 100 "$TMP/undeclared.cu"
expect "and a caret under the column" 1 "^        \|                   \^$" -- \
    grade --exercise vector-add --n 100 "$TMP/undeclared.cu"
expect "a fault shows the student's line" 1 "^      5 \|         c\[i - 2\] = a\[i\] \+ b\[i\];$" -- \
    grade --exercise vector-add --n 5000 "$TMP/before.cu"

# Numbers people can read: ratios and times with three significant figures,
# and a kernel far faster than the reference says so (issue 16: "0.00×").
three='([0-9]\.[0-9]{2}|[1-9][0-9]\.[0-9]|[1-9][0-9]{2}) (µs|ms|s)'
fast=exercises/histogram/solutions/passed__shared_privatized.cu
expect "a faster kernel's message gives its ratio and how many times faster" 0 \
    "^histogram: passed: correct; time as a ratio to the reference's: 0\.0[1-9][0-9]{2}×, [1-9][0-9]\.[0-9]× faster than the reference \(the bar is 1\.50×\)$" -- \
    grade --exercise histogram --n 200000 "$fast"
expect "... and its time line, three significant figures each" 0 \
    "^  time: $three, reference $three: ratio 0\.0[1-9][0-9]{2}×, [1-9][0-9]\.[0-9]× faster than the reference \(bar 1\.50×\), modeled$" -- \
    grade --exercise histogram --n 200000 "$fast"
expect "... while its JSON keeps the numbers whole" 0 "^true$" -- jq -e '
    .performance | .ratio < 0.1 and ((.ratio - .student_ms / .reference_ms) | fabs) < 1e-5
    and (.ratio | tostring | length) > 6' < <(grade --exercise histogram --n 200000 --json "$fast")
expect "a too_slow message gives both times in their units" 1 \
    "^histogram: too_slow: correct, but [1-9][0-9.]*× the reference's time \($three against $three\); the bar is 1\.50×$" -- \
    grade --exercise histogram --n 200000 exercises/histogram/solutions/too_slow__one_thread.cu

# The kernels' printf output: in the JSON's "output", never mixed into it.
cat >"$TMP/printf.cu" <<'EOF'
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0)
        printf("hello from thread %d, n = %d\n", i, n);
    if (i < n)
        c[i] = a[i] + b[i];
}
EOF
expect "printf output is in the JSON's output" 0 '^"hello from thread 0, n = 5000\\n"$' -- \
    jq '.output' < <(grade --exercise vector-add --n 5000 --json "$TMP/printf.cu")
expect "printf output is shown after the verdict" 0 "^  \| hello from thread 0, n = 5000$" -- \
    grade --exercise vector-add --n 5000 "$TMP/printf.cu"
sed 's/if (i == 0)/if (i < n)/' "$TMP/printf.cu" >"$TMP/printf_all.cu"
expect "a flood of printf output is cut with a note" 0 '^true$' -- \
    jq -e '(.output | length) < 17000 and (.output | endswith("[kgrade: output truncated]\n"))' \
    < <(grade --exercise vector-add --n 5000 --json "$TMP/printf_all.cu")

# The repeated timing of a real GPU, run on the virtual GPU: warm-up, then
# alternating runs to a stable median, every timed run's output checked.
repeated=$(grade --exercise vector-add --n 5000 --timing repeated --json "$good")
expect "--timing repeated takes the median of several runs" 0 '^true$' -- jq -e '
    .verdict == "passed" and .performance.timing.method == "repeated"
    and .performance.timing.runs >= 5 and .performance.timing.student_rse == 0
    and .performance.student_ms > 0' <<<"$repeated"
expect "the repeated timing says so in a student's words" 0 "medians of 5 runs, modeled$" -- \
    grade --exercise vector-add --n 5000 --timing repeated "$good"
expect "--timing single (the virtual GPU's default) times one launch" 0 '^true$' -- jq -e '
    .performance.timing == {"method": "single", "runs": 1, "student_rse": null,
                            "reference_rse": null}' <<<"$json"
cat >"$TMP/right_once.cu" <<'EOF'
__device__ int launches;
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
    if (i == 0 && launches++ > 0)
        c[0] = -1;
}
EOF
expect "a kernel right only on its first run fails a timed run" 1 \
    "wrong_answer: with n = 5000: on the warm-up run: 1 of 5000 elements of 'c' are wrong" -- \
    grade --exercise vector-add --n 5000 --timing repeated "$TMP/right_once.cu"
sed 's/launches++ > 0/launches++ > 3/' "$TMP/right_once.cu" >"$TMP/right_thrice.cu"
expect "the failing timed run is named" 1 "wrong_answer: with n = 5000: on timed run 3: 1 of 5000" -- \
    grade --exercise vector-add --n 5000 --timing repeated "$TMP/right_thrice.cu"
expect "a one-launch grading does not see the second run" 0 "vector-add: passed" -- \
    grade --exercise vector-add --n 5000 "$TMP/right_once.cu"

printf '__global__ void other(float *x) { x[0] = 1; }\n' >"$TMP/other.cu"
expect "a missing kernel is rejected by name" 1 "rejected: the source defines no kernel named 'vector_add'" -- \
    grade --exercise vector-add --n 100 "$TMP/other.cu"
printf '__global__ void vector_add(double *a, double *b, double *c, int n) {}\n' >"$TMP/sig.cu"
expect "a wrong signature is rejected with the expected one" 1 "rejected: the kernel vector_add\(double\*, double\*, double\*, int\)" -- \
    grade --exercise vector-add --n 100 "$TMP/sig.cu"
expect "an unknown exercise is a configuration error" 2 "exercises/nope/exercise.json: cannot be read" -- \
    "$KGRADE" grade --exercise nope "$good"
# --n on a square exercise sets rows and cols: a size whose buffers the
# device cannot hold is the user's error (exit 2), not an internal_error
# from an allocation that could never succeed; one larger than the
# assessment's that fits is graded (gray-scott's is 512 x 512).
expect "--n too large for the device is a usage error that names the sizes" 2 \
    "--n 300000 makes buffers of 720 GB \(rows = 300,000, cols = 300,000\), more than the virtual GPU \(half the host's memory\) can hold" -- \
    "$KGRADE" grade --exercise transpose --n 300000 exercises/transpose/solutions/passed__padded_tile.cu
expect "--n larger than the assessment but within the device is graded" 0 "^gray-scott: passed: " -- \
    grade --exercise gray-scott --n 1001 exercises/gray-scott/solutions/passed__wrapping_laplacian.cu
expect "--device cuda without a GPU is a configuration error" 2 "no CUDA GPU is usable here" -- \
    "$KGRADE" grade --device cuda --exercise vector-add "$good"
finish
