#!/usr/bin/env bash
# Every bundled exercise at its full assessment size (`make
# test-references`, and `make test-full`; tens of minutes on 2 cores): its
# reference, graded as a student's kernel, passes at ratio 1 exactly (a
# budget or a model that made the canonical solution fail would show
# here), and each known-good solution passes at the ratio documented in
# tests/full/solution_ratios.txt (within 2 %: the virtual GPU is
# deterministic, so a change there is a change of the timing model, to be
# looked at and documented). `UPDATE=1` rewrites that file from this run;
# `ONLY=ID` grades one exercise (not with UPDATE).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

RATIOS=tests/full/solution_ratios.txt
grade_json() { "$KGRADE" grade --exercise "$1" --seed 1 --json "$2" 2>/dev/null; }
verdict_ratio() { jq -r '"\(.verdict) \(.performance.ratio)"'; }

# documented EXERCISE FILE: the ratio the file documents, or nothing
documented() { awk -v e="$1" -v f="$2" '$1 == e && $2 == f { print $3 }' "$RATIOS"; }

# within TWO_PERCENT MEASURED DOCUMENTED
within() { awk -v m="$1" -v d="$2" 'BEGIN { exit !(d > 0 && m >= d * 0.98 && m <= d * 1.02) }'; }

[[ ${UPDATE:-} == 1 && -n ${ONLY:-} ]] && { echo "UPDATE=1 rewrites every ratio: not with ONLY"; exit 2; }
[[ ${UPDATE:-} == 1 ]] && : >"$TMP/ratios"
for dir in exercises/*/; do
    [[ -f ${dir}exercise.json ]] || continue
    exercise=$(basename "$dir")
    [[ -n ${ONLY:-} && $exercise != "$ONLY" ]] && continue
    expect "$exercise: the reference as the student's kernel passes at ratio 1, at full size" 0 \
        "^passed 1$" -- bash -c "$(declare -f grade_json verdict_ratio); KGRADE='$KGRADE'
            grade_json $exercise ${dir}reference.cu | verdict_ratio"
    for f in "${dir}"solutions/passed__*.cu; do
        [[ -f $f ]] || continue
        name=$(basename "$f")
        read -r verdict ratio < <(grade_json "$exercise" "$f" | verdict_ratio)
        if [[ ${UPDATE:-} == 1 ]]; then
            expect "$exercise: $name passes (its ratio recorded)" 0 "^passed$" -- echo "$verdict"
            printf '%s %s %.3g\n' "$exercise" "$name" "$ratio" >>"$TMP/ratios"
            continue
        fi
        want=$(documented "$exercise" "$name")
        expect "$exercise: $name passes at its documented ratio ${want:-(none documented)}" 0 \
            "^passed, within 2 %$" -- bash -c "$(declare -f within)
                [[ $verdict == passed ]] && within '$ratio' '${want:-0}' &&
                echo 'passed, within 2 %' || echo '$verdict at $ratio'"
    done
done
if [[ ${UPDATE:-} == 1 ]]; then
    { sed -n '/^#/p' "$RATIOS"; cat "$TMP/ratios"; } >"$TMP/new" && mv "$TMP/new" "$RATIOS"
    echo "rewrote $RATIOS"
fi
finish
