#!/usr/bin/env bash
# run.sh: what `make test` runs after building: every unit test binary (build/tests/test_*),
# the space-file cases (tests/cases/run.sh), the command-line tests (tests/cli/*.sh) and the
# header staleness check, and the fuzz targets' smoke run (tests/fuzz/run.sh smoke). Each prints
# "N passed, N failed"; this adds them up and ends with the total line. Exit status non-zero when
# anything failed. BUILD names the build folder (default build; build-san for the sanitizer run,
# tests/sanitize.sh), and SKIP the parts that run.sh leaves out (names as printed: cli/install,
# fuzz, ...).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export TUNER=${TUNER:-$BUILD/tuner}
SKIP=${SKIP:-}
total_p=0
total_f=0

run_one() {
    local name=$1; shift
    local out rc line p f
    case " $SKIP " in *" $name "*) printf '%-34s skipped (SKIP)\n' "$name"; return ;; esac
    out=$("$@" 2>&1); rc=$?
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
    if [ -z "$line" ]; then
        printf '%-34s FAIL (exit %d, no summary line)\n' "$name" "$rc"
        printf '%s\n' "$out" | tail -n 25 | sed 's/^/    /'
        total_f=$((total_f + 1))
        return
    fi
    p=${line%% passed*}
    f=${line#*, }; f=${f%% failed*}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    total_p=$((total_p + p)); total_f=$((total_f + f))
    if [ "$f" -gt 0 ]; then
        printf '%-34s FAIL (%s)\n' "$name" "$line"
        printf '%s\n' "$out" | grep -vE '^[0-9]+ passed, [0-9]+ failed' | tail -n 40 | sed 's/^/    /'
    else
        printf '%-34s ok (%s)\n' "$name" "$line"
    fi
}

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] && run_one "unit/$(basename "$t")" "$t"
done
run_one cases bash tests/cases/run.sh
for t in tests/cli/*.sh; do
    case "$t" in */lib.sh) continue ;; esac
    run_one "cli/$(basename "$t" .sh)" bash "$t"
done
run_one fuzz bash tests/fuzz/run.sh smoke
if "$TUNER" header --check -q >/dev/null 2>&1; then
    total_p=$((total_p + 1)); printf '%-34s ok\n' "header --check"
else
    total_f=$((total_f + 1)); printf '%-34s FAIL\n' "header --check"; "$TUNER" header --check 2>&1 | sed 's/^/    /'
fi
echo "$total_p passed, $total_f failed"
[ "$total_f" -eq 0 ]
