#!/usr/bin/env bash
# gpu_session.sh: one call's worth of work on a GPU machine, with the build carried over
# (make STATIC=1 here, then run this there): the GPU tests, the tuning run of the given spaces
# into one database, PyTorch timed on the same problems in the same job (scripts/peers.py), and
# the database dumped for db/results/. Everything it produces goes under $OUT (default build/out):
#   gpu-test.log, tune.log, peers.log, best.txt, <gpu-model>.sql.xz
# --strategy NAME is passed to every `tuner run`: without it the run is the default, which on a
# GPU whose model has no dump yet is the transfer search from the dumps in db/results/; the
# committed dumps are `--strategy exhaustive` (docs/adding-a-gpu.md).
# usage: scripts/gpu_session.sh [--no-gpu-test] [--no-peers] [--strategy NAME] SPACE...
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-build/out}
mkdir -p "$OUT"
T=${TUNER:-build/tuner}
DB=${DB:-build/gpu.db}
gpu_test=1 peers=1 run_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --no-gpu-test) gpu_test=0 ;;
        --no-peers) peers=0 ;;
        --strategy)
            [ $# -ge 2 ] || { echo "gpu_session: --strategy needs a name" >&2; exit 2; }
            run_args+=(--strategy "$2"); shift ;;
        -*) echo "gpu_session: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
    shift
done
[ $# -gt 0 ] || set -- spaces/elementwise.yaml
nvidia-smi -L || { echo "gpu_session: no GPU"; exit 1; }
if [ $gpu_test = 1 ]; then
    echo "== gpu tests"; bash tests/gpu/run.sh 2>&1 | tee "$OUT/gpu-test.log"
    grep -hE '^(device|host time|n > 2)' build/gpu-test-logs/*.log | tee -a "$OUT/gpu-test.log"
fi
for sp in "$@"; do
    echo "== tuner run $sp"
    start=$(date +%s)
    $T run "$sp" "${run_args[@]}" --db "$DB" 2>&1 | tee -a "$OUT/tune.log"
    echo "wall: $(( $(date +%s) - start )) s for $sp" | tee -a "$OUT/tune.log"
done
if [ $peers = 1 ]; then
    echo "== scripts/peers.py"; PYTHONUNBUFFERED=1 python3 scripts/peers.py --db "$DB" 2>&1 | tee "$OUT/peers.log"
fi
$T best --db "$DB" --compare > "$OUT/best.txt"
model=$(python3 -c 'import sqlite3,sys,re; n=sqlite3.connect(sys.argv[1]).execute("select name from devices order by id limit 1").fetchone()[0]; print(re.sub(r"[^a-z0-9]+","-",n.lower()).strip("-"))' "$DB")
$T db export --db "$DB" -o "$OUT/$model.sql.xz"
$T db check --db "$DB"
ls -la "$OUT"
