#!/usr/bin/env python3
"""scaling_model.py: the wall time of a recorded run spread over N devices, modelled from the
database: each task (op, dtype, problem) takes on one device what it took when it was recorded
(from its first evaluation's timestamp to the next task's first; each run's first task also
carries the run's start: worker, copy ceiling), and `tuner run --devices` hands the tasks out most
costly first to whichever device is free (run/run_plan.c). Prints, per N, the modelled wall time,
the speed-up over one device and each device's busy fraction. A model, not a measurement: it
assumes the devices are identical and independent (no shared host bottleneck).

    python3 scripts/scaling_model.py db/results/nvidia-h200.sql.xz [--devices 1,2,4,8]
"""
import argparse
import datetime
import heapq
import lzma
import sqlite3
import sys


def load(path):
    con = sqlite3.connect(":memory:")
    text = lzma.open(path, "rt").read() if path.endswith(".xz") else open(path).read()
    con.executescript(text)
    return con


def ts(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()


def task_times(con):
    """Seconds per task, from consecutive first-evaluation timestamps within each run, and the
    runs' start-up (from the run's start to its first evaluation: the worker, the copy
    ceiling), which every device pays once."""
    rows = con.execute("""
        SELECT r.id, r.started_at, r.finished_at, p.op, p.dtype, p.shape, min(e.created_at)
        FROM evaluations e JOIN runs r ON r.id = e.run_id JOIN problems p ON p.id = e.problem_id
        GROUP BY r.id, p.id ORDER BY r.id, min(e.created_at)""").fetchall()
    times = {}
    starts = []
    by_run = {}
    for run, start, finish, op, dtype, shape, first in rows:
        by_run.setdefault(run, (start, finish, []))[2].append(((op, dtype, shape), ts(first)))
    for run, (start, finish, tasks) in by_run.items():
        end = ts(finish) if finish else tasks[-1][1]
        starts.append(max(0.0, tasks[0][1] - ts(start)))
        for i, (key, t) in enumerate(tasks):
            begin = t
            stop = tasks[i + 1][1] if i + 1 < len(tasks) else end
            times[key] = times.get(key, 0.0) + max(0.0, stop - begin)
    return times, sum(starts) / len(starts)


def makespan(costs, n, startup):
    free = [(startup, d) for d in range(n)]
    busy = [0.0] * n
    for c in sorted(costs, reverse=True):
        t, d = heapq.heappop(free)
        busy[d] += c
        heapq.heappush(free, (t + c, d))
    return max(t for t, _ in free), busy


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dump")
    ap.add_argument("--devices", default="1,2,3,4,8")
    ap.add_argument("--startup", type=float,
                    help="a device's start-up in seconds (its worker, CUDA, the copy ceiling) "
                         "as measured, instead of what the dump's timestamps show")
    args = ap.parse_args()
    con = load(args.dump)
    if not con.execute("SELECT count(*) FROM evaluations").fetchone()[0]:
        sys.exit("scaling_model.py: error: no evaluations in " + args.dump)
    times, startup = task_times(con)
    if args.startup is not None:
        startup = args.startup
    costs = list(times.values())
    one = startup + sum(costs)
    print(f"{args.dump}: {len(costs)} tasks, {one:.1f} s on one device as recorded "
          f"({startup:.1f} s of start-up per device); the longest task {max(costs):.1f} s")
    print("| devices | modelled wall s | speed-up | busy per device |")
    print("|---|---|---|---|")
    for n in (int(x) for x in args.devices.split(",")):
        span, busy = makespan(costs, n, startup)
        print(f"| {n} | {span:.1f} | {one / span:.2f}x | "
              f"{min(busy) / span:.0%}..{max(busy) / span:.0%} |")


if __name__ == "__main__":
    main()
