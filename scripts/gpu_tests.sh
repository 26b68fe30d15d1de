#!/usr/bin/env bash
# gpu_tests.sh: runs GPU test binaries from a carried folder (default build/tests/gpu), each with
# a time limit, keeping each one's whole output in $OUT/<name>.log and printing its summary line:
# for a device call that runs tests built elsewhere. usage: scripts/gpu_tests.sh [DIR] [LIMIT_S]
set -u
cd "$(dirname "$0")/.."
dir=${1:-build/tests/gpu}
limit=${2:-150}
OUT=${OUT:-build/out}
mkdir -p "$OUT"
for t in "$dir"/*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    start=$SECONDS
    timeout "$limit" "$t" > "$OUT/$name.log" 2>&1
    rc=$?
    printf '%-22s exit %3d %4ds  %s\n' "$name" "$rc" $((SECONDS - start)) "$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$OUT/$name.log" | tail -n 1)"
done
