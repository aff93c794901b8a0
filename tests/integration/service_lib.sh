# Shared by the integration tests that drive a real `kgrade serve`: start it
# on a loopback port with a temporary data folder, call the API with curl,
# submit and wait for verdicts. Source it after lib.sh.
#
#   start_server EXERCISES [ARGS...]   starts the server (its pid in SERVER_PID)
#   api METHOD PATH [curl args...]     prints the body; the status in $TMP/status
#   status                             the status of the last api call
#   login NAME PASSWORD JAR [curl args...]   logs in, cookies in JAR; prints the CSRF token
#   submit_kernel TOKEN EXERCISE FILE [curl args...]   prints the new submission's id
#   wait_done TOKEN ID                 waits until it is done; prints its verdict
#   student_token NAME                 adds a student with a password of their
#                                      own; prints an API token for them
#   wait_running TOKEN ID              waits until the submission is being graded
#   worker_pid [NOT]                   the pid of this server's `kgrade worker`
#   new_account JAR CSRF NAME ROLE PASSWORD   an account made through the API by
#                                      the session JAR, whose owner then replaces
#                                      its first password with PASSWORD
#   own_password NAME FIRST PASSWORD   the owner replaces the first password
#   answered                           "STATUS BODY" of the last api call
#   as JAR CSRF METHOD PATH [BODY]     a session's request with a JSON body
#   host_form_cell NAME TOKEN FILE     a %%kgrade cell holding FILE (a module in
#                                      hidden-layer's host form) passes, where
#                                      IPython is installed (notebook_host_form.py)

# A port below Linux's ephemeral range (32768 on), where outgoing
# connections take theirs; start_server takes another if it is in use.
PORT=$((20000 + RANDOM % 12000))
BASE="http://127.0.0.1:$PORT"
DATA="$TMP/data"
SERVER_PID=
trap 'kill -9 $SERVER_PID 2>/dev/null; rm -rf "$TMP"' EXIT

start_server() {
    local exercises=$1 attempt
    shift
    for attempt in 1 2 3 4 5; do
        "$KGRADE" serve --port "$PORT" --data "$DATA" --exercises "$exercises" --workers 1 "$@" \
            >>"$TMP/server.out" 2>>"$TMP/server.log" &
        SERVER_PID=$!
        for _ in $(seq 100); do
            curl -sf "$BASE/api/v1/health" >/dev/null && return 0
            kill -0 "$SERVER_PID" 2>/dev/null || break
            sleep 0.1
        done
        # the port was taken by someone else: another one
        wait "$SERVER_PID" 2>/dev/null
        tail -1 "$TMP/server.log" | grep -q "cannot listen on" || break
        PORT=$((20000 + RANDOM % 12000))
        BASE="http://127.0.0.1:$PORT"
    done
    echo "the server did not start:"
    tail -20 "$TMP/server.log"
    return 1
}

api() {
    local method=$1 path=$2
    shift 2
    curl -s -o "$TMP/body" -w '%{http_code}' -X "$method" "$@" "$BASE$path" >"$TMP/status"
    cat "$TMP/body"
}

status() { cat "$TMP/status"; }

login() {
    api POST /api/v1/login -c "$3" "${@:4}" -H 'Content-Type: application/json' \
        --data-binary "{\"name\": \"$1\", \"password\": \"$2\"}" | jq -r .csrf_token
}

submit_kernel() {
    local token=$1 exercise=$2 file=$3
    shift 3
    api POST /api/v1/submissions -H "Authorization: Bearer $token" \
        -H 'Content-Type: application/json' "$@" \
        --data-binary "{\"exercise\": \"$exercise\", \"source\": $(jq -Rs . <"$file")}" | jq -r .id
}

wait_done() {
    for _ in $(seq 600); do
        local s
        s=$(api GET "/api/v1/submissions/$2" -H "Authorization: Bearer $1")
        [[ $(jq -r .status <<<"$s") == done ]] && {
            jq -r .verdict <<<"$s"
            return 0
        }
        sleep 0.1
    done
    echo "not done"
}

student_token() {
    echo "$1-own-password" | "$KGRADE" --db "$DATA/kgrade.db" user add "$1" --role student \
        --password-stdin >/dev/null &&
        "$KGRADE" --db "$DATA/kgrade.db" token create "$1"
}

# wait_running TOKEN ID: waits until the submission is being graded
wait_running() {
    for _ in $(seq 300); do
        [[ $(api GET "/api/v1/submissions/$2" -H "Authorization: Bearer $1" | jq -r .status) == running ]] &&
            return 0
        sleep 0.05
    done
    return 1
}

# worker_pid [NOT]: the pid of this test's server's `kgrade worker` (a
# child of the server, found by its parent: never another test's), other
# than NOT
worker_pid() {
    for _ in $(seq 400); do
        local p
        p=$(pgrep -P "$SERVER_PID" -f 'kgrade[^ ]* worker$' | grep -vx "${1:-0}" | head -1)
        [[ -n $p ]] && { echo "$p"; return 0; }
        sleep 0.025
    done
    return 1
}

# "STATUS BODY" of the last call, for one pattern to check both
answered() { echo "$(cat "$TMP/status") $(cat "$TMP/body")"; }

# as JAR CSRF METHOD PATH [BODY]: a session's request with a JSON body
as() {
    api "$3" "$4" -b "$1" -H "X-CSRF-Token: $2" -H 'Content-Type: application/json' \
        --data-binary "${5:-{\}}"
}

new_account() {
    as "$1" "$2" POST /api/v1/users \
        "{\"name\": \"$3\", \"role\": \"$4\", \"password\": \"$5-first\"}" >/dev/null
    own_password "$3" "$5-first" "$5"
}

own_password() {
    local csrf
    csrf=$(login "$1" "$2" "$TMP/$1-first.jar")
    as "$TMP/$1-first.jar" "$csrf" POST /api/v1/me/password \
        "{\"current_password\": \"$2\", \"new_password\": \"$3\"}" >/dev/null
}

host_form_cell() {
    if ! python3 -c 'import IPython' 2>/dev/null; then
        echo "skipped: no IPython (apt-get install python3-ipython): $1"
        return 0
    fi
    expect "$1" 0 "" -- env PYTHONPATH="$PWD/clients/python" PYTHONDONTWRITEBYTECODE=1 \
        python3 tests/integration/notebook_host_form.py "$BASE" "$2" "$3"
}
