#!/usr/bin/env bash
# Integration tests of the Python client (clients/python/kgrade_client)
# against a real `kgrade serve`: downloaded from /clients/kgrade_client.zip
# (its type and caching headers), it grades a known-good and a known-bad
# kernel with the same lines and exit codes as `kgrade submit`, both as
# `python3 -m kgrade_client` and as the zip, and a Numba kernel too (by its
# .py name or --language numba); an unknown exercise exits 2, a
# bad token 4; --json parses; and, where IPython is installed, the notebook
# magic %%kgrade shows a cell's result as HTML (notebook_session.py).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/service_lib.sh

start_server tests/service/exercises || exit 1
ANN=$(student_token ann)
export PYTHONPATH="$PWD/clients/python" PYTHONDONTWRITEBYTECODE=1
GOOD=tests/service/kernels/good.cu
WRONG=tests/service/kernels/wrong.cu
cat >"$TMP/oob.cu" <<'CU'
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];
}
CU

# ---- the download
ZIP="$TMP/kgrade_client.zip"
expect "the server serves the client as a zip" 0 "^200 application/zip$" -- \
    curl -s -o "$ZIP" -D "$TMP/zip.headers" -w '%{http_code} %{content_type}' "$BASE/clients/kgrade_client.zip"
expect "... with an ETag, no-cache and a file name" 0 "" -- bash -c \
    "grep -qi '^etag: \"' '$TMP/zip.headers' && grep -qi '^cache-control: no-cache' '$TMP/zip.headers' &&
     grep -qi '^content-disposition: attachment; filename=\"kgrade_client.zip\"' '$TMP/zip.headers'"
etag=$(sed -n 's/^[Ee][Tt]ag: //p' "$TMP/zip.headers" | tr -d '\r')
expect "... and 304 when unchanged" 0 "^304$" -- \
    curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$BASE/clients/kgrade_client.zip"
expect "importing the package needs no IPython" 0 "^False$" -- \
    python3 -c 'import sys, kgrade_client; print("IPython" in sys.modules)'

# ---- the same lines and exit codes as kgrade submit
# Seeds, the values they draw and submission ids differ from run to run;
# whether a client still finds its submission queued (and says its place)
# depends on when the worker takes it.
masked() {
    sed -E '/: queued, position [0-9]+ in the queue$/d;
            s/seed [0-9]+/seed S/; s/-?[0-9]+\.[0-9]+(e[-+]?[0-9]+)?/N/g;
            s/submitted as [0-9]+: (.*)\/[0-9]+$/submitted as ID: \1\/ID/' "$1"
}
# each NAME COMMAND...: runs it, its outputs and exit code in $TMP/NAME.*
each() {
    local name=$1
    shift
    "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
    echo $? >"$TMP/$name.rc"
    masked "$TMP/$name.out" >"$TMP/$name.masked"
    masked "$TMP/$name.err" >>"$TMP/$name.masked"
}
same() { # same A B: the same masked output and exit code
    diff "$TMP/$1.masked" "$TMP/$2.masked" && diff "$TMP/$1.rc" "$TMP/$2.rc" && cat "$TMP/$1.rc"
}
for kernel in "$GOOD" "$WRONG"; do
    name=$(basename "$kernel" .cu)
    code=$([[ $name == good ]] && echo 0 || echo 1)
    each "c-$name" "$KGRADE" submit --server "$BASE" --token "$ANN" --exercise tiny-add "$kernel"
    each "py-$name" python3 -m kgrade_client submit --server "$BASE" --token "$ANN" \
        --exercise tiny-add "$kernel"
    each "zip-$name" env -u PYTHONPATH KGRADE_URL="$BASE" KGRADE_TOKEN="$ANN" \
        python3 "$ZIP" submit --exercise tiny-add "$kernel"
    expect "kgrade submit: $name.cu exits $code" "$code" "" -- bash -c "exit \$(cat '$TMP/c-$name.rc')"
    expect "python3 -m kgrade_client prints what kgrade submit prints for $name.cu" 0 "^$code$" -- \
        same "c-$name" "py-$name"
    expect "... and so does the downloaded zip, with KGRADE_URL and KGRADE_TOKEN" 0 "^$code$" -- \
        same "c-$name" "zip-$name"
done
# A Numba kernel (a .py file: sent with "language": "numba" by both), and
# --language numba on a file of another name: the same lines, the same code.
cp tests/service/kernels/good.py "$TMP/add_kernel.numba"
passes=""  # the exit code's pattern: 0 (passed) where the server has numba
"${KGRADE_PYTHON:-/usr/bin/python3}" -c 'import numba' 2>/dev/null && passes="^0$"
for how in extension option; do
    args=(tests/service/kernels/good.py)
    [[ $how == option ]] && args=(--language numba "$TMP/add_kernel.numba")
    each "c-numba-$how" "$KGRADE" submit --server "$BASE" --token "$ANN" --exercise tiny-add "${args[@]}"
    each "py-numba-$how" python3 -m kgrade_client submit --server "$BASE" --token "$ANN" \
        --exercise tiny-add "${args[@]}"
    expect "a Numba kernel (by its $how): the Python client prints what kgrade submit prints" 0 "$passes" -- \
        same "c-numba-$how" "py-numba-$how"
    expect "... and both sent it as Numba" 0 "^numba numba$" -- bash -c \
        "curl -s -H 'Authorization: Bearer $ANN' $BASE/api/v1/submissions | jq -r '[.submissions[0:2][].language] | join(\" \")'"
done
expect "the progress came from the event stream" 0 "" -- \
    grep -q '^kgrade submit: running, case 2 of 2 (assessment, n = 1,000): your kernel' "$TMP/py-good.err"

expect "an unknown exercise is refused: exit 2" 2 "^kgrade submit: no exercise 'nope'.*\(HTTP 422\)$" -- \
    python3 -m kgrade_client submit --server "$BASE" --token "$ANN" --exercise nope "$GOOD"
expect "... as kgrade submit refuses it" 2 "^kgrade submit: no exercise 'nope'.*\(HTTP 422\)$" -- \
    "$KGRADE" submit --server "$BASE" --token "$ANN" --exercise nope "$GOOD"
expect "a bad token: exit 4, as kgrade submit" 4 "refused the token: the token is unknown or revoked" -- \
    python3 "$ZIP" submit --server "$BASE" --token not-a-token --exercise tiny-add "$GOOD"
expect "--json prints the grade JSON" 1 "" -- bash -c \
    "python3 -m kgrade_client submit --server '$BASE' --token '$ANN' --exercise tiny-add --json \
        '$TMP/oob.cu' 2>/dev/null >'$TMP/oob.json'"
expect "... which parses, with the memory error at its line" 0 "^4$" -- \
    jq -e 'select(.verdict == "memory_error") | .diagnostics[0].line' "$TMP/oob.json"

# ---- the notebook
if python3 -c 'import IPython' 2>/dev/null; then
    expect "the %%kgrade cell magic in IPython" 0 "" -- \
        env -u PYTHONPATH python3 tests/integration/notebook_session.py "$ZIP" "$BASE" "$ANN" \
        "$GOOD" "$TMP/oob.cu"
else
    echo "skipped: no IPython (apt-get install python3-ipython): the %%kgrade cell magic"
fi
kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
finish
