#!/usr/bin/env python3
"""compare.py: a pipeline's time against the sum of its kernels' times measured alone.

Reads one database holding the runs of pipeline.yaml, first.yaml and second.yaml (the ops
pipeline_bench.reduce2, .partial_sums and .final_sum) and prints, for every config all three
measured ok, the pipeline's median, the two parts' medians, their sum and the ratio; then the
median ratio and the largest distance from 1. Usage: compare.py DB [--out FILE]
"""
import sqlite3
import statistics
import sys


def medians(db, op):
    rows = db.execute(
        "SELECT c.text, e.median_us FROM evaluations e JOIN problems p ON p.id = e.problem_id "
        "JOIN configs c ON c.id = e.config_id WHERE p.op = ? AND e.status = 'ok'", (op,))
    return {cfg: us for cfg, us in rows}


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: compare.py DB [--out FILE]")
    db = sqlite3.connect(sys.argv[1])
    pipe = medians(db, "pipeline_bench.reduce2")
    first = medians(db, "pipeline_bench.partial_sums")
    second = medians(db, "pipeline_bench.final_sum")
    lines = ["%-40s %12s %12s %12s %12s %8s" % ("config", "pipeline us", "first us",
                                                "second us", "sum us", "ratio")]
    ratios = []
    for cfg in sorted(pipe):
        if cfg not in first or cfg not in second:
            continue
        total = first[cfg] + second[cfg]
        r = pipe[cfg] / total
        ratios.append(r)
        lines.append("%-40s %12.2f %12.2f %12.2f %12.2f %8.4f" % (cfg, pipe[cfg], first[cfg],
                                                               second[cfg], total, r))
    if not ratios:
        sys.exit("compare.py: no config measured ok in all three")
    worst = max(ratios, key=lambda x: abs(x - 1))
    best_cfg = min(pipe, key=pipe.get)
    lines.append("configs: %d; pipeline / (first + second): median %.4f, min %.4f, max %.4f; "
                 "farthest from 1: %+.2f%%" % (len(ratios), statistics.median(ratios),
                                              min(ratios), max(ratios), 100 * (worst - 1)))
    if best_cfg in first and best_cfg in second:
        lines.append("the pipeline's best config %s: %.2f us, its parts alone %.2f + %.2f = %.2f us "
                     "(ratio %.4f)" % (best_cfg, pipe[best_cfg], first[best_cfg], second[best_cfg],
                                       first[best_cfg] + second[best_cfg],
                                       pipe[best_cfg] / (first[best_cfg] + second[best_cfg])))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if "--out" in sys.argv:
        with open(sys.argv[sys.argv.index("--out") + 1], "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
