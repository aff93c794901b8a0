#!/usr/bin/env bash
# Every kernel shipped in exercises/ compiles as its name says: references,
# starters and solutions compile, except solutions named compile_error__*,
# which must not. (Grading them for their full verdicts comes with the grader.)
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

shopt -s nullglob
sources=(exercises/*/reference.cu exercises/*/starter.cu exercises/*/solutions/*.cu)
[[ ${#sources[@]} -gt 0 ]] || { echo "no exercise sources found"; exit 1; }
for f in "${sources[@]}"; do
    case "$(basename "$f")" in
    compile_error__*) expect "$f does not compile" 1 "compile error" -- "$KGRADE" compile "$f" ;;
    *) expect "$f compiles" 0 "compiled: [1-9][0-9]* kernel" -- "$KGRADE" compile "$f" ;;
    esac
done

# The course file and the exercise folder agree, and the README lists them.
course=exercises/courses/cuda-fundamentals.json
expect "the loader accepts every exercise" 0 "" -- bash -c "! '$KGRADE' exercises | grep -q BROKEN"
for id in $(jq -r '.sections[].exercises[]' "$course"); do
    expect "the course's $id is an exercise" 0 "^$id " -- bash -c "'$KGRADE' exercises | grep '^$id '"
done
for dir in exercises/*/exercise.json; do
    id=$(basename "$(dirname "$dir")")
    expect "$id is in a section of the course" 0 "" -- \
        jq -e --arg id "$id" '[.sections[].exercises[]] | index($id) != null' "$course"
done
expect "the README lists the course's exercises, section by section" 0 "" -- bash -c "
    for row in \$(jq -r '.sections[] | [.exercises[]] | join(\",\")' $course); do
        line=\$(grep -F \"\\\`\${row%%,*}\\\`\" README.md | grep '^| [0-9]') || exit 1
        for id in \${row//,/ }; do grep -qF \"\\\`\$id\\\`\" <<<\"\$line\" || exit 1; done
    done"
expect "at least 18 exercises" 0 "" -- test "$(ls exercises/*/exercise.json | wc -l)" -ge 18
finish
