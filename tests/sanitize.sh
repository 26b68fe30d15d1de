#!/usr/bin/env bash
# sanitize.sh BUILD: what `make SANITIZE=1 test-sanitize` runs: the CPU test suite (tests/run.sh)
# against the sanitized build in BUILD (default build-san: the tuner and the unit tests compiled
# with -fsanitize=address,undefined), every process of it under the options below, so that a
# leak, an overflow or undefined behaviour anywhere fails the run. Sanitizer reports go to files
# (log_path) rather than to stderr, because many tests swallow stderr or expect an exit status
# that a report's own status could fake: any report file left at the end is a failure, printed
# here, and counts as one failed check in the final "N passed, N failed" line.
#
# Left out (SKIP): the parts that run no code of the sanitized build: cli/install (make install
# of build/), cli/deps_kit (packs the system's libraries), cli/library (links build/libtunekit.a
# into an example), cli/links, cli/readme_table and cli/report_browser (documents and Python),
# cli/make_run (the README's example against build/tuner; cli/replay runs the same replay loop
# sanitized), and fuzz (the fuzz targets are sanitized builds of their own, run by `make
# test`). SAN_SKIP adds to that list (CI uses it, .ci/run says which and why).
set -u
cd "$(dirname "$0")/.."
BUILD=${1:-build-san}
logs=$BUILD/san-logs
rm -rf "$logs" && mkdir -p "$logs" || exit 1
logs_abs=$(cd "$logs" && pwd)
# exitcode 86: a report's status is one no test expects; protect_shadow_gap=0: a worker that
# starts CUDA (it then fails cleanly on a machine without a GPU) needs the gap mapped.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:exitcode=86:protect_shadow_gap=0:detect_stack_use_after_return=1:strict_string_checks=1:log_path=$logs_abs/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86:log_path=$logs_abs/ubsan"
export LSAN_OPTIONS="exitcode=86:log_path=$logs_abs/lsan"
skip="cli/install cli/deps_kit cli/library cli/links cli/make_run cli/readme_table cli/report_browser fuzz ${SAN_SKIP:-}"
out=$(BUILD=$BUILD SKIP="$skip" bash tests/run.sh 2>&1)
printf '%s\n' "$out" | grep -vE '^[0-9]+ passed, [0-9]+ failed'
line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
p=${line%% passed*}; f=${line#*, }; f=${f%% failed*}
[ -n "$line" ] || { p=0; f=1; echo "tests/run.sh printed no summary line"; }
reports=$(find "$logs" -type f | sort)
if [ -n "$reports" ]; then
    f=$((f + 1))
    printf '%-34s FAIL (%d report file(s) in %s)\n' "sanitizer reports" "$(printf '%s\n' "$reports" | wc -l)" "$logs"
    for r in $reports; do echo "== $r"; head -n 40 "$r" | sed 's/^/    /'; done
else
    p=$((p + 1))
    printf '%-34s ok (none)\n' "sanitizer reports"
fi
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
