# Shared by tests/integration/test_grade.sh and tests/full/test_numba_solutions.sh
# (sourced after lib.sh): grading exercises' solutions at a quick size and
# checking that each gets the verdict its name says (<verdict>__<what>.cu|.py).
#
#   quick_size ID          a --n for the exercise: no multiple of a block or tile
#   have_numba             whether Debian's python3 (or KGRADE_PYTHON) has numba
#   grade_solutions FILE…  grades them two at a time, then one `expect` each

# A size for --n that is no multiple of a block or a tile, so edge threads
# exist: 20001 elements, or 1001 × 1001 when two sizes grow together, or
# about a fifth of a small assessment size (a 512 × 512 product: 103).
quick_size() {
    local growing first
    read -r growing first < <("$KGRADE" exercises --json | jq -r --arg id "$1" \
        '.[] | select(.id == $id) | [.sizes[]] as $s | "\($s | map(select(. == $s[0])) | length) \($s[0])"')
    if [[ $first -lt 4096 && $growing -eq 1 ]]; then
        echo $((first / 5 + 1))
    elif [[ $growing -gt 1 ]]; then
        echo 1001
    else
        echo 20001
    fi
}

have_numba() { "${KGRADE_PYTHON:-/usr/bin/python3}" -c 'import numba' 2>/dev/null; }

# Every solution is graded two at a time (a grade is mostly a compile on
# one core), each into a file of its own; the checks then read them in order.
exercise_of() { basename "$(dirname "$(dirname "$1")")"; }
grade_into() { # FILE: grades it into $TMP/grades/<flattened path>.{out,rc}
    local out="$TMP/grades/${1//\//_}" exercise size at
    exercise=$(exercise_of "$1")
    size=(--n "$(quick_size "$exercise")")
    # a Numba memory error or wrong answer is graded as a student's would
    # be, from the smallest correctness case (where it stops): its first
    # fault is the one its comment names, and a mistake that only shows
    # on a non-square matrix shows
    [[ $1 == *.py && $(basename "$1") == @(memory_error|wrong_answer)__* ]] && size=()
    # a kernel slow only at scale names its size ("the tests grade it at n = N")
    at=$(head -n 3 "$1" | sed -n 's/.*the tests grade it at n = \([0-9]*\).*/\1/p')
    [[ -n $at ]] && size=(--n "$at")
    "$KGRADE" grade --exercise "$exercise" "${size[@]}" "$1" >"$out.out" 2>/dev/null
    echo $? >"$out.rc"
}
replay() { cat "$TMP/grades/${1//\//_}.out"; return "$(cat "$TMP/grades/${1//\//_}.rc")"; }

grade_solutions() {
    local f exercise verdict code
    mkdir -p "$TMP/grades"
    export -f exercise_of grade_into quick_size
    export KGRADE TMP
    printf '%s\0' "$@" | xargs -0 -n 1 -P 2 bash -c 'grade_into "$0"'
    for f in "$@"; do
        exercise=$(exercise_of "$f")
        verdict=$(basename "$f" | sed 's/__.*//')
        code=1
        [[ $verdict == passed ]] && code=0
        expect "$exercise: $(basename "$f") is $verdict" "$code" "^$exercise: $verdict: " -- replay "$f"
        faulting_line "$f"
        no_host_address "$f"
    done
}

# A host address, which a device pointer is on the virtual GPU: a
# hexadecimal number, or a decimal one of 10 digits or more (above 4 GB).
HOST_ADDRESS='0[xX][0-9a-fA-F]+|[0-9]{10,}'

# A memory_error's sentence names buffers and elements, never a host
# address (DESIGN.md). Passes when grep finds none in the verdict's line.
no_host_address() {
    [[ $(basename "$1") == memory_error__* ]] || return 0
    expect "... and names no host address" 1 "" -- \
        bash -c "grep -E ': memory_error: ' '$TMP/grades/${1//\//_}.out' | grep -Eq '$HOST_ADDRESS'"
}

# A Numba memory_error solution names its faulting line in its first
# comment ("(line 10)"): the grade must name that Python line.
faulting_line() {
    local line
    [[ $1 == *.py && $(basename "$1") == memory_error__* ]] || return 0
    line=$(head -n 1 "$1" | sed -n 's/.*(line \([0-9]*\).*/\1/p')
    [[ -n $line ]] || return 0
    expect "... at its Python line $line" 1 "^  at $(basename "$1"):$line$" -- replay "$1"
}
