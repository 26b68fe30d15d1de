#!/usr/bin/env python3
"""summarize.py: the summary of an ncu.sh run (bench/pytorch_gap/README.md): the timings of this
job beside the H100 dump's, and per profiled kernel what ncu measured, from the raw-page CSV
exports of the reports (`ncu --import R --page raw --csv --print-units base`).

    python3 bench/pytorch_gap/summarize.py --cases bench/pytorch_gap/cases.txt --csv-dir DIR \
        [--tk-time FILE] [--torch-time FILE] [--copy-gbps 3000] [--header TEXT] [--ids REGEX]

Every metric is read by name; one that is missing (not collected, or not on this ncu version)
prints as '-'.
"""
import argparse
import csv
import glob
import os
import re
import sys

PREFIX = {"": 1.0, "n": 1e-9, "u": 1e-6, "m": 1e-3, "K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9,
          "T": 1e12, "Ki": 1024.0, "Mi": 1024.0 ** 2, "Gi": 1024.0 ** 3}
BASES = ["second", "byte", "cycle", "inst", "warp", "sector", "request", "thread", "block",
         "register", "hz", "Hz", "s"]   # "s" last: ncu labels durations "ns", "us", "ms"


def unit_scale(unit):
    """Factor from a value in `unit` to its base unit (second, byte, byte/second, ...)."""
    unit = (unit or "").strip()
    if not unit or unit == "%":
        return 1.0

    def one(u):
        for b in BASES:
            if u.endswith(b):
                return PREFIX.get(u[: -len(b)], 1.0)
        return 1.0
    if "/" in unit:
        num, den = unit.split("/", 1)
        return one(num) / one(den)
    return one(unit)


def read_cases(path):
    keys = ["id", "op", "dtype", "shape", "config", "torch", "full", "dump_tk", "dump_torch", "note"]
    rows = []
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#"):
            rows.append(dict(zip(keys, [x.strip() for x in line.split("|")])))
    return rows


def read_ncu_csv(path):
    """Kernel rows of a raw-page CSV export: a list of dicts metric -> value in base units
    (floats where numeric), plus the kernel name under '_name'."""
    with open(path, newline="", errors="replace") as f:
        rows = list(csv.reader(f))
    start = next((i for i, r in enumerate(rows) if r and r[0].strip('"') == "ID"), None)
    if start is None:
        return []
    header = rows[start]
    data = rows[start + 1:]
    units = {}
    if data and data[0] and data[0][0] == "":
        units = dict(zip(header, data[0]))
        data = data[1:]
    name_col = next((c for c in ("Kernel Name", "Demangled Name", "Function Name", "Mangled Name")
                     if c in header), None)
    out = []
    for r in data:
        if not r or r[0] == "":
            continue
        d = {}
        for k, v in zip(header, r):
            s = v.replace(",", "").strip()
            try:
                d[k] = float(s) * unit_scale(units.get(k, ""))
            except ValueError:
                d[k] = v
        d["_name"] = r[header.index(name_col)] if name_col else "?"
        out.append(d)
    return out


def num(d, *names):
    """The first of the metrics present as a number, else None."""
    for n in names:
        v = d.get(n)
        if isinstance(v, float):
            return v
    return None


def short_name(name):
    """The kernel's function name without namespaces, with its first template argument."""
    s = (name or "?").replace("(anonymous namespace)::", "")
    s = re.sub(r"^void\s+", "", s)
    depth, base, first, cur = 0, None, None, ""
    for ch in s:
        if ch == "<":
            depth += 1
            if depth == 1:
                base, cur = cur, ""
                continue
        elif ch == ">":
            depth -= 1
            if depth == 0:
                first = cur if first is None else first
                break
        elif ch == "," and depth == 1 and first is None:
            first = cur
        elif ch == "(" and depth == 0:
            break
        cur += ch
    if base is None:
        base, first = cur, None
    base = base.strip().split("::")[-1]
    return f"{base}<{first.strip()}>" if first is not None else base


def f(v, fmt, scale=1.0):
    return "-" if v is None else format(v * scale, fmt)


def table(rows, head):
    """Left-aligned first columns, right-aligned numbers, as plain text."""
    cols = list(zip(*([head] + rows))) if rows else [[h] for h in head]
    width = [max(len(str(x)) for x in c) for c in cols]
    lines = []
    for i, r in enumerate([head] + rows):
        cells = []
        for j, x in enumerate(r):
            x = str(x)
            cells.append(x.ljust(width[j]) if j < 3 else x.rjust(width[j]))
        lines.append("  ".join(cells).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in width))
    return "\n".join(lines)


def parse_times(path, key):
    """id -> (median_us, rest of the line) from a tk_time / torch_time file."""
    out, extra = {}, {}
    if not path or not os.path.exists(path):
        return out, extra
    for line in open(path):
        m = re.search(r"\bid=(\S+)", line)
        t = re.search(r"\bmedian_us=([0-9.]+)", line)
        if line.startswith("copy_gbps="):
            extra["header"] = line.strip()
            c = re.match(r"copy_gbps=([0-9.]+)", line)
            if c:
                extra["copy_gbps"] = float(c.group(1))
        if m and t and key in line:
            out[m.group(1)] = float(t.group(1))
    return out, extra


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", required=True)
    ap.add_argument("--csv-dir", required=True)
    ap.add_argument("--tk-time")
    ap.add_argument("--torch-time")
    ap.add_argument("--copy-gbps", type=float, default=3000.0)
    ap.add_argument("--header", default="")
    ap.add_argument("--ids", help="only the cases whose id matches this regex")
    args = ap.parse_args()
    cases = [c for c in read_cases(args.cases) if not args.ids or re.search(args.ids, c["id"])]
    tk_t, _ = parse_times(args.tk_time, " tk ")
    th_t, extra = parse_times(args.torch_time, "torch ")
    copy = extra.get("copy_gbps", args.copy_gbps)

    print("bench/pytorch_gap: tunekit's winning configs against PyTorch on the problems PyTorch won")
    if args.header:
        print(args.header)
    if "header" in extra:
        print("torch timing:", extra["header"])
    print(f"copy ceiling used for %copy: {copy:.0f} GB/s (bytes read + written)\n")

    # 1. timings: this job against the dump
    rows = []
    for c in cases:
        a, b = tk_t.get(c["id"]), th_t.get(c["id"])
        try:
            da, db = float(c["dump_tk"]), float(c["dump_torch"])
        except ValueError:
            da = db = None
        rows.append([c["id"], c["op"], c["dtype"], f(a, ".2f"), f(b, ".2f"),
                     f(b / a if a and b else None, ".3f"), f(da, ".2f"), f(db, ".2f"),
                     f(db / da if da and db else None, ".3f")])
    print("Timing, CUDA events, 2 x L2 overwritten before each run (the dump's method); "
          "torch/tk > 1: tunekit faster")
    print(table(rows, ["case", "op", "dtype", "tk_us", "torch_us", "torch/tk", "dump_tk",
                       "dump_torch", "dump_ratio"]))
    print()

    # 2. ncu, per kernel
    kern = []   # (case, side, dict)
    missing = []
    for c in cases:
        for side in ("tk", "torch"):
            if side == "torch" and c["torch"] != "yes":
                continue
            path = os.path.join(args.csv_dir, f"{c['id']}__{side}.csv")
            rows_ = read_ncu_csv(path) if os.path.exists(path) else []
            if not rows_:
                missing.append(f"{c['id']}__{side}")
            for d in rows_:
                kern.append((c, side, d))

    main_rows, mem_rows, names = [], [], []
    totals = {}
    for c, side, d in kern:
        dur = num(d, "gpu__time_duration.sum")                      # seconds
        rd = num(d, "dram__bytes_read.sum")
        wr = num(d, "dram__bytes_write.sum")
        tot = (rd + wr) if rd is not None and wr is not None else num(d, "dram__bytes.sum")
        if tot is None:
            rate = num(d, "dram__bytes.sum.per_second")
            tot = rate * dur if rate is not None and dur else None
        gbps = tot / dur / 1e9 if tot is not None and dur else None
        inst = num(d, "smsp__inst_executed.sum", "sm__inst_executed.sum")
        occ = num(d, "sm__warps_active.avg.pct_of_peak_sustained_active")
        theo = num(d, "sm__maximum_warps_per_active_cycle_pct")
        sname = short_name(d["_name"])
        main_rows.append([c["id"], side, sname[:44],
                          f(num(d, "launch__grid_size"), ".0f"), f(num(d, "launch__block_size"), ".0f"),
                          f(num(d, "launch__registers_per_thread"), ".0f"),
                          f(num(d, "launch__waves_per_multiprocessor"), ".2f"),
                          f(occ, ".1f") + "/" + f(theo, ".0f"),
                          f(dur, ".2f", 1e6), f(rd, ".2f", 1e-6), f(wr, ".2f", 1e-6),
                          f(gbps, ".0f"), f(gbps / copy * 100 if gbps else None, ".1f"),
                          f(num(d, "dram__throughput.avg.pct_of_peak_sustained_elapsed"), ".1f"),
                          f(inst, ".3f", 1e-6)])
        ld_req = num(d, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")
        ld_sec = num(d, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
        st_req = num(d, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")
        st_sec = num(d, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")
        red_req = num(d, "lts__t_requests_srcunit_tex_op_red.sum")
        red_sec = num(d, "lts__t_sectors_srcunit_tex_op_red.sum")
        red_max = num(d, "lts__t_sectors_srcunit_tex_op_red.max")
        red_avg = num(d, "lts__t_sectors_srcunit_tex_op_red.avg")
        l1_red = num(d, "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum")
        atom = num(d, "lts__t_requests_srcunit_tex_op_atom.sum")
        mem_rows.append([c["id"], side, sname[:44],
                         f(ld_sec / ld_req if ld_req and ld_sec is not None else None, ".2f"),
                         f(st_sec / st_req if st_req and st_sec is not None else None, ".2f"),
                         f(ld_req, ".3f", 1e-6), f(st_req, ".3f", 1e-6),
                         f(num(d, "lts__t_sectors_srcunit_tex_op_read.sum"), ".3f", 1e-6),
                         f(num(d, "lts__t_sectors_srcunit_tex_op_write.sum"), ".3f", 1e-6),
                         f(l1_red, ".1f", 1e-3), f(red_req, ".1f", 1e-3), f(red_sec, ".1f", 1e-3),
                         f(red_req / dur / 1e9 if red_req and dur else None, ".3f"),
                         f(red_max / red_avg if red_max and red_avg else None, ".1f"),
                         f(atom, ".1f", 1e-3)])
        names.append(f"{c['id']:16s} {side:5s} {d['_name'][:240]}")
        t = totals.setdefault((c["id"], side), [0.0, 0.0, 0])
        t[0] += dur or 0.0
        t[1] += tot or 0.0
        t[2] += 1

    print("ncu per kernel (--clock-control none; caches flushed before each kernel by ncu, so L2 "
          "starts clean, not dirty as under the tuner's flush)")
    print(table(main_rows, ["case", "side", "kernel", "grid", "block", "regs", "waves",
                            "occ%ach/th", "dur_us", "dram_rd_MB", "dram_wr_MB", "GB/s",
                            "%copy", "dram%pk", "warp_inst_M"]))
    print()
    print("ncu memory and atomics per kernel (sec/req: sectors per request; L2 red: reductions "
          "(RED, fire-and-forget atomics) arriving at L2; hot: busiest L2 slice's red sectors "
          "over the mean slice's)")
    print(table(mem_rows, ["case", "side", "kernel", "ld_sec/req", "st_sec/req", "ld_req_M",
                           "st_req_M", "L2_rd_sec_M", "L2_wr_sec_M", "L1_red_req_K",
                           "L2_red_req_K", "L2_red_sec_K", "red_G/s", "hot", "L2_atom_K"]))
    print()

    rows = []
    for c in cases:
        a = totals.get((c["id"], "tk"))
        b = totals.get((c["id"], "torch"))
        rows.append([c["id"], c["op"], c["dtype"],
                     f(a[0] if a else None, ".2f", 1e6), str(a[2]) if a else "-",
                     f(b[0] if b else None, ".2f", 1e6), str(b[2]) if b else "-",
                     f(b[0] / a[0] if a and b and a[0] else None, ".3f"),
                     f(a[1] if a else None, ".2f", 1e-6), f(b[1] if b else None, ".2f", 1e-6)])
    print("ncu per case: kernel time summed over the call's kernels (launch gaps and memsets "
          "not included)")
    print(table(rows, ["case", "op", "dtype", "tk_us", "tk_kernels", "torch_us",
                       "torch_kernels", "torch/tk", "tk_dram_MB", "torch_dram_MB"]))
    print()
    if missing:
        print("no ncu data for: " + ", ".join(missing) + " (see the reports' .log files in the tarball)")
        print()
    print("kernels (demangled, cut at 240 characters):")
    print("\n".join(names) if names else "(none)")


if __name__ == "__main__":
    main()
