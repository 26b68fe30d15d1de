#!/usr/bin/env bash
# build_time.sh: what `make run` costs a newcomer from a fresh tree, serial against parallel: the
# build alone with `make -j1 all` (how make ran before it went parallel by default) and with
# `make all` (one job per core, the default), each from an empty build/, then `make run` on the
# built tree (the tuning, or the replay without a GPU). Before = serial build + run, after =
# parallel build + run. Deletes build/ first. Extra arguments go to every make (STATIC=1
# DEPS=DIR on a machine without the -dev packages, scripts/deps_kit.sh).
#
# usage: scripts/build_time.sh [MAKE ARGS...]     prints a line per step and a summary; the makes'
#        output goes to LOG (default a temporary file, named when a step fails); STEPS (default
#        serial,parallel,run) takes some of the steps, for a machine lent in short calls
set -u
cd "$(dirname "$0")/.."
now() { date +%s.%N; }
step() {   # step NAME COMMAND...: runs it, its output added to $LOG; prints the seconds
    local name=$1 t0 t1 rc; shift
    t0=$(now)
    "$@" >>"$LOG" 2>&1; rc=$?
    t1=$(now)
    python3 -c "print(f'{$t1 - $t0:.1f}')"
    [ $rc -eq 0 ] || { echo "build_time.sh: $name failed (exit $rc); see $LOG" >&2; exit 1; }
}
LOG=${LOG:-$(mktemp)}
: > "$LOG"
cores=$(nproc)
steps=",${STEPS:-serial,parallel,run},"
serial="" parallel="" run=""
if [[ $steps == *,serial,* ]]; then
    rm -rf build
    serial=$(step "make -j1 all" env -u MAKEFLAGS make -j1 "$@" all) || exit 1
    echo "make -j1 all, from nothing: $serial s"
fi
if [[ $steps == *,parallel,* ]]; then
    rm -rf build
    parallel=$(step "make all" env -u MAKEFLAGS make "$@" all) || exit 1
    echo "make all (-j$cores, the default), from nothing: $parallel s"
fi
if [[ $steps == *,run,* ]]; then
    run=$(step "make run" env -u MAKEFLAGS make "$@" run) || exit 1
    echo "make run on the built tree: $run s"
fi
[ -n "$serial" ] && [ -n "$parallel" ] && [ -n "$run" ] || exit 0
python3 -c "
s, p, r = $serial, $parallel, $run
print(f'make run from a fresh tree on {$cores} cores: before (serial build) {s + r:.1f} s, after (parallel build) {p + r:.1f} s; the build alone {s:.1f} -> {p:.1f} s ({s / p:.2f}x)')"
