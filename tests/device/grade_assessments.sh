#!/usr/bin/env bash
# On a GPU server (or, for the modeled figures, on the virtual GPU): grades
# every CUDA C solution of the course's three assessments at the assessed
# size and checks each verdict against the one its file name gives
# (<verdict>__<what>.cu). One line per solution: the verdict, the
# reference's and the student's milliseconds, their ratio, the seconds the
# grade took. Each grade's JSON is kept in OUTDIR.
#
#   tests/device/grade_assessments.sh KGRADE OUTDIR [kgrade grade options…]
#
# e.g. `… build/kgrade /tmp/gpu --device cuda` on a GPU server, and
# `KGEMU_DEVICE=h200 … build/kgrade /tmp/emu --device emulator` here for the
# virtual GPU's model of the same card. Exits 1 when a verdict differs.
# The times a card measured are kept as a dataset beside this script
# (h200-2026-11-28.json), which `make fidelity` holds the model to.
set -u
if [[ $# -lt 2 ]]; then
    echo "usage: $0 KGRADE OUTDIR [kgrade grade options...]" >&2
    exit 2
fi
kgrade=$1 outdir=$2
shift 2
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$outdir"

summary() { # JSON on stdin: verdict reference_ms student_ms ratio device
    python3 -c '
import json, sys
try:
    g = json.load(sys.stdin)
except ValueError:
    print("no-json - - - -"); sys.exit()
p = g.get("performance") or {}
f = lambda v: "-" if v is None else "%.4g" % v
print(g.get("verdict", "-"), f(p.get("reference_ms")), f(p.get("student_ms")),
      f(p.get("ratio")), (g.get("device") or {}).get("name", "-").replace(" ", "_"))'
}

differ=0
printf '%-12s %-48s %-14s %-14s %10s %10s %8s %6s %s\n' exercise solution expected verdict \
    ref_ms student_ms ratio wall_s device
for exercise in hidden-layer histogram transpose; do
    for file in "$here/exercises/$exercise/solutions/"*.cu; do
        name=$(basename "$file" .cu)
        expected=${name%%__*}
        start=$(date +%s%N)
        timeout "${GRADE_TIMEOUT:-300}" "$kgrade" grade --exercise "$exercise" --exercises "$here/exercises" --json \
            "$@" "$file" >"$outdir/$exercise.$name.json" 2>"$outdir/$exercise.$name.err"
        wall_ms=$((($(date +%s%N) - start) / 1000000))
        read -r verdict ref student ratio device < <(summary <"$outdir/$exercise.$name.json")
        [[ $verdict == "$expected" ]] || differ=1
        printf '%-12s %-48s %-14s %-14s %10s %10s %8s %3d.%d %s\n' "$exercise" "$name" \
            "$expected" "$verdict" "$ref" "$student" "$ratio" $((wall_ms / 1000)) \
            $((wall_ms % 1000 / 100)) "$device"
        [[ $verdict == no-json ]] && head -c 600 "$outdir/$exercise.$name.err" | sed 's/^/    /'
    done
done
exit $differ
