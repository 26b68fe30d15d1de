#!/usr/bin/env bash
# buys.sh TUNER OUTDIR [EXAMPLE ...]: what energy as the objective buys on the softmax and SGEMM
# examples (default: softmax gemm), on this machine's GPU (issue #36's "what it buys";
# docs/energy.md). For each example, `tuner run --objective energy` into a fresh database, with
# the transfer search from the example's committed results (examples/EXAMPLE/results/*.sql.xz:
# their winners first, then a local search; the space's own search, a 400-evaluation ensemble for
# SGEMM, runs past one device call), then the contenders' 1 s energy windows; `tuner best` under
# the time and the energy objectives (each winner's time and energy); and the database exported
# to OUTDIR/EXAMPLE.sql.xz, whose `tuner report` draws the time-energy Pareto front. Everything
# printed also goes to OUTDIR/log.txt. Run from the repository root.
set -eu -o pipefail
[ $# -ge 2 ] || { echo "usage: $0 TUNER OUTDIR [EXAMPLE ...]" >&2; exit 2; }
T=$1 OUT=$2
shift 2
examples=("$@")
[ ${#examples[@]} -gt 0 ] || examples=(softmax gemm)
[ -x "$T" ] || { echo "$0: $T is not an executable tuner" >&2; exit 2; }
declare -A space=([softmax]=examples/softmax/softmax.yaml [gemm]=examples/gemm/sgemm.yaml)
for ex in "${examples[@]}"; do
    [ -n "${space[$ex]:-}" ] || { echo "$0: no example '$ex' (softmax, gemm)" >&2; exit 2; }
    [ -f "${space[$ex]}" ] || { echo "$0: no ${space[$ex]} (run from the repository root)" >&2; exit 2; }
    [ ! -e "$OUT/$ex.db" ] || { echo "$0: $OUT/$ex.db exists; give an empty OUTDIR" >&2; exit 2; }
done
mkdir -p "$OUT"
{
    echo "== buys.sh $(date -u +%FT%TZ)"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,power.limit --format=csv
    for ex in "${examples[@]}"; do
        # the example without its own search and budget, which the transfer search replaces
        printf 'base: "%s"\nsearch: { strategy: exhaustive }\n' "$PWD/${space[$ex]}" > "$OUT/$ex.yaml"
        from=()
        for d in "examples/$ex/results/"*.sql.xz; do
            case "$d" in *subspace*) ;; *) from+=(--transfer-from "$d") ;; esac
        done
        echo "== tuner run ${space[$ex]} --objective energy ${from[*]}"
        s=$SECONDS
        "$T" run "$OUT/$ex.yaml" --objective energy "${from[@]}" --db "$OUT/$ex.db" | tail -5
        echo "wall: $((SECONDS - s)) s"
        for o in time energy; do
            echo "== tuner best --objective $o"
            "$T" best --db "$OUT/$ex.db" --objective "$o"
        done
        "$T" db export --db "$OUT/$ex.db" -o "$OUT/$ex.sql.xz"
    done
    echo "== end $(date -u +%FT%TZ)"
} 2>&1 | tee "$OUT/log.txt"
