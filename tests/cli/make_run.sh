#!/usr/bin/env bash
# make_run.sh: what `make run` prints without a GPU (scripts/make-run.sh, with an nvidia-smi that
# lists nothing first on PATH, so that it takes that branch on a GPU machine too) is what the
# README shows under "What `make run` prints": every line the README quotes (the rows it cuts
# are marked `...`) comes out of the run as it stands, so the front door's example cannot go
# stale when the committed dumps change.
source "$(dirname "$0")/lib.sh"
mkdir -p "$T/bin"
printf '#!/bin/sh\nexit 9\n' > "$T/bin/nvidia-smi"
chmod +x "$T/bin/nvidia-smi"
check "make-run.sh without a GPU" env PATH="$T/bin:$PATH" bash scripts/make-run.sh
cp "$T/.out" "$T/run.txt"
# the README's block: the indented lines from the first 'make run: no NVIDIA GPU' to the
# closing 'tunes that GPU instead.'
python3 - README.md > "$T/quoted.txt" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
start = next(i for i, l in enumerate(lines) if l.startswith("    make run: no NVIDIA GPU found"))
end = next(i for i in range(start, len(lines)) if "tunes that GPU instead." in lines[i])
for l in lines[start:end + 1]:
    if l.strip() and l.strip() != "...":
        print(l[4:])
PY
same "the README quotes a block of make run's output" "$(wc -l < "$T/quoted.txt")" 11
missing=0
while IFS= read -r line; do
    grep -qxF -- "$line" "$T/run.txt" || { missing=$((missing + 1)); echo "    not in make run's output: $line"; }
done < "$T/quoted.txt"
same "every line the README quotes is in make run's output" "$missing" 0
finish
