#!/usr/bin/env python3
"""regret_summary.py: one line over the CSV rows of `tuner retime --format csv` (one per problem:
the chosen config and the other side's winner re-timed side by side): how many problems, the
regret's median, p90 and max, how many within 1% and 2%, and how many chose the same config.

    python3 scripts/regret_summary.py RETIME.csv NAME [SECONDS]
"""
import csv
import statistics
import sys

path, name = sys.argv[1], sys.argv[2]
took = f" in {sys.argv[3]} s" if len(sys.argv) > 3 else ""
rows = [r for r in csv.reader(open(path)) if r and r[0] != "op"]
reg = sorted(float(r[7]) for r in rows)
n = len(reg)
if n == 0:
    print(f"{name}: no problem in common")
    sys.exit()
q = lambda p: reg[min(n - 1, int(p * (n - 1) + 0.5))]
print(f"{name}: {n} problems{took}; regret median {100 * statistics.median(reg):.2f}%, "
      f"p90 {100 * q(0.9):.2f}%, max {100 * reg[-1]:.2f}%; within 1%: {sum(r <= 0.01 for r in reg)}, "
      f"within 2%: {sum(r <= 0.02 for r in reg)}, same config: {sum(1 for r in rows if r[3] == r[4])}")
