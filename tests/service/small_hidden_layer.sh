#!/usr/bin/env bash
# hidden-layer at a small assessed size, for the service's tests of its
# host form (a submission grades at the assessed size: 100M elements takes
# about 25 s and 5 GB; 20001 about a second): copies exercises/hidden-layer
# (without its solutions) into DEST, with correctness cases n = 1 and 257
# and n = 20001 assessed, and its course with it alone.
#
#   tests/service/small_hidden_layer.sh DEST
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dest="${1:?usage: small_hidden_layer.sh DEST}"
mkdir -p "$dest/hidden-layer"
mkdir -p "$dest/courses"
jq '.sections = [.sections[0] | .exercises = ["hidden-layer"]] | .assessments = ["hidden-layer"]' \
    "$root/exercises/courses/cuda-fundamentals.json" >"$dest/courses/cuda-fundamentals.json"
find "$root/exercises/hidden-layer" -maxdepth 1 -type f ! -name exercise.json -exec cp {} "$dest/hidden-layer/" \;
jq '.correctness = [{"n": 1}, {"n": 257}] | .assessed = {"n": 20001}' \
    "$root/exercises/hidden-layer/exercise.json" >"$dest/hidden-layer/exercise.json"
