#!/usr/bin/env bash
# Integration tests of Numba submissions through `kgrade grade`: the
# language from the extension or --language, @cuda.jit and @vectorize
# kernels graded, refusals and compile errors at their Python line, memory
# errors at the Python line, and a module that is hostile at import: it
# finds nothing of the exercises, kgrade or the host, cannot exec, fork or
# open a socket, its time and memory are the compile's, and whatever it
# writes on kgrade's result channel is its own (tests/hostile/numba/). The bundled
# Numba solutions are graded with the C ones by test_grade.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

PYTHON="${KGRADE_PYTHON:-/usr/bin/python3}"
if ! "$PYTHON" -c 'import numba' 2>/dev/null; then
    echo "test_numba.sh: skipped: $PYTHON has no numba (apt-get install python3-numba)"
    exit 0
fi

grade() { "$KGRADE" grade "$@"; }

cat >"$TMP/hidden.py" <<'PY'
import math
from numba import cuda

@cuda.jit
def hidden_layer(greyscales, weights, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = math.tanh(greyscales[i] / 255 * weights[i])
PY
expect "a @cuda.jit kernel in a .py file is graded as Numba and passes" 0 "^hidden-layer: passed: " -- \
    grade --exercise hidden-layer --n 5000 "$TMP/hidden.py"
json=$(grade --exercise hidden-layer --n 5000 --seed 5 --json "$TMP/hidden.py" 2>/dev/null)
expect "... its grade JSON says numba, with the compile's entry" 0 "^true$" -- jq -e '
    .language == "numba" and .verdict == "passed" and .compile.ok == true
    and (.compile.kernels[0].name | test("hidden_layer"))' <<<"$json"
cp "$TMP/hidden.py" "$TMP/hidden.txt"
expect "--language numba grades a file of any name as Numba" 0 "^hidden-layer: passed: " -- \
    grade --exercise hidden-layer --n 5000 --language numba "$TMP/hidden.txt"
expect "--language cuda grades a .py file as CUDA C (NVRTC refuses it)" 1 "^hidden-layer: compile_error: " -- \
    grade --exercise hidden-layer --n 5000 --language cuda "$TMP/hidden.py"
expect "a CUDA C file is still CUDA C (the JSON says cuda)" 0 "^cuda$" -- bash -c \
    "'$KGRADE' grade --exercise vector-add --n 5000 --json exercises/vector-add/solutions/passed__guarded_index.cu | jq -r .language"
expect "--no-sandbox refuses Numba: the module would run here" 2 "drop --no-sandbox" -- \
    grade --exercise hidden-layer --n 5000 --no-sandbox "$TMP/hidden.py"
expect "--language takes cuda or numba only" 2 "language" -- \
    grade --exercise hidden-layer --n 5000 --language fortran "$TMP/hidden.py"
# The front end runs beside the reference's job, for sm_90 (the virtual
# GPU's default H100) before the reference is built; a T4's reference is
# sm_75, so the front end runs again for it. An exercise with a Numba
# reference (matmul-tiled's reference.py) has it compiled beside the C
# reference's job too.
expect "a Numba grading on a device of another architecture (T4) compiles for it and passes" 0 \
    "^vector-add: passed: " -- env KGEMU_DEVICE=t4 "$KGRADE" grade --exercise vector-add \
    --n 100003 exercises/vector-add/solutions/passed__grid_index.py
expect "... and a Numba reference, compiled beside the C one, times the student's" 0 \
    "^matmul-tiled: passed: " -- grade --exercise matmul-tiled --n 100 \
    exercises/matmul-tiled/solutions/passed__shared_tiles.py
# transpose's reference.py: on the virtual H200 the padded Numba tile is
# 1.35x reference.cu's time at 4096 (numba's 64-bit index arithmetic), so
# only the padded tile in Numba lets it pass; the 32x32 tile's 32-way bank
# conflicts, charged as a C kernel's, keep it too_slow against that.
expect "transpose: the padded Numba tile passes on the virtual H200, timed against reference.py" 0 \
    "^transpose: passed: " -- env KGEMU_DEVICE=h200 "$KGRADE" grade --exercise transpose \
    --n 4096 exercises/transpose/solutions/passed__padded_tile.py
expect "... and the 32x32 tile's bank conflicts keep it too_slow there" 1 "^transpose: too_slow: " -- \
    env KGEMU_DEVICE=h200 "$KGRADE" grade --exercise transpose --n 4096 \
    exercises/transpose/solutions/too_slow__bank_conflicts.py

cat >"$TMP/add.py" <<'PY'
from numba import vectorize

@vectorize(['float32(float32, float32)'], target='cuda')
def add_kernel(x, y):
    return x + y
PY
expect "a @vectorize ufunc is launched over the arrays, one thread per element" 0 "^vector-add: passed: " -- \
    grade --exercise vector-add --n 100003 "$TMP/add.py"
sed 's/add_kernel/cuda_histogram/' "$TMP/add.py" >"$TMP/ufunc_histogram.py"
expect "... but only for an elementwise exercise" 1 \
    "^histogram: rejected: 'cuda_histogram' must be a @cuda.jit kernel, cuda_histogram\(x, xmin, xmax, histogram_out\)" -- \
    grade --exercise histogram --n 5000 "$TMP/ufunc_histogram.py"
cat >"$TMP/ufunc_table.py" <<'PY'
import numpy as np
from numba import vectorize

TABLE = np.zeros(4, np.float32)


@vectorize(['float32(float32, float32)'], target='cuda')
def add_kernel(x, y):
    i = int(x * 1000000)
    return x + y + TABLE[i]
PY
expect "... and a fault in it is said at its own line, not at one of numba's kernel text" 1 \
    "^  at ufunc_table.py:10$" -- grade --exercise vector-add --n 5000 "$TMP/ufunc_table.py"
sed 's/(x, y)/(x, y, z)/; s/float32, float32)/float32, float32, float32)/' "$TMP/add.py" >"$TMP/add3.py"
expect "... and with one input fewer than the kernel's parameters" 1 \
    "^vector-add: rejected: the @vectorize function 'add_kernel' must take 2 inputs" -- \
    grade --exercise vector-add --n 5000 "$TMP/add3.py"

cat >"$TMP/gufunc.py" <<'PY'
from numba import guvectorize

@guvectorize(['void(float32, float32, float32[:])'], '(),()->()', target='cuda')
def add_kernel(x, y, out):
    out[0] = x + y
PY
expect "a @guvectorize gufunc is numba's kernel for it, launched as the exercise's (no driver to build it)" \
    0 "^vector-add: passed: " -- grade --exercise vector-add --n 100003 "$TMP/gufunc.py"
sed 's/add_kernel/cuda_histogram/' "$TMP/gufunc.py" >"$TMP/gufunc_histogram.py"
expect "... but only for an exercise of arrays, the last the output" 1 \
    "^histogram: rejected: 'cuda_histogram' must be a @cuda.jit kernel, .*a @guvectorize gufunc is accepted only where every parameter is an array" -- \
    grade --exercise histogram --n 5000 "$TMP/gufunc_histogram.py"
printf 'from numba import cuda\n\n@cuda.reduce\ndef reduce_sum(a, b):\n    return a + b\n' >"$TMP/reduce.py"
# Correct at n = 1; its speed there is not the point (the plan's copy into
# out[0] takes the modeled link's latency, which the reference's one launch
# does not), so the check reads the correctness of the JSON.
expect "a @cuda.reduce runs numba's launches for it and is correct (n = 1: one block, one partial)" 0 \
    "^true$" -- bash -c "'$KGRADE' grade --exercise reduce-sum --n 1 --json '$TMP/reduce.py' 2>/dev/null |
        jq -e '.correctness.passed and .correctness.cases[0].sizes.n == 1'"
expect "... at a size where it takes all three launches, and its partials" 1 \
    "^reduce-sum: too_slow: correct, but " -- grade --exercise reduce-sum --n 1000003 "$TMP/reduce.py"
printf 'from numba import cuda\n\n@cuda.reduce\ndef add_kernel(a, b):\n    return a + b\n' >"$TMP/reduce_add.py"
expect "... but only for an exercise that reduces one array into one element" 1 \
    "^vector-add: rejected: 'add_kernel' is a @cuda.reduce reduction, accepted only where the exercise reduces one array into a one-element output; write it as a @cuda.jit kernel, add_kernel\(x, y, out\)" -- \
    grade --exercise vector-add --n 5000 "$TMP/reduce_add.py"

printf 'from numba import cuda\n\n@cuda.jit\ndef hidden_layer(greyscales, weights):\n    pass\n' >"$TMP/two.py"
expect "a kernel with the wrong parameters is rejected with the expected form" 1 \
    "^hidden-layer: rejected: the kernel 'hidden_layer' must take 3 parameters, as in hidden_layer\(greyscales, weights, out\); yours takes \(greyscales, weights\)" -- \
    grade --exercise hidden-layer --n 5000 "$TMP/two.py"
printf 'from numba import cuda\n\n@cuda.jit\ndef hidden(greyscales, weights, out):\n    pass\n' >"$TMP/other.py"
expect "a module without the kernel is rejected, saying what to define" 1 \
    "^hidden-layer: rejected: the module defines no 'hidden_layer': the exercise asks for hidden_layer\(greyscales, weights, out\)" -- \
    grade --exercise hidden-layer --n 5000 "$TMP/other.py"
printf 'def hidden_layer(greyscales, weights, out):\n    pass\n' >"$TMP/plain.py"
expect "an undecorated function is rejected, saying how to decorate it" 1 \
    "^hidden-layer: rejected: 'hidden_layer' is not a CUDA kernel: decorate it with @cuda.jit" -- \
    grade --exercise hidden-layer --n 5000 "$TMP/plain.py"
printf 'from numba import cuda\n\n@cuda.jit\ndef hidden_layer(greyscales, weights, out)\n    pass\n' >"$TMP/syntax.py"
expect "a syntax error is a compile_error at its line and column" 1 "syntax.py:4:[0-9]+: error: SyntaxError" -- \
    grade --exercise hidden-layer --n 5000 "$TMP/syntax.py"
sed 's|out\[i\] = math.tanh.*|out[i] = "grey"|' "$TMP/hidden.py" >"$TMP/typing.py"
expect "numba's typing error is a compile_error at its line" 1 "typing.py:8: error: .*setitem" -- \
    grade --exercise hidden-layer --n 5000 "$TMP/typing.py"

# numba's errors at the student's faulty line, its messages quoting the
# source (registered for numba: no "<source missing, REPL/exec in use?>"),
# with kgrade's advice where it knows what to do.
solutions=exercises/hidden-layer/solutions
json=$(grade --exercise hidden-layer --n 5000 --json "$solutions/compile_error__numpy_exp_in_a_device_function.py" 2>/dev/null)
expect "numpy's exp in a device function is a compile_error at the line calling exp (9), not the kernel's call (16)" \
    0 "^true$" -- jq -e '.verdict == "compile_error" and .compile.diagnostics[0].line == 9
        and (.compile.message | test("\\(line 9, in the function called at line 16\\); a kernel calls math.exp \\(from math import exp\\), not numpy.s$"))' <<<"$json"
expect "... and numba's log quotes the student's code" 0 "^true$" -- jq -e '
    (.compile.log | test("return \\(exp\\(value\\) - exp")) and (.compile.log | test("source missing") | not)' <<<"$json"
expect "... and the grade's text quotes line 9" 1 "^ +9 \| +return \(exp\(value\)" -- \
    grade --exercise hidden-layer --n 5000 "$solutions/compile_error__numpy_exp_in_a_device_function.py"
expect "an undecorated helper called from a kernel is to be decorated as a device function" 1 \
    "^hidden-layer: compile_error: Untyped global name 'activate': .*; decorate 'activate' with @cuda.jit\(device=True\)$" -- \
    grade --exercise hidden-layer --n 5000 "$solutions/compile_error__undecorated_helpers.py"
expect "a ufunc of other types than the exercise's arrays is rejected with numba's rule and the types to declare" 1 \
    "^vector-add: rejected: the ufunc 'add_kernel' takes \(int64, int64\); the exercise's arrays x, y, out are float32: declare it as @vectorize\(\['float32\(float32, float32\)'\], target='cuda'\)\. numba itself refuses this call: \"No matching version\. GPU ufunc requires array arguments to have the exact types\." -- \
    grade --exercise vector-add --n 5000 exercises/vector-add/solutions/rejected__vectorize_of_int64.py

cat >"$TMP/unguarded.py" <<'PY'
import math
from numba import cuda

@cuda.jit
def hidden_layer(greyscales, weights, out):
    i = cuda.grid(1)
    out[i] = math.tanh(greyscales[i] / 255 * weights[i])
PY
unguarded=$(grade --exercise hidden-layer --n 5000 "$TMP/unguarded.py" 2>&1)
expect "an unguarded index is a memory_error" 0 \
    "^hidden-layer: memory_error: .*past the end of the 5000-element buffer 'greyscales' \(line 7\)" -- \
    echo "$unguarded"
expect "... at its Python line, quoted" 0 "^  at unguarded.py:7$" -- echo "$unguarded"

# An exercise with reference.py times Numba against it, like with like; C
# stays timed against reference.cu. Here a copy of vector-add whose Numba
# reference reads 256 elements for each it writes: a plain Numba kernel is much
# faster than it, the C reference as a C kernel exactly as fast.
mkdir -p "$TMP/like"
cp -r exercises/vector-add "$TMP/like/"
cat >"$TMP/like/vector-add/reference.py" <<'PY'
from numba import cuda

@cuda.jit
def add_kernel(x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        noise = 0.0
        for k in range(256):
            noise += x[(i + k) % x.size]
        out[i] = x[i] + y[i]
        if noise == 1234567.0:  # never: the loop's reads stay
            out[i] = noise
PY
cat >"$TMP/add_jit.py" <<'PY'
from numba import cuda

@cuda.jit
def add_kernel(x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] + y[i]
PY
expect "a Numba kernel is timed against the exercise's reference.py" 0 "^passed true$" -- bash -c \
    "'$KGRADE' grade --exercises '$TMP/like' --exercise vector-add --n 100003 --json '$TMP/add_jit.py' |
     jq -r '\"\\(.verdict) \\(.performance.ratio < 0.8)\"'"
expect "... and a C kernel still against reference.cu" 0 "^passed 1$" -- bash -c \
    "'$KGRADE' grade --exercises '$TMP/like' --exercise vector-add --n 100003 --json exercises/vector-add/reference.cu |
     jq -r '\"\\(.verdict) \\(.performance.ratio)\"'"
# kgrade's reference.py compiles under a reference's limits, never the
# student's compile limit: here a reference.py that takes 5 s to import
# and an exercise that gives a student's compile 3 s (a plain Numba
# compile takes about 0.8 s here, more on a loaded machine).
cp -r "$TMP/like" "$TMP/like-short"
jq '.limits = {"compile_seconds": 3}' exercises/vector-add/exercise.json \
    >"$TMP/like-short/vector-add/exercise.json"
printf 'import time\ntime.sleep(5)\n' | cat - "$TMP/like/vector-add/reference.py" \
    >"$TMP/like-short/vector-add/reference.py"
expect "reference.py compiles under a reference's limits, not under a student's 3 s" 0 \
    "^vector-add: passed" -- \
    grade --exercises "$TMP/like-short" --exercise vector-add --n 5000 "$TMP/add_jit.py"
printf 'from numba import cuda\nthis is not python\n' >"$TMP/like/vector-add/reference.py"
expect "a reference.py that does not compile is kgrade's internal_error, never the student's" 3 \
    "^vector-add: internal_error: the Numba reference does not compile" -- \
    grade --exercises "$TMP/like" --exercise vector-add --n 5000 "$TMP/add_jit.py"

# A histogram's bins may be computed in float32 (reference.cu's histogram,
# and reference.py) or in float64 (the course's Numba formula, which
# divides a float32 by the integer nbins): exercise.json's "alternative"
# (histogram_f64) runs the reference again the float64 way, and a histogram
# equal to either passes. With seed 1, at n = 7,000,000, one element lies
# within rounding of a bin edge: without the alternative (a copy of the
# exercise without it) the course's formula is a wrong_answer there.
mkdir -p "$TMP/no-alternative"
cp -r exercises/histogram "$TMP/no-alternative/"
jq 'del(.kernels[0].alternative)' exercises/histogram/exercise.json \
    >"$TMP/no-alternative/histogram/exercise.json"
edge=(--exercise histogram --seed 1 --n 7000000)
course=exercises/histogram/solutions/passed__course_formula_float64.py
expect "the course's float64 histogram differs from the float32 reference at the edge case" 1 \
    "^histogram: wrong_answer: .*'histogram_out' are wrong" -- \
    grade --exercises "$TMP/no-alternative" "${edge[@]}" "$course"
expect "... and passes against the exercise's alternative" 0 "^histogram: passed: " -- \
    grade "${edge[@]}" "$course"
expect "... as the float32 form does" 0 "^histogram: passed: " -- \
    grade "${edge[@]}" exercises/histogram/solutions/passed__global_atomics_grid_stride.py
expect "... and a C kernel computing the bins in double precision" 0 "^histogram: passed: " -- \
    grade "${edge[@]}" exercises/histogram/solutions/passed__double_precision.cu
expect "... while one element missing is a wrong_answer in either precision" 1 \
    "^histogram: wrong_answer: .*the first is \[4\]: expected 2016730, got 2016729" -- \
    grade "${edge[@]}" exercises/histogram/solutions/wrong_answer__last_element_skipped.py

# ---------------------------------------------------- a hostile module
here=$(pwd)
cat >"$TMP/snoop.py" <<PY
import os, sys
seen = []
def probe(what, action):
    try:
        seen.append("%s: FOUND %r" % (what, action()))
    except Exception as error:
        seen.append("%s: %s" % (what, type(error).__name__))
probe("open", lambda: open("$here/exercises/hidden-layer/reference.cu").read(80))
probe("listdir", lambda: os.listdir("$here/exercises"))
probe("solutions", lambda: os.listdir("$here/exercises/hidden-layer/solutions"))
probe("sources", lambda: os.listdir("$here/grader"))
probe("data", lambda: os.listdir("$here/var"))
probe("root", lambda: os.listdir("/"))
probe("home", lambda: os.listdir("/root"))
probe("proc", lambda: open("/proc/self/environ").read())
sys.path.insert(0, "$here/exercises/hidden-layer")
probe("import", lambda: __import__("reference"))
raise RuntimeError(" | ".join(seen))
PY
snooped=$(grade --exercise hidden-layer --n 5000 "$TMP/snoop.py" 2>&1)
expect "a module that reads the reference, the exercises, kgrade's sources or the host finds nothing" 0 "" -- \
    bash -c '! grep -q FOUND <<<"$1" && grep -q "open: FileNotFoundError" <<<"$1" && grep -q "import: ModuleNotFoundError" <<<"$1" && grep -q "listdir: FileNotFoundError" <<<"$1"' _ "$snooped"
expect "... and says so as its compile_error" 1 "^hidden-layer: compile_error: RuntimeError: open: " -- \
    grade --exercise hidden-layer --n 5000 "$TMP/snoop.py"
for attempt in "os.execv('/usr/bin/python3', ['python3']):os.exec" "os.fork():os.fork" \
    "socket.socket(socket.AF_INET, socket.SOCK_STREAM):socket.__new__" \
    "os.makedirs('/tmp/a/b'):os.mkdir"; do
    printf 'import os, socket\n%s\n' "${attempt%:*}" >"$TMP/escape.py"
    expect "a module that tries ${attempt%:*} is stopped: a compile_error naming ${attempt##*:}" 1 \
        "^hidden-layer: compile_error: the module was stopped while it was imported: it made a system call the sandbox does not allow, at or after its call to ${attempt##*:} \(.*\): remove that call" -- \
        grade --exercise hidden-layer --n 5000 "$TMP/escape.py"
done
cat >"$TMP/forged.py" <<'PY'
import os
os.write(3, b'{"status": "ok", "ptx": {"add_kernel": "not ptx"}, "entries": {"add_kernel": "x"}}\n')
os._exit(0)
PY
expect "a module that forges the front end's result hands over PTX that is graded as any: a compile_error" 1 \
    "^vector-add: compile_error: the virtual GPU does not support this kernel" -- \
    grade --exercise vector-add --n 5000 "$TMP/forged.py"
# The hostile corpus of Numba modules (tests/hostile/numba/): each writes
# on kgrade's result channel itself, or is a gufunc that breaks its form
# or writes where it should not, and gets the verdict its name says:
# never kgrade's internal_error, never its own words shown as kgrade's, and
# a kernel whose parameters are not numba's never runs.
for f in tests/hostile/numba/*.py; do
    name=$(basename "$f")
    verdict=${name%%__*}
    grade --exercise vector-add --n 5000 --json "$f" >"$TMP/forged.json" 2>"$TMP/forged.err"
    expect "$name is $verdict" 0 "^$verdict$" -- jq -r .verdict "$TMP/forged.json"
    expect "... and none of its words are shown as kgrade's" 1 "" -- \
        grep -E "evil.example|pwned|well done" "$TMP/forged.json" "$TMP/forged.err"
done
# What a module of the corpus is told (a verdict other than passed).
hostile_says() { # DESCRIPTION REGEX FILE
    expect "$1" 1 "$2" -- grade --exercise vector-add --n 5000 "tests/hostile/numba/$3"
}
hostile_says "a forged kernel's 8 KB parameter is refused, naming numba's form" \
    "^vector-add: rejected: the kernel 'add_kernel' does not take what numba passes for add_kernel\(.*\): its parameter value 1 is 8192 bytes at offset 0 where the exercise passes 8 bytes at offset 0" \
    rejected__forged_param_overread.py
hostile_says "a forged result in kgrade's name is the module's, said in kgrade's words" \
    "^vector-add: compile_error: the module wrote on kgrade's channel \(file descriptor 3\) a result saying that kgrade failed" \
    compile_error__forged_internal_error.py
hostile_says "a gufunc of other types than the exercise's is refused, saying which to declare" \
    "^vector-add: rejected: the gufunc 'add_kernel' is declared for \(float64, float64, float64\[:\]\); .*declare it as @guvectorize\(\['void\(float32, float32, float32\[:\]\)'\], '\(\),\(\)->\(\)', target='cuda'\)" \
    rejected__gufunc_of_float64.py
hostile_says "a gufunc's write past its element is a memory_error at the gufunc's line" \
    "^  at memory_error__gufunc_core_writes_past_its_element.py:9$" \
    memory_error__gufunc_core_writes_past_its_element.py
printf 'import sys\nsys.exit(0)\n' >"$TMP/quits.py"
expect "a module that exits at import is a compile_error, not kgrade's failure" 1 \
    "^vector-add: compile_error: the module ended the compile before numba had compiled it" -- \
    grade --exercise vector-add --n 5000 "$TMP/quits.py"

# The compile's limits hold the module's import: copies of vector-add with
# a 2 s compile, and with 1 GB (reaching it takes a few seconds).
limited() { # NAME LIMITS
    mkdir -p "$TMP/$1"
    cp -r exercises/vector-add "$TMP/$1/"
    jq ".limits = $2" exercises/vector-add/exercise.json >"$TMP/$1/vector-add/exercise.json"
}
limited short '{"compile_seconds": 2}'
limited small '{"compile_seconds": 20, "memory_mb": 1024}'
printf 'while True:\n    pass\n' >"$TMP/spins.py"
expect "a module that spins at import is a compile_error at the compile's time limit" 1 \
    "^vector-add: compile_error: the Numba compile took longer than its 2 s limit" -- \
    grade --exercises "$TMP/short" --exercise vector-add --n 5000 "$TMP/spins.py"
printf 'hog = bytearray(3 << 30)\nfor i in range(0, len(hog), 4096):\n    hog[i] = 1\n' >"$TMP/hog.py"
expect "a module that takes memory at import is a compile_error at the compile's memory limit" 1 \
    "^vector-add: compile_error: the Numba compile used more than its 1024 MB of memory" -- \
    grade --exercises "$TMP/small" --exercise vector-add --n 5000 "$TMP/hog.py"

finish
