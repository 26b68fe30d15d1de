#!/usr/bin/env bash
# time_to_tune.sh: the measurements behind docs/time-to-tune.md, on a GPU, for the whole suite
# (spaces/*.yaml) or the spaces given. Each step is timed (wall seconds per space and in all) and
# leaves its database and log in OUTDIR:
#   default     `tuner run` as a new GPU runs it: the default strategy, starting from the
#               results in --transfer-from (the other GPU's dump)         -> default.db
#   exhaustive  `tuner run --strategy exhaustive` (racing and playoffs on) -> exhaustive.db
#   plain       `tuner run --strategy exhaustive --race 0` (no racing, no playoffs)
#                                                                          -> plain.db
#   retime      `tuner retime` default against exhaustive (and plain against exhaustive when
#               plain.db exists): the regret of each problem's choice, side by side
#   repeat      a second default run (default2.db), re-timed side by side against the first
# usage: scripts/time_to_tune.sh OUTDIR --transfer-from DUMP [--steps default,exhaustive,...]
#        [SPACE...]
# Default steps: default,exhaustive,retime. Prints one line per step and space, and a summary.
# EXHAUSTIVE=FILE makes retime use that database or dump instead of OUTDIR/exhaustive.db.
set -u
cd "$(dirname "$0")/.."
TUNER=${TUNER:-build/tuner}
out=${1:?usage: scripts/time_to_tune.sh OUTDIR --transfer-from DUMP [--steps S,...] [SPACE...]}
shift
from=""
steps=default,exhaustive,retime
spaces=()
while [ $# -gt 0 ]; do
    case $1 in
        --transfer-from) from=$2; shift 2 ;;
        --steps) steps=$2; shift 2 ;;
        -*) echo "time_to_tune.sh: unknown option $1" >&2; exit 2 ;;
        *) spaces+=("$1"); shift ;;
    esac
done
[ ${#spaces[@]} -gt 0 ] || spaces=(spaces/*.yaml)
case ",$steps," in *,default,*|*,repeat,*) [ -n "$from" ] || { echo "time_to_tune.sh: --transfer-from DUMP is needed for the default run" >&2; exit 2; } ;; esac
mkdir -p "$out"

now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.1f}')"; }

# run_all NAME DB ARGS...: tunes every space into DB, timing each and the whole
run_all() {
    local name=$1 db=$2; shift 2
    local t0 t1 s0 s1
    t0=$(now)
    for sp in "${spaces[@]}"; do
        s0=$(now)
        "$TUNER" run "$sp" --db "$db" "$@" >> "$out/$name.log" 2>&1
        local rc=$?
        s1=$(now)
        printf '%-10s %-28s %6s s  exit %d  %s\n' "$name" "$sp" "$(secs "$s0" "$s1")" "$rc" \
            "$(grep -E '^tuner: [0-9]+ evaluated' "$out/$name.log" | tail -n 1 | cut -c1-120)"
    done
    t1=$(now)
    printf '%-10s %-28s %6s s\n' "$name" "all spaces" "$(secs "$t0" "$t1")"
}

# retime_all NAME A B: each space's winners of A against B's, side by side
retime_all() {
    local name=$1 a=$2 b=$3 t0 t1
    t0=$(now)
    for sp in "${spaces[@]}"; do
        "$TUNER" retime "$sp" --db "$a" --against "$b" --format csv >> "$out/$name.csv" 2>> "$out/$name.log"
        printf '%-10s %-28s %s\n' "$name" "$sp" "$(tail -n 1 "$out/$name.log")"
    done
    t1=$(now)
    python3 scripts/regret_summary.py "$out/$name.csv" "$(printf '%-10s all spaces' "$name")" "$(secs "$t0" "$t1")"
}

IFS=, read -r -a step_list <<< "$steps"
for step in "${step_list[@]}"; do
    case $step in
        default) run_all default "$out/default.db" --transfer-from "$from" ;;
        exhaustive) run_all exhaustive "$out/exhaustive.db" --strategy exhaustive ;;
        plain) run_all plain "$out/plain.db" --strategy exhaustive --race 0 ;;
        retime)
            retime_all retime "$out/default.db" "${EXHAUSTIVE:-$out/exhaustive.db}"
            if [ -e "$out/plain.db" ]; then
                retime_all retime_plain "${EXHAUSTIVE:-$out/exhaustive.db}" "$out/plain.db"
            fi ;;
        repeat)
            run_all default2 "$out/default2.db" --transfer-from "$from"
            retime_all repeat "$out/default2.db" "$out/default.db" ;;
        *) echo "time_to_tune.sh: unknown step $step" >&2; exit 2 ;;
    esac
done
