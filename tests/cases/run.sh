#!/usr/bin/env bash
# run.sh: the data-driven space-file cases. Each tests/cases/invalid/<name>/ holds space.yaml and
# `expected`, the exact error line; `tuner space` on it must exit 2, print nothing on stdout,
# print `expected` as the first line of stderr and leave the working tree as it was (no
# tunekit.db, nothing new or changed in `git status`). Each tests/cases/valid/*.yaml must load
# (exit 0) just as cleanly. Each tests/cases/dumps/<name>/ holds dump.sql and `expected`: `tuner
# db import` of it into a new database must exit 1 with `expected` as the first line of stderr
# (the regressions of the dump importer that fuzzing found, tests/fuzz/); or, where the case
# also holds `query` (SQL), must exit 0, and the query on the new database must print exactly
# `expected` (columns joined by '|', NULL as nothing): a dump of an older format that still
# imports. Prints one line per failure, then "N passed, N failed".
# TUNER overrides the binary (default build/tuner); run from anywhere.
set -u
cd "$(dirname "$0")/../.." || exit 1
TUNER=${TUNER:-build/tuner}
passed=0
failed=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

tree_state() { git status --porcelain --untracked-files=all 2>/dev/null; }

# check NAME WANT_RC FILE [EXPECTED_LINE]: runs the tuner on FILE and records the verdict.
check() {
    local name=$1 want=$2 file=$3 expected=${4-} rc first why=""
    local before db_before=0
    before=$(tree_state)
    [ -e tunekit.db ] && db_before=1
    "$TUNER" space "$file" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    first=$(head -n 1 "$tmp/err")
    [ "$rc" -eq "$want" ] || why="exit status $rc, want $want"
    if [ "$want" -eq 2 ]; then
        [ -s "$tmp/out" ] && why="${why:+$why; }stdout is not empty"
        [ "$first" = "$expected" ] || why="${why:+$why; }stderr: '$first', want '$expected'"
    fi
    [ "$db_before" -eq 0 ] && [ -e tunekit.db ] && why="${why:+$why; }created tunekit.db"
    [ "$(tree_state)" = "$before" ] || why="${why:+$why; }changed the working tree"
    if [ -n "$why" ]; then
        echo "FAIL $name: $why"
        failed=$((failed + 1))
    else
        passed=$((passed + 1))
    fi
}

if [ ! -x "$TUNER" ]; then
    echo "FAIL: $TUNER is not built"
    echo "0 passed, 1 failed"
    exit 1
fi

for dir in tests/cases/invalid/*/; do
    name=invalid/$(basename "$dir")
    if [ ! -f "${dir}space.yaml" ] || [ ! -f "${dir}expected" ]; then
        echo "FAIL $name: needs space.yaml and expected"
        failed=$((failed + 1))
        continue
    fi
    check "$name" 2 "${dir}space.yaml" "$(head -n 1 "${dir}expected")"
done
for file in tests/cases/valid/*.yaml; do
    check "valid/$(basename "$file")" 0 "$file"
done
for dir in tests/cases/dumps/*/; do
    name=dumps/$(basename "$dir") why=""
    rm -f "$tmp"/import.db*
    timeout 60 "$TUNER" db import "${dir}dump.sql" --db "$tmp/import.db" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ -f "${dir}query" ]; then
        if [ "$rc" -ne 0 ]; then
            why="exit status $rc, want 0: $(head -n 1 "$tmp/err")"
        else
            got=$(python3 -c 'import sqlite3,sys
c=sqlite3.connect(sys.argv[1])
for r in c.execute(open(sys.argv[2]).read()): print("|".join("" if v is None else str(v) for v in r))' \
                  "$tmp/import.db" "${dir}query" 2>&1)
            [ "$got" = "$(cat "${dir}expected")" ] || why="the query gives '$got', want '$(cat "${dir}expected")'"
        fi
    else
        [ "$rc" -eq 1 ] || why="exit status $rc, want 1"
        first=$(head -n 1 "$tmp/err")
        [ "$first" = "$(head -n 1 "${dir}expected")" ] || why="${why:+$why; }stderr: '$first', want '$(head -n 1 "${dir}expected")'"
    fi
    if [ -n "$why" ]; then echo "FAIL $name: $why"; failed=$((failed + 1)); else passed=$((passed + 1)); fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
