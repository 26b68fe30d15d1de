# lib.sh: shared helpers of the command-line tests (sourced). Each test script counts checks
# with `check` / `check_fails` and ends with `finish`, which prints "N passed, N failed".
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
TUNER=${TUNER:-build/tuner}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
passed=0
failed=0

# check DESCRIPTION COMMAND...: passes when the command exits 0.
check() {
    local what=$1; shift
    if "$@" >"$T/.out" 2>&1; then passed=$((passed + 1))
    else failed=$((failed + 1)); echo "FAIL: $what"; sed 's/^/    /' "$T/.out" | tail -n 15; fi
}
# check_fails DESCRIPTION STATUS COMMAND...: passes when the command exits with STATUS.
check_fails() {
    local what=$1 want=$2; shift 2
    "$@" >"$T/.out" 2>&1; local rc=$?
    if [ "$rc" -eq "$want" ]; then passed=$((passed + 1))
    else failed=$((failed + 1)); echo "FAIL: $what (exit $rc, wanted $want)"; sed 's/^/    /' "$T/.out" | tail -n 15; fi
}
# same DESCRIPTION A B: passes when the strings are equal.
same() {
    if [ "$2" == "$3" ]; then passed=$((passed + 1))
    else failed=$((failed + 1)); echo "FAIL: $1"; echo "    got:  $2" | head -c 2000; echo; echo "    want: $3" | head -c 2000; echo; fi
}
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
# sql DB QUERY: one query through python3's sqlite3 (the sqlite3 CLI is not everywhere).
sql() {
    python3 -c 'import sqlite3,sys
c=sqlite3.connect(sys.argv[1])
for r in c.execute(sys.argv[2]): print("|".join("" if v is None else str(v) for v in r))' "$1" "$2"
}
