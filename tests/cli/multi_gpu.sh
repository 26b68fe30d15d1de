#!/usr/bin/env bash
# multi_gpu.sh: scripts/multi_gpu.sh (the measurement of `--devices all` and of shards merged on
# a host with several GPUs) end to end without a GPU: a stand-in nvidia-smi lists two H200s and a
# stand-in tuner turns each `cuda:K` into the replay of the committed H200 dump and `--devices
# all` into two replay devices. Checked: every step runs, both devices take work, the merged
# shards choose the winners of the one run over both devices and give a byte-identical header,
# the killed run (no worker to kill in replay) holds the rows of the other with none twice, and a
# host with one GPU is refused in one line.
source "$(dirname "$0")/lib.sh"

dump=$PWD/db/results/nvidia-h200.sql.xz
real=$(realpath "$TUNER")
mkdir -p "$T/bin" "$T/one"
cat > "$T/bin/nvidia-smi" <<'SH'
#!/bin/sh
case "$*" in
  -L) echo "GPU 0: NVIDIA H200 (UUID: GPU-0)"; echo "GPU 1: NVIDIA H200 (UUID: GPU-1)" ;;
  *) echo "NVIDIA H200"; echo "NVIDIA H200" ;;
esac
SH
cat > "$T/bin/tuner" <<SH
#!/usr/bin/env bash
a=()
for x in "\$@"; do
    case \$x in
    cuda:*) a+=("replay:$dump") ;;
    all) unset 'a[\${#a[@]}-1]'; a+=(--backend "replay:$dump" --backend "replay:$dump") ;;
    *) a+=("\$x") ;;
    esac
done
exec "$real" "\${a[@]}"
SH
printf '#!/bin/sh\necho "GPU 0: NVIDIA H200 (UUID: GPU-0)"\n' > "$T/one/nvidia-smi"
chmod +x "$T/bin/nvidia-smi" "$T/bin/tuner" "$T/one/nvidia-smi"

PATH=$T/bin:$PATH TUNER=$T/bin/tuner KILL_SPACE=spaces/conv1d.yaml KILL_AFTER=0.2 \
    scripts/multi_gpu.sh "$T/mg" spaces/conv1d.yaml > "$T/log" 2>&1
same "multi_gpu.sh runs every step" "$?" 0
log=$(cat "$T/log")
same "each run exits 0" "$(grep -cE '^(one|all) +spaces/conv1d.yaml .* exit 0$' "$T/log")" 2
check "both devices took work" grep -qE '^all +device 1 \(replay:.*: [1-9][0-9]* evaluated' "$T/log"
check "the model's line for two devices" grep -qE '^model +\| 2 \| ' "$T/log"
check "the merged shards are clean" grep -q 'merged: tuner db check: .* is clean' "$T/log"
check "the merged shards choose the same winners" \
    grep -qE '^shards +winners: ([0-9]+) of \1 problems chose the same config \(0 only in .*, 0 only in .*\)$' "$T/log"
check "the headers are byte-identical" grep -qE '^shards +headers: byte-identical$' "$T/log"
check "the killed run holds every row once, none a fault" \
    grep -qE '^kill +.*kill.db: ([0-9]+) evaluations \(\1 ok\); .* holds \1 for the same problems; evaluated twice: 0; missing against .*: 0$' "$T/log"
[ $failed -eq 0 ] || sed 's/^/    /' "$T/log" | tail -n 30

PATH=$T/one:$PATH TUNER=$T/bin/tuner scripts/multi_gpu.sh "$T/mg1" > "$T/log1" 2>&1
same "one GPU: refused with exit 2" "$?" 2
same "one GPU: one line" "$(cat "$T/log1")" "multi_gpu.sh: needs at least 2 GPUs; nvidia-smi lists 1"
finish
