#!/usr/bin/env bash
# Runs kgrade's tests and ends with one line: "N passed, N failed".
#
#   tests/run-tests.sh BUILD [unit|asan|numba|web|python|gpu|integration|fuzz ...]   (default: all)
#
# unit:        the cmocka programs in BUILD/tests/unit
# asan:        the same programs built with AddressSanitizer + UBSan (leaks included)
# numba:       the Numba front end's tests, tests/numba, in Debian's python3:
#              compiles, errors, and the course's kernels on the virtual GPU
#              (skipped, saying so, when python3-numba is missing)
# web:         the pages' scripts' unit tests, tests/web/test_*.mjs, in Node
#              (skipped, saying so, when node is missing)
# python:      the Python client's unit tests, tests/python/test_*.py (unittest;
#              skipped, saying so, when python3 is missing)
# gpu:         the programs in BUILD/tests/gpu, on the virtual GPU (BUILD/emulator),
#              under KGEMU_TIER=compare (both tiers, which must agree)
# integration: the scripts in tests/integration, against BUILD/kgrade
# full:        the scripts in tests/full, the gradings at full size (not in the
#              default list: `make test-full`)
# references:  tests/full/test_references.sh alone (`make test-references`)
# notebooks:   tests/full/test_notebooks.sh alone, the course's notebooks through
#              the kgrade Jupyter kernel (`make test-notebooks`)
# browser:     tests/browser/*.mjs, the web pages in Debian's Chromium
#              (skipped, saying so, when Chromium or web/node_modules is missing)
# fuzz:        each libFuzzer target in BUILD/fuzz for FUZZ_SECONDS (default 3)
#              from its seed corpus in tests/fuzz/corpus
set -uo pipefail
cd "$(dirname "$0")/.."
build="${1:?usage: tests/run-tests.sh BUILD [unit|asan|integration|fuzz ...]}"
shift
sections=("$@")
[[ ${#sections[@]} -gt 0 ]] || sections=(unit asan numba web python gpu integration browser fuzz)
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export KGRADE="$build/kgrade"
FUZZ_SECONDS="${FUZZ_SECONDS:-3}"

passed=0
failed=0
failures=()

# run NAME COMMAND...: one test program; its output is shown as it runs,
# then how long it took (the slowest are listed at the end: `make test`
# must stay under 12 minutes on 2 cores).
# A failed test's output is kept, and what it said about the failure is
# repeated at the end: CI shows only the last lines of a run.
durations=()
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
failure_logs=()
run() {
    local name="$1" start=$SECONDS log="$logs/${#durations[@]}.log"
    shift
    echo "== $name"
    if "$@" > >(tee "$log") 2>&1; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        failures+=("$name")
        failure_logs+=("$log")
    fi
    durations+=("$((SECONDS - start)) $name")
}

# why_failed LOG: the lines of a failed test's output that say what failed
# (an integration check's FAIL, cmocka's, a sanitizer's report), else its end.
why_failed() {
    local found
    found=$(grep -E -A8 '^(FAIL |\[  FAILED|\[  ERROR|==[0-9]+==ERROR|SUMMARY:|Traceback)' "$1" | head -n 40)
    if [[ -n $found ]]; then echo "$found"; else tail -n 20 "$1"; fi
}

# fuzz TARGET CORPUS SEEDS: runs a libFuzzer target; shows its run count, or
# everything it said when it found a crash.
fuzz() {
    local out rc=0
    out=$("$1" -max_total_time="$FUZZ_SECONDS" -max_len=4096 "$2" "$3" 2>&1) || rc=$?
    if [[ $rc -eq 0 ]]; then
        grep -E '^Done [0-9]+ runs' <<<"$out"
    else
        tail -n 60 <<<"$out"
    fi
    return $rc
}

for section in "${sections[@]}"; do
    case "$section" in
    unit | asan)
        dir="$build/tests/unit"
        [[ $section == asan ]] && dir="$build/asan/tests/unit"
        for t in "$dir"/test_*; do
            [[ -x "$t" ]] && run "$section: $(basename "$t")" "$t"
        done
        ;;
    numba)
        # Debian's python3 with python3-numba (not a python3 of pyenv's first
        # in the PATH, which has no numba)
        if /usr/bin/python3 -c 'import numba' 2>/dev/null; then
            run "numba: tests/numba" env KGRADE_EMULATOR="$build/emulator/libcuda.so.1" \
                /usr/bin/python3 -W ignore -m unittest discover -s tests/numba
        else
            echo "== numba: skipped (no python3-numba: deploy/install-deps.sh installs it)"
        fi
        ;;
    web)
        if command -v node >/dev/null; then
            for t in tests/web/test_*.mjs; do
                run "web: $(basename "$t")" node "$t"
            done
        else
            echo "== web: skipped: needs node (apt-get install nodejs)"
        fi
        ;;
    python)
        if command -v python3 >/dev/null; then
            for t in tests/python/test_*.py; do
                run "python: $(basename "$t")" env PYTHONDONTWRITEBYTECODE=1 python3 "$t"
            done
        else
            echo "== python: skipped: needs python3"
        fi
        ;;
    gpu)
        # Under KGEMU_TIER=compare: every launch runs in the interpreter and
        # in the compiled tier, which must agree bit for bit (a difference
        # aborts the program). Three programs run otherwise: test_determinism
        # checks that results do not depend on KGEMU_THREADS, which compare
        # mode fixes at 1, so it runs on each tier alone; test_video, whose
        # one launch writes 11 MB that compare mode checks block by block
        # (18 s, where each tier alone takes 1 s: both check every result
        # against the ISA's C reference), on each tier alone; test_timing,
        # the timing model at 100M elements, at the default tier's full speed.
        for t in "$build"/tests/gpu/test_*; do
            [[ -x "$t" ]] || continue
            name=$(basename "$t")
            case "$name" in
            test_determinism | test_video)
                for tier in interp jit; do
                    run "gpu: $name (KGEMU_TIER=$tier)" \
                        env LD_LIBRARY_PATH="$build/emulator" KGEMU_TIER=$tier "$t"
                done
                ;;
            test_timing) run "gpu: $name" env LD_LIBRARY_PATH="$build/emulator" "$t" ;;
            *) run "gpu: $name (compare)" env LD_LIBRARY_PATH="$build/emulator" KGEMU_TIER=compare "$t" ;;
            esac
        done
        ;;
    integration | full)
        for t in tests/"$section"/test_*.sh; do
            run "$section: $(basename "$t")" bash "$t"
        done
        ;;
    references)
        run "full: test_references.sh" bash tests/full/test_references.sh
        ;;
    notebooks)
        run "full: test_notebooks.sh" bash tests/full/test_notebooks.sh
        ;;
    browser)
        if [[ -x "$CHROMIUM" && -d web/node_modules/playwright-core ]]; then
            for t in tests/browser/*.mjs; do
                [[ "$t" == */harness.mjs ]] && continue
                run "browser: $(basename "$t")" env CHROMIUM="$CHROMIUM" node "$t" "$build"
            done
        else
            echo "== browser: skipped: needs $CHROMIUM (apt-get install chromium) and" \
                "web/node_modules (make web)"
        fi
        ;;
    fuzz)
        for t in "$build"/fuzz/fuzz_*; do
            name=$(basename "$t")
            corpus="$build/fuzz/corpus-${name#fuzz_}"
            # fuzz_emu_tiers compiles every input (about 0.1 s each): a corpus
            # kept between runs would grow until replaying it outlasts
            # FUZZ_SECONDS, so it starts from its seeds every time
            [[ $name == fuzz_emu_tiers ]] && rm -rf "$corpus"
            mkdir -p "$corpus"
            run "fuzz: $name (${FUZZ_SECONDS} s)" fuzz "$t" "$corpus" "tests/fuzz/corpus/${name#fuzz_}"
        done
        ;;
    *)
        echo "run-tests.sh: unknown section '$section'" >&2
        exit 2
        ;;
    esac
done

echo "slowest (of $SECONDS s in all; by section: $(printf '%s\n' "${durations[@]}" |
    awk '{split($2, s, ":"); t[s[1]] += $1}
         END {for (k in t) {printf "%s%s %d s", sep, k, t[k]; sep = ", "}}'))":
printf '%s\n' "${durations[@]}" | sort -rn | head -n 8 | sed 's/^\([0-9]*\) /  \1 s  /'
for i in "${!failures[@]}"; do
    sleep 0.2 # tee has written the whole log
    echo "FAILED: ${failures[$i]}"
    why_failed "${failure_logs[$i]}" | sed 's/^/    /'
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
