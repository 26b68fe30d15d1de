#!/usr/bin/env python3
"""batch_starts.py: is the first timed run of a batch slower than the others? The measuring loop
(tuner/measure/measure.c) queues its timed runs in batches and waits for each batch; a run that
starts right after the host's wait can pay for it. This reads a tuner database, rebuilds which
samples opened a batch from the sampling plan's rule (measure.h: the first batch is min_runs, or
5 with racing; then what min_runs still needs; then an eighth of the runs so far, at least 2, at
most 32), and prints per family, over ok evaluations with at least min_runs runs, the mean of
sample / median for the samples that opened a batch and for the others (mean and median: the
tails are long), the median excess in us of the opening ones, and the median of sample / median
for the very first timed run of each evaluation (the one right after the warm-up). A second table
says how spread the runs are: over ok evaluations with at least 20 runs, by their median's size,
the median of (upper quartile - lower quartile) / median and the mean number of runs (the
sampling plan takes more runs where the runs spread more).

    python3 scripts/batch_starts.py DB [MIN_RUNS (default 10)] [--no-race]
"""
import os
import sqlite3
import statistics
import sys


def batch_starts(n_runs, min_runs, race):
    starts, n = set(), 0
    while n < n_runs:
        starts.add(n)
        if n == 0:
            step = min(min_runs, 5) if race else min_runs
        elif n < min_runs:
            step = min_runs - n
        else:
            step = max(2, n // 8)
        n += min(step, 32)
    return starts


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    if not args:
        sys.exit(__doc__)
    try:
        min_runs = int(args[1]) if len(args) > 1 else 10
    except ValueError:
        sys.exit(f"batch_starts.py: MIN_RUNS must be a whole number, not '{args[1]}'")
    race = '--no-race' not in sys.argv
    if not os.path.isfile(args[0]):
        sys.exit(f"batch_starts.py: {args[0]}: no such database")
    con = sqlite3.connect(f"file:{args[0]}?mode=ro", uri=True)
    q = """SELECT substr(p.op, 1, instr(p.op, '.') - 1), e.id, e.median_us, e.n_runs, s.idx, s.us
           FROM evaluations e JOIN problems p ON p.id = e.problem_id
           JOIN samples s ON s.evaluation_id = e.id
           WHERE e.status = 'ok' AND e.n_runs >= ? ORDER BY e.id, s.idx"""
    acc = {}
    cache = {}
    spread = {}
    try:
        rows = con.execute(q, (min_runs,)).fetchall()
    except sqlite3.Error as e:
        sys.exit(f"batch_starts.py: {args[0]}: not a tuner database ({e})")
    if not rows:
        sys.exit(f"batch_starts.py: {args[0]}: no ok evaluation with at least {min_runs} runs")
    for fam, eid, med, n_runs, idx, us in rows:
        if n_runs not in cache:
            cache[n_runs] = batch_starts(n_runs, min_runs, race)
        if n_runs >= 20:
            spread.setdefault(eid, (med, []))[1].append(us)
        a = acc.setdefault(fam, ([], [], [], []))
        if idx == 0:
            a[3].append(us / med)
        if idx in cache[n_runs]:
            a[0].append(us / med)
            a[2].append(us - med)
        else:
            a[1].append(us / med)
    print(f"{'family':12} {'opening runs':>12} {'mean':>7} {'median':>7} {'excess us':>9}"
          f" {'other runs':>10} {'mean':>7} {'median':>7} {'first run':>9}")
    for fam, (op, other, ex, first) in sorted(acc.items()):
        print(f"{fam:12} {len(op):12} {statistics.fmean(op):7.4f} {statistics.median(op):7.4f}"
              f" {statistics.median(ex):9.3f} {len(other):10} {statistics.fmean(other):7.4f}"
              f" {statistics.median(other):7.4f} {statistics.median(first):9.4f}")
    buckets = {}
    for med, runs in spread.values():
        runs.sort()
        n = len(runs)
        size = next(b for b in (10, 50, 200, 1000, float('inf')) if med < b)
        buckets.setdefault(size, []).append(((runs[(3 * n) // 4] - runs[n // 4]) / med, n))
    print(f"\n{'median below':>12} {'evaluations':>11} {'IQR/median':>10} {'mean runs':>9}")
    for size, v in sorted(buckets.items()):
        label = f"{size:g} us" if size != float('inf') else "any"
        print(f"{label:>12} {len(v):11} {100 * statistics.median(x for x, _ in v):9.2f}%"
              f" {statistics.fmean(n for _, n in v):9.1f}")

if __name__ == '__main__':
    main()
