#!/usr/bin/env bash
# Integration tests of what `kgrade serve` stores per user: a result with a
# huge compile log (a kernel with 1,200 warnings: an 87 KB grade JSON) is
# stored compacted under SERVICE_RESULT_STORED_MAX (16 KB), its verdict,
# message, first diagnostics, correctness and performance kept and the cut
# said; a student whose sources and results would pass the storage budget
# (config.json's storage_mb_per_user, small here) is refused 413
# storage_full with a sentence naming the budget and what to do, while a
# smaller source of theirs still fits and another student is not held back.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/service_lib.sh

mkdir -m 700 "$DATA" && echo '{"storage_mb_per_user": 0.05}' >"$DATA/config.json" # 52,428 bytes
start_server tests/service/exercises || exit 1
WES=$(student_token wes)
XAN=$(student_token xan)

# tests/service/kernels/good.cu's kernel with 1,200 unused variables
{
    echo 'extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)'
    echo '{'
    for i in $(seq 1200); do echo "    int unused$i;"; done
    echo '    int i = blockIdx.x * blockDim.x + threadIdx.x;'
    echo '    if (i < n)'
    echo '        c[i] = a[i] + b[i];'
    echo '}'
} >"$TMP/warnings.cu"
# the good kernel after a 30,000-byte comment
{ printf '/* %s */\n' "$(head -c 30000 /dev/zero | tr '\0' x)"; cat tests/service/kernels/good.cu; } >"$TMP/long.cu"

id=$(submit_kernel "$WES" tiny-add "$TMP/warnings.cu")
expect "a kernel with 1,200 warnings passes" 0 "^passed$" -- wait_done "$WES" "$id"
api GET "/api/v1/submissions/$id" -H "Authorization: Bearer $WES" >"$TMP/sub.json"
stored=$(jq -c .result "$TMP/sub.json" | wc -c)
expect "its result is stored compacted, within 16 KB (the grade was 87 KB)" 0 "" -- test "$stored" -le 16385
expect "... keeping the verdict, the message, correctness and time" 0 '^passed true correct; .* [0-9.]+$' -- \
    jq -r '"\(.result.verdict) \(.result.correctness.passed) \(.result.message) \(.result.performance.ratio)"' "$TMP/sub.json"
expect "... the first 20 of the compiler's diagnostics, from the first" 0 '^20 3 warning$' -- \
    jq -r '.result.compile.diagnostics | "\(length) \(.[0].line) \(.[0].severity)"' "$TMP/sub.json"
expect "... the log's start, with what was cut said at its end" 0 'more bytes not stored\]$' -- \
    jq -r '.result.compile.log' "$TMP/sub.json"
expect "... and a sentence on what was cut and why" 0 '^stored cut to 16384 bytes at most: the compile log' -- \
    jq -r '.result.compacted' "$TMP/sub.json"

api POST /api/v1/submissions -H "Authorization: Bearer $WES" -H 'Content-Type: application/json' \
    --data-binary "{\"exercise\": \"tiny-add\", \"source\": $(jq -Rs . <"$TMP/long.cu")}" >/dev/null
expect "a source that would take wes past the budget: 413 storage_full, saying the budget and what to do" 0 \
    "^413 storage_full your submissions hold 0\.0[0-9]+ MB .* past the 0\.05 MB kept per user.*storage_mb_per_user" -- \
    echo "$(status) $(jq -r '.error.code + " " + .error.message' "$TMP/body")"
small=$(submit_kernel "$WES" tiny-add tests/service/kernels/good.cu)
expect "... a small source of wes's still fits" 0 "^passed$" -- wait_done "$WES" "$small"
theirs=$(submit_kernel "$XAN" tiny-add "$TMP/long.cu")
expect "another student is not held back: xan's long source is taken and graded" 0 "^passed$" -- \
    wait_done "$XAN" "$theirs"

kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
finish
