#!/usr/bin/env bash
# sanitize_gpu.sh: runs every GPU test (the binaries of `make gpu-test`, build/tests/gpu/*_test,
# built elsewhere and carried here: this needs neither a compiler nor a -dev package) under each
# of compute-sanitizer's four tools, memcheck (out-of-bounds and misaligned accesses, leaks of
# device memory), racecheck (shared-memory hazards), initcheck (reads of device memory never
# written) and synccheck (illegal barriers), in the tests' small mode (TK_GPU_TEST_SMALL=1,
# tests/gpu/gpu_check.h: the config sweeps sampled one config in TK_GPU_TEST_SAMPLE, inputs up
# to 2^17 + 3 elements with every tail and offset, no timing or beyond-2^31 part), each run
# under a time limit. Writes one log per tool and test and summary.txt, one screen: per test and
# tool the sanitizer's error count (or "timeout" / "crash") and the run's seconds, and whether
# the test's own checks passed, into build/sanitize-gpu/, then into $OUT (default that folder)
# only summary.txt and sanitize-gpu.tar.xz (the summary and every log). Exit status 1 when any
# error, timeout or failed check was found.
#
# usage: scripts/sanitize_gpu.sh [LIMIT_PER_RUN_S (default 15: 4 tools x 9 tests fit in 600 s)] [TOOLS (default "memcheck
#        racecheck initcheck synccheck")]; BIN_DIR (default build/tests/gpu) names the binaries;
#        TESTS (names without _test) picks tests; TK_GPU_TEST_SAMPLE (default 8) and
#        TK_GPU_TEST_MAX_N (default 2^17 + 3) narrow the sweeps for the slow tools;
#        JOBS (default 1) runs that many at once on the one GPU (the slow tools need minutes per
#        test: JOBS=12 with a limit of 150 s fits the four tools in ten minutes); GPUS (e.g.
#        "0 1 2", default the one CUDA picks) deals the runs to those GPUs in turn.
set -u
cd "$(dirname "$0")/.."
limit=${1:-15}
tools=${2:-memcheck racecheck initcheck synccheck}
work=build/sanitize-gpu
OUT=${OUT:-$work}
BIN_DIR=${BIN_DIR:-build/tests/gpu}
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
[ -n "$CS" ] && [ -x "$CS" ] || { echo "sanitize_gpu.sh: compute-sanitizer not found" >&2; exit 2; }
tests=()
for t in "$BIN_DIR"/*_test; do
    [ -x "$t" ] || continue
    # TESTS (names without _test, e.g. "reduce conv1d") picks some; default all
    [ -z "${TESTS:-}" ] || [[ " $TESTS " == *" $(basename "$t" _test) "* ]] || continue
    tests+=("$t")
done
[ ${#tests[@]} -gt 0 ] || { echo "sanitize_gpu.sh: no test binaries in $BIN_DIR (make gpu-test builds them)" >&2; exit 2; }
rm -rf "$work" && mkdir -p "$work/logs" "$OUT" || exit 2
export TK_GPU_TEST_SMALL=1
export TK_GPU_TEST_SAMPLE=${TK_GPU_TEST_SAMPLE:-8}

# tool-specific options: memcheck also reports device memory never freed; racecheck reports
# hazards as errors
opts() {
    case $1 in
    memcheck) echo "--leak-check full" ;;
    racecheck) echo "--racecheck-report all" ;;
    *) echo "" ;;
    esac
}

summary=$work/summary.txt
{
    echo "compute-sanitizer on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)," \
         "$("$CS" --version 2>/dev/null | grep -oE 'Version [0-9.]+' | head -n 1); small mode, 1 config in" \
         "$TK_GPU_TEST_SAMPLE${TK_GPU_TEST_MAX_N:+, inputs up to $TK_GPU_TEST_MAX_N elements}, ${limit}s limit per run"
    printf '%-20s' test
    for tool in $tools; do printf ' %-12s' "$tool"; done
    printf '  %s\n' "test checks (memcheck run)"
} > "$summary"
# run_one TOOL TEST: one run under the limit; writes its cell ("errors seconds"), whether it is
# bad (1/0) and the test's own summary line into $work/cells/TOOL.NAME
run_one() {
    local tool=$1 t=$2 gpu=${3:-} name log start rc took n n2 c seen line isbad=0
    name=$(basename "$t")
    log=$work/logs/$tool.$name.log
    start=$SECONDS
    # shellcheck disable=SC2046
    ${gpu:+env CUDA_VISIBLE_DEVICES=$gpu} timeout -k 5 "$limit" "$CS" --tool "$tool" $(opts "$tool") --print-limit 50 \
        --error-exitcode 86 "$t" > "$log" 2>&1
    rc=$?
    took=$((SECONDS - start))
    n=$(grep -oE '(ERROR SUMMARY|RACECHECK SUMMARY): [0-9]+' "$log" | tail -n 1 | grep -oE '[0-9]+$')
    # racecheck's summary counts hazards; its errors are the lines it reports as such
    if [ "$tool" = racecheck ]; then
        n2=$(grep -oE '\(([0-9]+) errors?' "$log" | tail -n 1 | grep -oE '[0-9]+')
        [ -n "$n2" ] && n=$n2
    fi
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        seen=$(grep -cE '^========= (Invalid|Uninitialized|Race|Barrier|Error|Leaked|Program hit)' "$log")
        c="timeout/$seen"; isbad=1
    elif [ -z "$n" ]; then
        c="crash($rc)"; isbad=1
    else
        c=$n; [ "$n" -eq 0 ] || isbad=1
    fi
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    # the test died before its own summary: a crash whatever the tool counted
    if [ -z "$line" ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ]; then c="crash($rc)/$c"; isbad=1; fi
    case $line in *", 0 failed"*) ;; *) [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] || isbad=1 ;; esac
    printf '%s\n%s\n%s\n' "$c ${took}s" "$isbad" "${line:-no summary (exit $rc)}" > "$work/cells/$tool.$name"
    echo "$tool $name${gpu:+ (GPU $gpu)}: $c errors, ${took}s" >&2
}
# JOBS runs at once (default 1): the GPU is shared, each run is a process of its own
mkdir -p "$work/cells"
jobs_max=${JOBS:-1}
start_all=$SECONDS
read -r -a gpus <<< "${GPUS:-}"
k=0
for tool in $tools; do
    for t in "${tests[@]}"; do
        while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
        gpu=
        [ ${#gpus[@]} -eq 0 ] || gpu=${gpus[$((k % ${#gpus[@]}))]}
        run_one "$tool" "$t" "$gpu" &
        k=$((k + 1))
    done
done
wait
echo "all runs: $((SECONDS - start_all))s, $jobs_max at a time" >&2
bad=0
declare -A cell checks
for tool in $tools; do
    for t in "${tests[@]}"; do
        name=$(basename "$t")
        { read -r c; read -r isbad; read -r line; } < "$work/cells/$tool.$name"
        cell[$tool.$name]=$c
        [ "$isbad" = 1 ] && bad=1
        if [ "$tool" = memcheck ] || [ -z "${checks[$name]:-}" ]; then checks[$name]=$line; fi
    done
done
for t in "${tests[@]}"; do
    name=$(basename "$t")
    printf '%-20s' "$name" >> "$summary"
    for tool in $tools; do printf ' %-12s' "${cell[$tool.$name]}" >> "$summary"; done
    printf '  %s\n' "${checks[$name]}" >> "$summary"
done
echo "cells: errors reported by the tool (timeout/N: stopped at the limit after N reports;" \
     "crash(rc): no sanitizer summary, or the test died before its own), and the run's seconds" >> "$summary"
cat "$summary"
tar -C "$work" -cJf "$work/sanitize-gpu.tar.xz" summary.txt logs
[ "$(cd "$OUT" && pwd)" = "$(cd "$work" && pwd)" ] || cp "$summary" "$work/sanitize-gpu.tar.xz" "$OUT/"
exit $bad
