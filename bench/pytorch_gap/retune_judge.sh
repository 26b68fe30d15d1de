#!/usr/bin/env bash
# retune_judge.sh TUNER TK_GAP_SO OUTDIR [FAMILY ...]: issue #37's measurement in one job on the
# GPU machine (bench/pytorch_gap/README.md, section 9). For each family (default index_add
# relu_mask elementwise): the exhaustive re-tune of spaces/FAMILY.yaml into a fresh database;
# then PyTorch timed by scripts/peers.py in the same job; the database checked and exported to
# OUTDIR/new.sql.xz; `tuner best` as text and csv; and judge.py (500 rounds) on every winner.
# Everything it prints also goes to OUTDIR/log.txt. Exits non-zero when a step fails.
set -eu -o pipefail
[ $# -ge 3 ] || { echo "usage: $0 TUNER TK_GAP_SO OUTDIR [FAMILY ...]" >&2; exit 2; }
T=$1 LIB=$2 OUT=$3
shift 3
families=("$@")
[ ${#families[@]} -gt 0 ] || families=(index_add relu_mask elementwise)
for f in "${families[@]}"; do
    [ -f "spaces/$f.yaml" ] || { echo "$0: no spaces/$f.yaml (run from the repository root)" >&2; exit 2; }
done
[ -x "$T" ] || { echo "$0: $T is not an executable tuner" >&2; exit 2; }
[ -f "$LIB" ] || { echo "$0: no $LIB (bench/pytorch_gap/build.sh with SHARED=1)" >&2; exit 2; }
mkdir -p "$OUT"
db="$OUT/new.db"
[ ! -e "$db" ] || { echo "$0: $db exists; give an empty OUTDIR" >&2; exit 2; }
export PYTHONUNBUFFERED=1
{
    echo "== retune_judge.sh $(date -u +%FT%TZ) $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,power.limit --format=csv
    for f in "${families[@]}"; do
        echo "== tuner run spaces/$f.yaml --strategy exhaustive"
        s=$SECONDS
        "$T" run "spaces/$f.yaml" --strategy exhaustive --db "$db" | tail -4
        echo "wall: $((SECONDS - s)) s"
    done
    echo "== peers.py"
    s=$SECONDS
    python3 scripts/peers.py --db "$db" --tuner "$T" | tail -2
    echo "wall: $((SECONDS - s)) s"
    "$T" db check --db "$db"
    "$T" db export --db "$db" -o "$OUT/new.sql.xz"
    "$T" best --db "$db" --compare > "$OUT/best.txt"
    "$T" best --db "$db" --format csv > "$OUT/best.csv"
    echo "== judge.py (every winner, 500 rounds)"
    python3 bench/pytorch_gap/judge.py --lib "$LIB" "$OUT/best.csv" --rounds 500
    echo "== end $(date -u +%FT%TZ)"
} 2>&1 | tee "$OUT/log.txt"
