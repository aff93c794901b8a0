# Shared by the integration tests: run a command, check its exit code and
# what it printed, count passes and failures. Source it, call `expect`, end
# with `finish`.
#
#   expect NAME CODE PATTERN -- COMMAND...
#     runs COMMAND; passes when it exits with CODE and its stdout+stderr
#     matches the extended regular expression PATTERN ("" matches anything).

KGRADE="${KGRADE:-build/kgrade}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

expect() {
    local name="$1" code="$2" pattern="$3"
    shift 4 # NAME CODE PATTERN --
    local out rc=0
    out=$("$@" 2>&1) || rc=$?
    if [[ $rc -eq $code ]] && { [[ -z "$pattern" ]] || grep -Eq -- "$pattern" <<<"$out"; }; then
        passed=$((passed + 1))
        echo "ok   $name"
    else
        failed=$((failed + 1))
        echo "FAIL $name: exit $rc (wanted $code), output should match /$pattern/:"
        sed 's/^/     | /' <<<"$out" | head -n 30
    fi
}

# Passes when the command's standard output alone is empty (errors belong on stderr).
expect_quiet_stdout() {
    local name="$1"
    shift 2 # NAME --
    local out
    out=$("$@" 2>/dev/null) || true
    if [[ -z "$out" ]]; then
        passed=$((passed + 1))
        echo "ok   $name"
    else
        failed=$((failed + 1))
        echo "FAIL $name: wrote to stdout: $out" | head -n 5
    fi
}

finish() {
    echo "$(basename "$0"): $passed passed, $failed failed"
    [[ $failed -eq 0 ]]
}
