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
finish
