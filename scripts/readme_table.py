#!/usr/bin/env python3
"""readme_table.py: the README's headline table, computed from the committed dumps, never typed.

For every GPU model in the dumps (default db/results/*.sql.xz) and every kernel family, it reads
`tuner best --compare --format csv` (the winner per op, dtype and problem, the classic default
measured in the same run, and the fastest peer library recorded by scripts/peers.py) and gives
the geometric mean over the family's problems of the winner's speed-up over the default and over
the peer, with the smallest and largest in brackets, and how many problems had one when not all
did. It rewrites the block between the lines `<!-- headline:begin -->` and
`<!-- headline:end -->` of README.md; with --check it changes nothing and exits 1 when the block
is not what the dumps give (tests/cli/readme_table.sh runs that in `make test`).

    python3 scripts/readme_table.py             # rewrite the block
    python3 scripts/readme_table.py --check     # exit 1 when it is stale
"""
import argparse
import csv
import glob
import io
import math
import os
import subprocess
import sys
import textwrap

BEGIN = "<!-- headline:begin -->"
END = "<!-- headline:end -->"


def fail(msg, code=1):
    print(f"readme_table: {msg}", file=sys.stderr)
    sys.exit(code)


def best_rows(tuner, dumps):
    """The rows of `tuner best --compare --format csv` for every dump (run side by side)."""
    procs = [(d, subprocess.Popen([tuner, "best", "--db", d, "--compare", "--format", "csv"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
             for d in dumps]
    rows = []
    for d, p in procs:
        out, err = p.communicate()
        if p.returncode != 0:
            fail(f"{tuner} best --db {d} failed: {err.strip()}")
        rows += list(csv.DictReader(io.StringIO(out)))
    return rows


def ratio(text):
    """A speed-up from the CSV; None when not measured (tuner best writes 0 then)."""
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return v if v > 0 else None


def cell(values, problems):
    if not values:
        return "-"
    g = math.exp(sum(math.log(v) for v in values) / len(values))
    s = f"{g:.2f}x ({min(values):.2f}-{max(values):.2f}x"
    if len(values) < problems:
        s += f", {len(values)} of {problems}"
    return s + ")"


def short(device):
    """'NVIDIA H100 80GB HBM3' -> 'H100 80GB HBM3' for a column title."""
    return device[len("NVIDIA "):] if device.startswith("NVIDIA ") else device


def block(rows, dumps):
    models = sorted({r["device"] for r in rows})
    families = sorted({r["op"].split(".")[0] for r in rows})
    peers = sorted({r["peer"].split(":")[0] for r in rows if r["peer"]})
    head = ["family", "problems"]
    for m in models:
        head += [f"{short(m)}: vs default", f"{short(m)}: vs peer"]
    lines = ["| " + " | ".join(head) + " |", "|---|---:|" + "---:|---:|" * len(models)]
    for fam in families:
        counts, cells = [], []
        for m in models:
            rs = [r for r in rows if r["device"] == m and r["op"].split(".")[0] == fam]
            d = [v for v in (ratio(r["gain_over_default"]) for r in rs) if v]
            p = [v for v in (ratio(r["speedup_over_peer"]) for r in rs) if v]
            counts.append(str(len(rs)))
            cells += [cell(d, len(rs)), cell(p, len(rs))]
        n = counts[0] if len(set(counts)) == 1 else " / ".join(counts)
        lines.append("| " + " | ".join([f"`{fam}`", n] + cells) + " |")
    src = ", ".join(f"`{d}`" for d in dumps)
    peer = " and ".join(peers) if peers else "no peer library"
    intro = (f"The tuned config's speed-up over the family's classic default and over the peer "
             f"({peer}), both timed in the same job: the geometric mean over the family's "
             f"problems, the smallest and largest in brackets. Computed from {src} by "
             f"`scripts/readme_table.py`; do not edit by hand.")
    return [BEGIN] + textwrap.wrap(intro, width=99, break_on_hyphens=False) + [""] + lines + [END]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dumps", nargs="*", help="dumps or databases (default db/results/*.sql.xz)")
    ap.add_argument("--check", action="store_true", help="exit 1 when the block is stale")
    ap.add_argument("--readme", default="README.md")
    ap.add_argument("--tuner", default="build/tuner")
    a = ap.parse_args()
    # paths as given, from where the script runs; then work from the repository root, where the
    # defaults are, naming files relative to it
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    shown = a.readme
    a.readme = os.path.abspath(a.readme)
    a.tuner = os.path.abspath(a.tuner) if os.sep in a.tuner else a.tuner
    dumps = [os.path.abspath(d) for d in a.dumps]
    os.chdir(root)
    dumps = dumps or [os.path.abspath(d) for d in sorted(glob.glob("db/results/*.sql.xz"))]
    if not dumps:
        fail("no dumps given and none in db/results/")
    names = [os.path.relpath(d, root) if d.startswith(root + os.sep) else d for d in dumps]
    try:
        text = open(a.readme, encoding="utf-8").read()
    except OSError as e:
        fail(f"{shown}: {e.strerror}")
    lines = text.split("\n")
    if lines.count(BEGIN) != 1 or lines.count(END) != 1 or lines.index(BEGIN) > lines.index(END):
        fail(f"{shown}: needs one line '{BEGIN}' and, after it, one line '{END}'")
    b, e = lines.index(BEGIN), lines.index(END)
    new = lines[:b] + block(best_rows(a.tuner, dumps), names) + lines[e + 1:]
    if new == lines:
        if not a.check:
            print(f"readme_table: the headline table of {shown} is current")
        return 0
    if a.check:
        fail(f"{shown}: the headline table is not what {', '.join(names)} give; "
             f"run python3 scripts/readme_table.py")
    tmp = a.readme + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(new))
    os.replace(tmp, a.readme)
    print(f"readme_table: wrote the headline table of {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
