#!/usr/bin/env bash
# run.sh: what `make gpu-test` runs: every GPU test binary (build/tests/gpu/*, built from
# tests/gpu/*.cu), every tests/gpu/*_test.sh and tests/gpu/corpus.sh. Each prints "N passed,
# N failed"; this adds them up and prints the total line last, exiting non-zero when anything
# failed. On a machine without a GPU (nvidia-smi -L fails or lists none) every test is skipped
# and the exit status is 0.
# Each test's whole output is kept in build/gpu-test-logs/<name>.log.
set -u
cd "$(dirname "$0")/../.."

tests=()
for t in build/tests/gpu/*; do
    [ -f "$t" ] && [ -x "$t" ] && tests+=("$t")
done
for t in tests/gpu/*_test.sh; do
    [ -f "$t" ] && tests+=("$t")
done
[ -f tests/gpu/corpus.sh ] && tests+=(tests/gpu/corpus.sh)   # the nvcc-style kernels of tests/corpus
n=${#tests[@]}

if ! gpus=$(nvidia-smi -L 2>/dev/null) || ! printf '%s\n' "$gpus" | grep -q '^GPU '; then
    echo "gpu-test: no GPU found, $n skipped"
    echo "0 passed, 0 failed, $n skipped"
    exit 0
fi
printf '%s\n' "$gpus"

total_p=0
total_f=0
for t in "${tests[@]}"; do
    name=${t#build/tests/}
    name=${name#tests/}
    start=$SECONDS
    case "$t" in
    *.sh) out=$(bash "$t" 2>&1); rc=$? ;;
    *) out=$("$t" 2>&1); rc=$? ;;
    esac
    took=$((SECONDS - start))
    mkdir -p build/gpu-test-logs && printf '%s\n' "$out" > "build/gpu-test-logs/$(basename "$name").log"
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
    if [ -z "$line" ]; then
        printf '%-34s FAIL (exit %d, no summary line, %ds)\n' "$name" "$rc" "$took"
        printf '%s\n' "$out" | tail -n 30 | sed 's/^/    /'
        total_f=$((total_f + 1))
        continue
    fi
    p=${line%% passed*}
    f=${line#*, }; f=${f%% failed*}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    total_p=$((total_p + p))
    total_f=$((total_f + f))
    if [ "$f" -gt 0 ]; then
        printf '%-34s FAIL (%s, exit %d, %ds)\n' "$name" "$line" "$rc" "$took"
        printf '%s\n' "$out" | grep -vE '^[0-9]+ passed, [0-9]+ failed' | tail -n 40 | sed 's/^/    /'
    else
        printf '%-34s ok (%s, %ds)\n' "$name" "$line" "$took"
    fi
done
echo "$total_p passed, $total_f failed"
[ "$total_f" -eq 0 ]
