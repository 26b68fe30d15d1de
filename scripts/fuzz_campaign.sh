#!/usr/bin/env bash
# fuzz_campaign.sh: the long fuzz runs of issue 21 on a many-core machine. Runs the libFuzzer
# targets of tests/fuzz/ (built elsewhere by `make FUZZ=1 fuzz-bins`: clang, ASan, UBSan,
# libFuzzer and SQLite, libyaml, GSL and liblzma linked statically, so the machine needs none of
# their packages) through tests/fuzz/run.sh, each with libFuzzer's -jobs and -workers on every
# core (a worker that finds something stops with it, the others go on), and packs into OUTDIR/fuzz-campaign.tar.xz: summary.txt (per target and run:
# executions, execs/s, coverage cov/ft and corpus size from libFuzzer's final line, seconds,
# cores, findings), totals.txt (per target, the executions and findings of this run and of the
# campaign's earlier runs added up), every finding (crashes/<target>/), the grown corpus
# (corpus/<target>/, the seed of the next run) and the end of each log.
#
# usage: scripts/fuzz_campaign.sh SECONDS OUTDIR [TARGET...]
#   SECONDS   the whole run, shared out by weight: space and dump (the slowest per input) 3 parts
#             each, expr, protocol and config 1 part each (of the targets named; default all)
#   OUTDIR    where the tarball goes (e.g. $OUT), alone; the work folder is build-fuzz/campaign
#   FUZZ_BIN  the binaries' folder (default build-fuzz/fuzz; when it is missing and
#             build-fuzz/fuzz-bins.tar.xz exists, that is unpacked first: the form to carry)
#   FUZZ_PREV an earlier run's fuzz-campaign.tar.xz: its corpus seeds this run and its totals
#             are added to this run's in totals.txt
#   JOBS      cores (default: all)
set -u
cd "$(dirname "$0")/.."
secs=${1:?usage: scripts/fuzz_campaign.sh SECONDS OUTDIR [TARGET...]}
outdir=${2:?usage: scripts/fuzz_campaign.sh SECONDS OUTDIR [TARGET...]}
shift 2
targets=${*:-space expr dump protocol config}
jobs=${JOBS:-$(nproc)}
export FUZZ_BIN=${FUZZ_BIN:-build-fuzz/fuzz}
if [ ! -d "$FUZZ_BIN" ] && [ -f build-fuzz/fuzz-bins.tar.xz ]; then
    mkdir -p build-fuzz && tar -C build-fuzz -xJf build-fuzz/fuzz-bins.tar.xz || exit 2
fi
for t in $targets; do
    [ -x "$FUZZ_BIN/fuzz_$t" ] || { echo "fuzz_campaign.sh: $FUZZ_BIN/fuzz_$t is missing (make FUZZ=1 fuzz-bins)" >&2; exit 2; }
done
mkdir -p "$outdir" || exit 2
work=build-fuzz/campaign
rm -rf "$work" && mkdir -p "$work" || exit 2
if [ -n "${FUZZ_PREV:-}" ]; then
    mkdir -p "$work/prev" && tar -C "$work/prev" -xJf "$FUZZ_PREV" || exit 2
    [ -d "$work/prev/corpus" ] && cp -r "$work/prev/corpus" "$work/corpus"
fi
weight() { case $1 in space|dump) echo 3 ;; *) echo 1 ;; esac; }
total_w=0
for t in $targets; do total_w=$((total_w + $(weight "$t"))); done
found=0
for t in $targets; do
    s=$((secs * $(weight "$t") / total_w))
    [ "$s" -ge 10 ] || s=10
    FUZZ_TARGETS=$t bash tests/fuzz/run.sh run "$s" "$jobs" "$work" || found=1
done
# totals: this run plus the earlier runs' totals
{
    printf '%-9s %16s %12s %10s\n' target executions seconds findings
    for t in $targets; do
        read -r e sec f < <(awk -v t="$t" '$1 == t { e += $2; s += $7; if ($9 ~ /^[0-9]+$/) f += $9; else f += 1 } END { print e + 0, s + 0, f + 0 }' "$work/summary.txt")
        if [ -f "$work/prev/totals.txt" ]; then
            read -r pe ps pf < <(awk -v t="$t" '$1 == t { print $2, $3, $4 }' "$work/prev/totals.txt")
            e=$((e + ${pe:-0})); sec=$((sec + ${ps:-0})); f=$((f + ${pf:-0}))
        fi
        printf '%-9s %16s %12s %10s\n' "$t" "$e" "$sec" "$f"
    done
} > "$work/totals.txt"
[ -f "$work/prev/summary.txt" ] && tail -n +2 "$work/prev/summary.txt" > "$work/summary.earlier.txt"
mkdir -p "$work/logtails"
for l in "$work"/logs/*.log; do [ -f "$l" ] && tail -n 200 "$l" > "$work/logtails/$(basename "$l")"; done
echo "machine: $(nproc) cores, $(uname -sr); $(date -u +%FT%TZ)" >> "$work/summary.txt"
tar -C "$work" -cJf "$outdir/fuzz-campaign.tar.xz" summary.txt totals.txt crashes corpus logtails \
    $( [ -f "$work/summary.earlier.txt" ] && echo summary.earlier.txt )
cat "$work/summary.txt" "$work/totals.txt"
ls -l "$outdir/fuzz-campaign.tar.xz"
exit $found
