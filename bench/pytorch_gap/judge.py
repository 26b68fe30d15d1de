#!/usr/bin/env python3
"""judge.py: tunekit's winners against PyTorch side by side, as `tuner retime` judges two configs
(issue #37's test): for every problem of the given `tuner best --format csv` tables, tunekit's
winning config (through tk_gap.so, the public C API with the tuner's inputs) and PyTorch's call
(built by scripts/peers.py, the same peer the dumps record) are timed in alternating rounds in one
process on one stream, one run of each per round, the order swapped every round, each run after
its own L2 flush (2 x L2 overwritten, as the tuner's `cache: cold`) and the stream held until the
call is queued (peers.py's hold). Each side's median over the rounds, and their ratio (PyTorch's
median over tunekit's: above 1, tunekit is faster), with the 95% confidence intervals of both
medians; the copy ceiling is measured in the same process first.

    SHARED=1 LIB=0 bench/pytorch_gap/build.sh build/pytorch_gap/tk_gap.so     # CPU machine
    build/tuner best --db RESULTS --format csv > best.csv                       # GPU machine
    python3 bench/pytorch_gap/judge.py --lib build/pytorch_gap/tk_gap.so best.csv \\
        [--ops 'index_add|relu_mask'] [--rounds 500]

Prints one line per problem (`judge ...`), then per op the count, the smallest ratio and how many
problems are below 1.00 and below 0.995, and whether their intervals overlap (a tie at the
timer's resolution).

--memcpy adds the floor PERF.md sets for streaming kernels: the driver's memcpy
(cudaMemcpyAsync, device to device) of the bytes the problem moves (its row's GB/s x median:
the bytes the tuner counts, read plus written), timed against PyTorch's call in alternating rounds
the same way. `memcpy_ratio` = PyTorch median / memcpy median: below 1, PyTorch's kernel moves its
problem's bytes faster than the driver's memcpy moves the same bytes, so tunekit can beat it only
by beating that memcpy. The summary counts, of the problems below 0.995, those where it is so.
"""
import argparse
import csv
import ctypes
import importlib.util
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

# the ops tk_gap.cu can run
SUPPORTED = re.compile(r"^(elementwise\.(relu|gelu|mul|add|fma)|relu_mask\.(add_)?relu_(fwd|bwd)|index_add\.add)$")


def load_peers():
    spec = importlib.util.spec_from_file_location("tk_peers", os.path.join(ROOT, "scripts", "peers.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def read_best(paths, ops):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if not SUPPORTED.match(r["op"]) or (ops and not re.search(ops, r["op"])):
                    continue
                rows.append(r)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("best", nargs="+", help="`tuner best --format csv` output(s)")
    ap.add_argument("--lib", required=True, help="tk_gap.so (build.sh with SHARED=1)")
    ap.add_argument("--ops", help="only ops matching this regex")
    ap.add_argument("--rounds", type=int, default=500)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--memcpy", action="store_true",
                    help="also time the driver's memcpy of each problem's bytes against PyTorch")
    args = ap.parse_args()
    if args.rounds < 10:
        sys.exit("judge.py: --rounds must be at least 10")

    peers = load_peers()
    import torch
    lib = ctypes.CDLL(os.path.abspath(args.lib))
    lib.tk_gap_open.restype = ctypes.c_void_p
    lib.tk_gap_open.argtypes = [ctypes.c_char_p] * 4 + [ctypes.c_void_p]
    lib.tk_gap_call.argtypes = [ctypes.c_void_p]
    lib.tk_gap_status_ok.argtypes = [ctypes.c_void_p]
    lib.tk_gap_status_ok.restype = ctypes.c_int
    lib.tk_gap_close.argtypes = [ctypes.c_void_p]

    rows = read_best(args.best, args.ops)
    if not rows:
        sys.exit("judge.py: no problem of a supported op in the tables")
    timer = peers.Timer(cache="cold")
    ceiling = peers.copy_gbps(timer)
    if not peers.RUNTIME:
        sys.exit("judge.py: needs CuPy for the tuner's flush (cudaMemsetAsync)")
    stream = torch.cuda.current_stream()
    print(f"copy_gbps={ceiling:.1f} device={torch.cuda.get_device_name(0)} torch={torch.__version__} "
          f"rounds={args.rounds} hold_us={peers.HOLD_US} problems={len(rows)}", flush=True)

    summary = {}
    for r in rows:
        op, dtype, shape, config = r["op"], r["dtype"], r["shape"], r["config"]
        if op not in peers.PEERS:
            continue
        h = lib.tk_gap_open(op.encode(), dtype.encode(), shape.encode(), config.encode(),
                            ctypes.c_void_p(stream.cuda_stream))
        tk_fn = lambda: lib.tk_gap_call(h)
        label, builder = peers.PEERS[op]
        torch_fn = builder(peers.parse_shape(shape), peers.DTYPES[dtype])
        for _ in range(args.warmup):
            tk_fn()
            torch_fn()
        torch.cuda.synchronize()
        tk_us, th_us = timer.alternate(tk_fn, torch_fn, args.rounds)
        floor = ""
        memcpy_ratio = None
        if args.memcpy:
            nbytes = float(r["gbps"]) * float(r["median_us"]) * 1e3  # the bytes the tuner counts
            half = max(16, int(nbytes / 2) // 16 * 16)
            src = torch.empty(half, dtype=torch.uint8, device="cuda").random_(0, 255)
            dst = torch.empty_like(src)
            cp = lambda: peers.RUNTIME[1](dst.data_ptr(), src.data_ptr(), half, stream.cuda_stream)
            for _ in range(args.warmup):
                cp()
                torch_fn()
            cp_us, th2_us = timer.alternate(cp, torch_fn, args.rounds)
            cm, pm2 = peers.median_ci(cp_us)[0], peers.median_ci(th2_us)[0]
            memcpy_ratio = pm2 / cm
            floor = f" memcpy_bytes={2 * half} memcpy_us={cm:.3f} torch_us_vs_memcpy={pm2:.3f} memcpy_ratio={memcpy_ratio:.4f}"
            del src, dst
        ok = lib.tk_gap_status_ok(h)
        lib.tk_gap_close(h)
        del torch_fn
        torch.cuda.empty_cache()
        if not ok:
            sys.exit(f"judge.py: {op} {dtype} {shape}: index_add reported an index out of range")
        tm, tlo, thi = peers.median_ci(tk_us)
        pm, plo, phi = peers.median_ci(th_us)
        ratio = pm / tm
        overlap = tlo <= phi and plo <= thi
        faster = sum(1 for a, b in zip(tk_us, th_us) if a < b) / len(tk_us)
        print(f"judge op={op} dtype={dtype} shape={shape} tk_us={tm:.3f} [{tlo:.3f},{thi:.3f}] "
              f"torch_us={pm:.3f} [{plo:.3f},{phi:.3f}] ratio={ratio:.4f} "
              f"cis={'overlap' if overlap else 'apart'} tk_faster_rounds={faster:.3f} "
              f"config={config} peer={label}{floor}", flush=True)
        s = summary.setdefault(op, [])
        s.append((ratio, overlap, dtype, shape, memcpy_ratio))
    print("summary (ratio = PyTorch median / tunekit median; below 1: PyTorch faster)")
    for op in sorted(summary):
        s = summary[op]
        worst = min(s)
        below1 = [x for x in s if x[0] < 1.0]
        below995 = [x for x in s if x[0] < 0.995]
        apart = [x for x in below1 if not x[1]]
        print(f"  {op}: {len(s)} problems, min ratio {worst[0]:.4f} ({worst[2]} {worst[3]}), "
              f"{len(below1)} below 1.00 ({len(apart)} with intervals apart), "
              f"{len(below995)} below 0.995", flush=True)
        if args.memcpy:
            beat = [x for x in below995 if x[4] is not None and x[4] < 1.0]
            print(f"    of those below 0.995, {len(beat)} where PyTorch is faster than the driver's memcpy "
                  f"of the same bytes", flush=True)


if __name__ == "__main__":
    main()
