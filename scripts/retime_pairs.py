#!/usr/bin/env python3
"""retime_pairs.py: reads `tuner retime` tables (the per-problem lines of `tuner retime SPACE --db A
--against B`, any number of spaces, whole files or bench records holding them) and, for every pair
of databases re-timed both ways (A against B and B against A), says how far the judge agrees with
itself and where the two runs parted.

    python3 scripts/retime_pairs.py FILE... [--why A.db B.db]

Per pair: the problems whose winners differ; the sum of the two directions' regrets per problem
(0 for a judge without bias or noise: A's winner 1% slower than B's one way is B's 1% faster the
other way), its median (the bias) and the spread of |sum| (the noise between two side-by-side
measurements of the same two configs in two processes); how many problems are within 1% by each
direction alone and by the mean of the two, (ab - ba) / 2; and how many problems one reading
would put beyond 1% by its error alone, were the two winners equally fast.

With --why and the two databases the tables name (matched by file name), each problem beyond 1% by
the mean is placed by where the better winner (by the mean) stood in the run that did not choose it:
played in that run's playoff and lost it, evaluated but left out of the playoff (its own median's
rank and distance from the best own median), stopped by racing, or never evaluated by that run's
search. Used for docs/time-to-tune.md (bench/measure/*call31-3.txt).
"""
import collections
import os
import re
import sqlite3
import statistics
import sys

LINE = re.compile(r"\s+(\S+)\s+(\S+)\s+(\S+)\s+([+-][0-9.]+)%\s+(same config: |a: )(\S+)")
HEAD = re.compile(r"the winners of (\S+) \(a\) against those of (\S+) \(b\)")


def tables(paths):
    """{(a, b): {(op, dtype, shape): regret %}} over the problems whose winners differ."""
    out = collections.defaultdict(dict)
    for path in paths:
        cur = None
        for line in open(path):
            h = HEAD.search(line)
            if h:
                cur = (os.path.basename(h[1]), os.path.basename(h[2]))
                continue
            m = LINE.match(line)
            if m and cur and m[5] == "a: ":
                out[cur][(m[1], m[2], m[3])] = float(m[4])
    return out


def quantile(v, p):
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]


_connections = {}


def connect(db):
    """One read-only connection per database, opened on first use."""
    if db not in _connections:
        _connections[db] = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    return _connections[db]


def where(db, key, config):
    """Where config stood for problem key in database db, in a few words."""
    c = connect(db)
    op, dtype, shape = key
    q = """select e.id, e.status, e.median_us, e.error from evaluations e
           join problems p on p.id = e.problem_id join configs c on c.id = e.config_id
           where p.op = ? and p.dtype = ? and p.shape = ?"""
    row = c.execute(q + " and c.text = ?", (op, dtype, shape, config)).fetchone()
    if not row:
        return "not evaluated", "never evaluated"
    eid, status, median, error = row
    if status != "ok":
        return "not ok", f"status {status}"
    own = [r[2] for r in c.execute(q + " and e.status = 'ok'", (op, dtype, shape))]
    rank = 1 + sum(m < median for m in own)
    text = f"own median {median / min(own) - 1:+.2%} over the best own, rank {rank}"
    if error and error.startswith("raced"):
        return "raced", text + ", stopped by racing"
    if c.execute("select 1 from playoffs where evaluation_id = ?", (eid,)).fetchone():
        return "played and lost", text + ", played and lost"
    return "left out of the playoff", text + ", left out of the playoff"


def winner(db, key):
    row = connect(db).execute("select config from best where op = ? and dtype = ? and shape = ?",
                              key).fetchone()
    return row[0] if row else None


def main(argv):
    why = None
    if "--why" in argv:
        i = argv.index("--why")
        if len(argv) < i + 3:
            sys.exit("retime_pairs.py: --why needs two databases")
        why = {os.path.basename(p): p for p in argv[i + 1:i + 3]}
        argv = argv[:i] + argv[i + 3:]
    if not argv:
        sys.exit("usage: retime_pairs.py FILE... [--why A.db B.db]")
    t = tables(argv)
    seen = set()
    for (a, b) in sorted(t):
        if (b, a) not in t or (b, a) in seen:
            continue
        seen.add((a, b))
        ab, ba = t[(a, b)], t[(b, a)]
        keys = sorted(set(ab) & set(ba))
        if not keys:
            continue
        sums = [ab[k] + ba[k] for k in keys]
        spread = sorted(abs(s) for s in sums)
        mean = {k: (ab[k] - ba[k]) / 2 for k in keys}
        print(f"{a} and {b}: {len(keys)} problems with different winners, re-timed both ways")
        print(f"  sum of the two directions: median {statistics.median(sums):+.2f}%; |sum| median "
              f"{statistics.median(spread):.2f}%, p90 {quantile(spread, 0.9):.2f}%, max {spread[-1]:.2f}%; "
              f"|sum| over 1%: {sum(s > 1 for s in spread)}, over 2%: {sum(s > 2 for s in spread)}")
        # each direction reads the true difference plus its own error; sum = e_ab + e_ba, so one
        # reading's error is about sum / sqrt 2, and half of those beyond 1% fall on the side
        # the target counts: what the judge alone costs when the two winners are equally fast
        noise = sum(s / 2 ** 0.5 > 1 for s in spread) / 2
        print(f"  one reading's error (|sum| / sqrt 2) over 1% in {sum(s / 2 ** 0.5 > 1 for s in spread)} "
              f"problems: about {noise:.0f} would read over 1% one way with equally fast winners")
        print(f"  within 1% (regret at most 1%): {sum(ab[k] <= 1 for k in keys)} ({a} against {b}), "
              f"{sum(ba[k] <= 1 for k in keys)} ({b} against {a}), "
              f"{sum(abs(mean[k]) <= 1 for k in keys)} by the mean of the two")
        if not why or a not in why or b not in why:
            continue
        kinds = collections.Counter()
        for k in keys:
            if abs(mean[k]) <= 1:
                continue
            # mean > 0: a's winner is the slower, so b's winner is the better one, missed by a
            missed_by, better = (a, winner(why[b], k)) if mean[k] > 0 else (b, winner(why[a], k))
            if better is None:
                continue
            kind, text = where(why[missed_by], k, better)
            kinds[kind] += 1
            print(f"    {k[0]} {k[1]} {k[2]}: mean {mean[k]:+.2f}% (sum {ab[k] + ba[k]:+.2f}%); "
                  f"in {missed_by}, the better winner: {text}")
        print(f"  beyond 1% by the mean: {sum(kinds.values())}: " +
              ", ".join(f"{n} {k}" for k, n in kinds.most_common()))


if __name__ == "__main__":
    main(sys.argv[1:])
