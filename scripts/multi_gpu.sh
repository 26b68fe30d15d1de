#!/usr/bin/env bash
# multi_gpu.sh: the measurements behind docs/scaling.md's "Measured on several GPUs", on one host
# with N >= 2 GPUs of one model, for the whole suite (spaces/*.yaml) or the spaces given. Every
# run is exhaustive (racing and playoffs on), so that the runs tune the same configs:
#   one     each space on one GPU (--backend cuda:0)                                  -> one.db
#   all     each space with --devices all; per device its evaluations and seconds in its
#           backend, i.e. the share of the wall time each GPU spent measuring         -> all.db
#   model   scripts/scaling_model.py over one.db: what the model predicts for 1..N GPUs
#   shards  N shards side by side, shard K on GPU K-1 (--shard K/N --backend cuda:K-1), each
#           exported, then `tuner db merge`; the winners and headers of the merged shards and of
#           all.db compared, and the differing winners re-timed side by side (tuner retime)
#   kill    KILL_SPACE (default spaces/relu_mask.yaml) again with --devices all, and SIGKILL
#           sent to one GPU's worker after KILL_AFTER seconds (default 3), to the next GPU's
#           after as many again, and so on: the run must finish with as many rows as all.db
#           holds for that space, no evaluation twice and no fault
# usage: scripts/multi_gpu.sh OUTDIR [--steps one,all,model,shards,kill] [SPACE...]
# Prints a line per step and space and each step's summary; databases and logs stay in OUTDIR.
set -u
cd "$(dirname "$0")/.."
TUNER=${TUNER:-build/tuner}
out=${1:?usage: scripts/multi_gpu.sh OUTDIR [--steps S,...] [SPACE...]}
shift
steps=one,all,model,shards,kill
spaces=()
while [ $# -gt 0 ]; do
    case $1 in
        --steps) steps=$2; shift 2 ;;
        -*) echo "multi_gpu.sh: unknown option $1" >&2; exit 2 ;;
        *) spaces+=("$1"); shift ;;
    esac
done
[ ${#spaces[@]} -gt 0 ] || spaces=(spaces/*.yaml)
n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$n" -ge 2 ] || { echo "multi_gpu.sh: needs at least 2 GPUs; nvidia-smi lists $n" >&2; exit 2; }
mkdir -p "$out" || exit 2
tuner_abs=$(realpath "$(command -v "$TUNER")")
echo "multi_gpu.sh: $n GPUs: $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs)"

now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.1f}')"; }

# run_all NAME DB ARGS...: tunes every space into DB (exhaustive), timing each and the whole
run_all() {
    local name=$1 db=$2; shift 2
    local t0 s0 rc
    t0=$(now)
    for sp in "${spaces[@]}"; do
        s0=$(now)
        "$TUNER" run "$sp" --db "$db" --strategy exhaustive "$@" >> "$out/$name.log" 2>&1
        rc=$?
        printf '%-7s %-26s %6s s  exit %d\n' "$name" "$sp" "$(secs "$s0" "$(now)")" "$rc"
        grep -E '^tuner: device [0-9]+ ' "$out/$name.log" | tail -n "$n" | sed 's/^/          /'
    done
    printf '%-7s %-26s %6s s\n' "$name" "all spaces" "$(secs "$t0" "$(now)")"
}

IFS=, read -r -a step_list <<< "$steps"
for step in "${step_list[@]}"; do
    case $step in
    one) run_all one "$out/one.db" --backend cuda:0 ;;
    all)
        run_all all "$out/all.db" --devices all
        # each device's busy seconds summed over the spaces, against the step's wall time
        python3 - "$out/all.log" <<'PY'
import re, sys
busy = {}
for line in open(sys.argv[1]):
    m = re.match(r"tuner: device (\d+) \(([^)]*)\): (\d+) evaluated, ([0-9.]+) s in its backend", line)
    if m:
        b = busy.setdefault(m[1], [m[2], 0, 0.0]); b[1] += int(m[3]); b[2] += float(m[4])
for d, (spec, ev, s) in sorted(busy.items()):
    print(f"all     device {d} ({spec}): {ev} evaluated, {s:.1f} s in its backend over the suite")
PY
        ;;
    model)
        "$TUNER" db export --db "$out/one.db" -o "$out/one.sql.xz" >/dev/null &&
            python3 scripts/scaling_model.py "$out/one.sql.xz" --devices "1,$n" | sed 's/^/model   /' ;;
    shards)
        t0=$(now)
        for k in $(seq 1 "$n"); do
            (
                for sp in "${spaces[@]}"; do
                    "$TUNER" run "$sp" --db "$out/shard$k.db" --strategy exhaustive \
                        --shard "$k/$n" --backend "cuda:$((k - 1))" >> "$out/shard$k.log" 2>&1 ||
                        echo "shards  shard $k/$n: $sp exit $?"
                done
                "$TUNER" db export --db "$out/shard$k.db" -o "$out/shard$k.sql.xz" >> "$out/shard$k.log" 2>&1
            ) &
        done
        wait
        printf '%-7s %d shards side by side, each exported: %s s\n' shards "$n" "$(secs "$t0" "$(now)")"
        rm -f "$out/merged.db"*
        "$TUNER" db merge "$out"/shard*.sql.xz --db "$out/merged.db" 2>&1 | sed 's/^/shards  /'
        "$TUNER" db check --db "$out/merged.db" 2>&1 | tail -n 1 | sed 's/^/shards  merged: /'
        # each header from a dump of the same name in a folder of its own, so that the one line
        # naming the inputs is the same too
        for w in all merged; do
            mkdir -p "$out/$w" && "$TUNER" db export --db "$out/$w.db" -o "$out/$w/results.sql.xz" >/dev/null &&
                (cd "$out/$w" && "$tuner_abs" header -o ../$w.h results.sql.xz >/dev/null)
        done
        python3 scripts/compare_winners.py "$out/all.db" "$out/merged.db" "$out/all.h" "$out/merged.h" |
            sed 's/^/shards  /'
        for sp in "${spaces[@]}"; do
            "$TUNER" retime "$sp" --db "$out/merged.db" --against "$out/all.db" --format csv \
                >> "$out/retime.csv" 2>> "$out/retime.log"
        done
        python3 scripts/regret_summary.py "$out/retime.csv" "shards vs all, re-timed side by side" |
            sed 's/^/shards  /' ;;
    kill)
        ks=${KILL_SPACE:-spaces/relu_mask.yaml}
        rm -f "$out/kill.db"*
        t0=$(now)
        "$TUNER" run "$ks" --db "$out/kill.db" --strategy exhaustive --devices all > "$out/kill.log" 2>&1 &
        pid=$!
        for d in $(seq 0 $((n - 1))); do
            sleep "${KILL_AFTER:-3}"
            if pkill -KILL -f "^tuner __worker $d\$"; then echo "kill    SIGKILL to GPU $d's worker at $(secs "$t0" "$(now)") s"
            else echo "kill    no worker of GPU $d to kill at $(secs "$t0" "$(now)") s"; fi
        done
        wait "$pid"
        echo "kill    $ks with --devices all: exit $?, $(secs "$t0" "$(now)") s"
        grep -E 'not by its own doing' "$out/kill.log" | sed 's/^/kill    /'
        python3 scripts/compare_winners.py --rows "$out/all.db" "$out/kill.db" | sed 's/^/kill    /' ;;
    *) echo "multi_gpu.sh: unknown step $step" >&2; exit 2 ;;
    esac
done
