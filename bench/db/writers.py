#!/usr/bin/env python3
"""writers.py: does SQLite's one-writer lock cost a run of several devices anything? N threads,
each with its own connection to one WAL database (synchronous=NORMAL, a 5 s busy timeout, as
`tuner run --devices` opens it), each "measures" for 3 ms (a sleep), then stores one evaluation
row and 30 sample rows in its own BEGIN IMMEDIATE transaction, 600 times. Prints the wall time
and the time per commit, which grows when writers wait on each other's lock.

    python3 bench/db/writers.py [N ...]          (default 1 2 4)
"""
import os
import sqlite3
import sys
import tempfile
import threading
import time

ITERS = 600


def run(n, path):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("CREATE TABLE evaluations (device, seq, error)")
    con.execute("CREATE TABLE samples (evaluation, idx, us)")
    con.commit()
    con.close()
    store = [0.0] * n

    def device(k):
        c = sqlite3.connect(path, timeout=5, isolation_level=None, check_same_thread=False)
        c.execute("PRAGMA synchronous = NORMAL")
        for i in range(ITERS):
            time.sleep(0.003)
            t = time.perf_counter()
            c.execute("BEGIN IMMEDIATE")
            c.execute("INSERT INTO evaluations VALUES (?, ?, ?)", (k, i, "x" * 200))
            c.executemany("INSERT INTO samples VALUES (?, ?, ?)", [(i, j, 1.0 * j) for j in range(30)])
            c.execute("COMMIT")
            store[k] += time.perf_counter() - t
        c.close()

    threads = [threading.Thread(target=device, args=(k,)) for k in range(n)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    print(f"{n} writer{'s' if n > 1 else ' '}: wall {wall:.2f} s for {ITERS} evaluations each; "
          f"{1000 * sum(store) / (n * ITERS):.3f} ms per commit")


with tempfile.TemporaryDirectory() as d:
    for n in [int(a) for a in sys.argv[1:]] or [1, 2, 4]:
        run(n, os.path.join(d, "writers.db"))
