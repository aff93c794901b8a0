#!/usr/bin/env bash
# Integration tests of the service's queue (issue 15), each part on a
# server of its own (one worker, a temporary data folder, the small
# exercise set of tests/service/exercises): grading shared fairly between
# users (round-robin; a cap on one user's waiting submissions, answered 429
# with Retry-After), a grading whose worker process dies graded again once
# and internal_error the second time, a grading the server's death
# interrupts twice finished as internal_error, and one server per data
# folder and database (by any path: a hard link, a symlink or a bind mount
# of the database is the same database).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/service_lib.sh

EXERCISES=tests/service/exercises
KERNELS=tests/service/kernels

# kill_server: kill -9, as a crash would
kill_server() {
    kill -9 "$SERVER_PID"
    wait "$SERVER_PID" 2>/dev/null
}

# submit TOKEN FILE [extra curl args]: a tiny-add submission; prints its id
submit() { submit_kernel "$1" tiny-add "$2" "${@:3}"; }

# field TOKEN ID JQ: a field of a submission
field() { api GET "/api/v1/submissions/$2" -H "Authorization: Bearer $1" | jq -r "$3"; }

# ---- fair between users: round-robin, and a cap on one user's waiting submissions
start_server "$EXERCISES" || exit 1
ANN=$(student_token ann)
BEN=$(student_token ben)
ann_ids=()
for _ in $(seq 8); do ann_ids+=("$(submit "$ANN" "$KERNELS/slow.cu")"); done
wait_running "$ANN" "${ann_ids[0]}" # ben arrives while ann's first is graded
ben=$(submit "$BEN" "$KERNELS/good.cu")
expect "ben's first submission, behind 7 of ann's waiting, is next in the queue" 0 "^202 1$" -- \
    bash -c "echo \"\$(cat $TMP/status) \$(jq .queue_position $TMP/body)\""
expect "ann's third is behind ben's" 0 "^3$" -- field "$ANN" "${ann_ids[2]}" .queue_position
expect "ben's submission is graded" 0 "^passed$" -- wait_done "$BEN" "$ben"
ben_queued=$(field "$BEN" "$ben" .created_at)
ben_started=$(field "$BEN" "$ben" .started_at)
ahead=0
for id in "${ann_ids[@]}"; do
    started=$(field "$ANN" "$id" '.started_at // empty')
    [[ -n $started && $started > $ben_queued && $started < $ben_started ]] && ahead=$((ahead + 1))
done
expect "ben's job is started before at most one more of ann's (one worker)" 0 "^[01]$" -- \
    echo "$ahead"
for _ in $(seq 12); do
    submit "$ANN" "$KERNELS/slow.cu" -D "$TMP/headers" >/dev/null
    [[ $(status) == 202 ]] || break
done
expect "a user with 10 submissions waiting gets 429" 0 "^429$" -- status
expect "... saying so, as an error body" 0 \
    '^\{"error":\{"code":"too_many_waiting","message":"you have 10 submissions waiting; wait for one to finish"\}\}$' -- \
    cat "$TMP/body"
expect "... with Retry-After" 0 "^Retry-After: [0-9]+" -- tr -d '\r' <"$TMP/headers"
ben=$(submit "$BEN" "$KERNELS/good.cu")
expect "another user is not held back, and goes first" 0 "^202 1$" -- \
    bash -c "echo \"\$(cat $TMP/status) \$(jq .queue_position $TMP/body)\""
kill_server

# ---- one server per data folder and per database
DATA="$TMP/data-lock"
start_server "$EXERCISES" || exit 1
first=$SERVER_PID
expect "a second server on the same data folder refuses to start, naming the first" 2 \
    "the data folder $DATA/ is in use by kgrade serve, process $first; stop it first" -- \
    timeout 20 "$KGRADE" serve --port $((PORT + 1)) --data "$DATA" --exercises "$EXERCISES"
expect "... and on the same database from another data folder" 2 \
    "the database $DATA/kgrade.db is in use by kgrade serve, process $first \\(the same file, whatever path or link leads to it\\); stop it first" -- \
    timeout 20 "$KGRADE" serve --port $((PORT + 1)) --data "$TMP/elsewhere" --db "$DATA/kgrade.db" \
    --exercises "$EXERCISES"
ln "$DATA/kgrade.db" "$TMP/hard-link.db"
ln -s "$DATA/kgrade.db" "$TMP/symlink.db"
for db in "$TMP/hard-link.db" "$TMP/symlink.db"; do
    expect "... and on a $(basename "$db" .db) of the database: the lock is the file's" 2 \
        "the database $db is in use by kgrade serve, process $first \\(the same file" -- \
        timeout 20 "$KGRADE" serve --port $((PORT + 1)) --data "$TMP/elsewhere" --db "$db" \
        --exercises "$EXERCISES"
done
if unshare -rm true 2>/dev/null; then # a bind mount, in mount (and user) namespaces of its own
    touch "$TMP/bound.db"
    expect "... and on the database file bind-mounted elsewhere" 2 \
        "the database $TMP/bound.db is in use by kgrade serve, process $first \\(the same file" -- \
        timeout 20 unshare -rm bash -c "mount --bind '$DATA/kgrade.db' '$TMP/bound.db' && exec '$KGRADE' \
            serve --port $((PORT + 1)) --data '$TMP/elsewhere' --db '$TMP/bound.db' --exercises '$EXERCISES'"
else
    echo "skip a bind mount of the database: this machine gives no user and mount namespaces"
fi
expect "the first server still answers" 0 '"status":"ok"' -- curl -s "$BASE/api/v1/health"
kill_server
start_server "$EXERCISES"
expect "after a kill -9 a new server starts: the lock died with its holder" 0 \
    "^$SERVER_PID$" -- bash -c "curl -sf $BASE/api/v1/health >/dev/null && head -1 $DATA/serve.lock"

# ---- a grading whose worker process dies: graded again once
SAM=$(student_token sam)
once=$(submit "$SAM" "$KERNELS/slow.cu")
killed=$(worker_pid) && kill -KILL "$killed"
expect "a job whose worker was killed once gets its real verdict" 0 "^too_slow$" -- \
    wait_done "$SAM" "$once"
expect "... graded again, one result" 0 "^1$" -- field "$SAM" "$once" '.results | length'
expect "... and the log says why" 0 "job $once tiny-add: the grading worker failed: killed by signal 9.*graded again" -- \
    cat "$TMP/server.log"
twice=$(submit "$SAM" "$KERNELS/slow.cu")
killed=$(worker_pid) && kill -KILL "$killed"
killed=$(worker_pid "$killed") && kill -KILL "$killed"
expect "a job whose worker was killed twice is internal_error" 0 "^internal_error$" -- \
    wait_done "$SAM" "$twice"
expect "... with the reason" 0 "^the grading worker failed: killed by signal 9.*it died twice" -- \
    field "$SAM" "$twice" .result.message

# ---- a grading the server's death interrupts twice: internal_error
crash=$(submit "$SAM" "$KERNELS/slow.cu")
wait_running "$SAM" "$crash"
kill_server
start_server "$EXERCISES"
expect "a job running when the server died is graded again" 0 "" -- wait_running "$SAM" "$crash"
kill_server
start_server "$EXERCISES"
expect "the second time it is internal_error" 0 "^internal_error$" -- wait_done "$SAM" "$crash"
expect "... saying the grading was interrupted twice" 0 "^the grading was interrupted twice" -- \
    field "$SAM" "$crash" .result.message
expect "... stored once" 0 "^1$" -- field "$SAM" "$crash" '.results | length'
after=$(submit "$SAM" "$KERNELS/good.cu")
expect "the queue goes on" 0 "^passed$" -- wait_done "$SAM" "$after"
kill_server
finish
