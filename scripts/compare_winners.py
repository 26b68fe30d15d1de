#!/usr/bin/env python3
"""compare_winners.py: two tuning databases of the same GPU model and spaces side by side.

    python3 scripts/compare_winners.py A.db B.db [A.h B.h]
        per problem (op, dtype, shape; the cards of a model pooled) whether both chose the same
        config, and, given their generated headers, whether they are byte-identical and how many
        lines differ
    python3 scripts/compare_winners.py --rows A.db B.db
        for the problems B holds: the rows A holds for them against B's, B's rows by status, and
        B's evaluations made twice (one problem and config measured by more than one card or run)

Used by scripts/multi_gpu.sh (merged shards against one run over all GPUs; a run whose workers
were killed against one that was not).
"""
import re
import sqlite3
import sys


def winners(path):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    best = {}
    for op, dtype, shape, config, t in con.execute(
            "SELECT op, dtype, shape, config, coalesce(playoff_us, median_us) FROM best"):
        key = (op, dtype, shape)
        if key not in best or t < best[key][1]:
            best[key] = (config, t)
    return best


def rows(path, problems=None):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    q = """SELECT p.op, p.dtype, p.shape, c.text, e.status FROM evaluations e
           JOIN problems p ON p.id = e.problem_id JOIN configs c ON c.id = e.config_id"""
    return [r for r in con.execute(q) if problems is None or r[:3] in problems]


if sys.argv[1] == "--rows":
    a, b = sys.argv[2], sys.argv[3]
    rb = rows(b)
    ra = rows(a, {r[:3] for r in rb})
    by_status = {}
    for r in rb:
        by_status[r[4]] = by_status.get(r[4], 0) + 1
    keys = [r[:4] for r in rb]
    twice = len(keys) - len(set(keys))
    print(f"{b}: {len(rb)} evaluations ({', '.join(f'{v} {k}' for k, v in sorted(by_status.items()))}); "
          f"{a} holds {len(ra)} for the same problems; evaluated twice: {twice}; "
          f"missing against {a}: {len({r[:4] for r in ra} - set(keys))}")
    sys.exit(0 if len(rb) == len(ra) and twice == 0 and "fault" not in by_status else 1)

a, b = sys.argv[1], sys.argv[2]
wa, wb = winners(a), winners(b)
common = wa.keys() & wb.keys()
same = sum(1 for k in common if wa[k][0] == wb[k][0])
print(f"winners: {same} of {len(common)} problems chose the same config "
      f"({len(wa.keys() - wb.keys())} only in {a}, {len(wb.keys() - wa.keys())} only in {b})")
if len(sys.argv) > 4:
    ha, hb = open(sys.argv[3]).read().splitlines(), open(sys.argv[4]).read().splitlines()
    # an entry's line ends in a comment with its measured time: set that aside to count the
    # entries that dispatch to another config
    bare = lambda lines: [re.sub(r"\s*/\*.*\*/\s*$", "", x) for x in lines]
    ba, bb = bare(ha), bare(hb)
    differ = sum(1 for x, y in zip(ba, bb) if x != y) + abs(len(ba) - len(bb))
    print("headers: " + ("byte-identical" if ha == hb else
                          f"{differ} of {max(len(ha), len(hb))} lines differ, the times in their "
                          "comments set aside"))
