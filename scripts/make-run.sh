#!/usr/bin/env bash
# make-run.sh: what `make run` does after building. With a GPU: tune spaces/elementwise.yaml on
# it into tunekit.db and show the winners. Without one: say so, and replay the committed
# measurements (db/results/*.sql.xz) through the same run loop so every step still runs for real.
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
    echo "  build/tuner db export --db tunekit.db -o db/results/<gpu-model>.sql.xz && build/tuner header"
    exit 0
fi
echo "make run: no NVIDIA GPU found (nvidia-smi is missing or lists none), so nothing can be measured here."
shopt -s nullglob
dumps=(db/results/*.sql.xz db/results/*.sql)
if [ ${#dumps[@]} -eq 0 ]; then
    echo "make run: db/results/ holds no recorded measurements to replay either; the build is done."
    exit 0
fi
for d in "${dumps[@]}"; do
    # one dump per GPU model; its cards replay as that model (each problem from the card that
    # recorded it)
    echo "make run: replaying the measurements recorded in $d through the tuner:"
    rm -f build/replay.db build/replay.db-wal build/replay.db-shm
    $T run spaces/elementwise.yaml --backend "replay:$d" --db build/replay.db -q || exit $?
    $T best --db build/replay.db --op elementwise.mul
done
echo
echo "make run: that is what the committed header (kernels/tuned_configs.h) was generated from;"
echo "          on a machine with a GPU, 'make run' tunes that GPU instead."
