#!/usr/bin/env bash
# make-run.sh: what `make run` does after building. With a GPU: tune spaces/elementwise.yaml on
# it into tunekit.db and show the winners. Without one: say so, and replay the committed
# measurements (db/results/*.sql) through the same run loop so every step still runs for real.
set -u
cd "$(dirname "$0")/.."
T=build/tuner
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    echo "make run: GPU found: $(nvidia-smi -L | head -n 1)"
    echo "make run: tuning spaces/elementwise.yaml into tunekit.db (resumes if interrupted)"
    $T run spaces/elementwise.yaml --db tunekit.db || exit $?
    $T best --db tunekit.db
    echo
    echo "make run: to publish these results for this GPU model:"
    echo "  build/tuner db export --db tunekit.db -o db/results/<gpu-model>.sql && build/tuner header"
    exit 0
fi
echo "make run: no NVIDIA GPU found (nvidia-smi is missing or lists none), so nothing can be measured here."
dumps=$(ls db/results/*.sql 2>/dev/null)
if [ -z "$dumps" ]; then
    echo "make run: db/results/ holds no recorded measurements to replay either; the build is done."
    exit 0
fi
for d in $dumps; do
    # a dump may hold several cards of the model: replay the one that recorded elementwise
    rm -f build/replay-src.db build/replay-src.db-wal build/replay-src.db-shm
    $T db import "$d" --db build/replay-src.db -q || exit $?
    uuid=$(python3 -c 'import sqlite3,sys
r=sqlite3.connect(sys.argv[1]).execute("select d.uuid from devices d join evaluations e on e.device_id=d.id join problems p on p.id=e.problem_id where p.op like \"elementwise.%\" group by d.uuid order by count(*) desc limit 1").fetchone()
print(r[0] if r else "")' build/replay-src.db)
    [ -n "$uuid" ] || { echo "make run: $d holds no elementwise measurements"; continue; }
    echo "make run: replaying the measurements recorded in $d ($uuid) through the tuner:"
    rm -f build/replay.db build/replay.db-wal build/replay.db-shm
    $T run spaces/elementwise.yaml --backend "replay:$d#$uuid" --db build/replay.db -q || exit $?
    $T best --db build/replay.db --op elementwise.mul
done
echo
echo "make run: that is what the committed header (kernels/tuned_configs.h) was generated from;"
echo "          on a machine with a GPU, 'make run' tunes that GPU instead."
