#!/usr/bin/env python3
"""torch_gap.py: PyTorch's side of bench/pytorch_gap (README.md there): the call that
scripts/peers.py timed for the H100 dump, built by peers.py itself (same inputs, same op), either
timed the way peers.py times it or run once between cudaProfilerStart and cudaProfilerStop for ncu.

    python3 bench/pytorch_gap/torch_gap.py time bench/pytorch_gap/cases.txt [--ids REGEX]
    python3 bench/pytorch_gap/torch_gap.py profile OP DTYPE SHAPE [--reps N] [--warmup N]

`time` prints one line per case whose torch field is "yes" (and the copy ceiling first);
`profile` runs the warm-up calls, then N calls inside the profiler range (ncu
--profile-from-start off profiles only those).
"""
import argparse
import importlib.util
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def load_peers():
    """scripts/peers.py as a module (it imports torch and, when present, CuPy)."""
    path = os.path.join(ROOT, "scripts", "peers.py")
    spec = importlib.util.spec_from_file_location("tk_peers", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def read_cases(path):
    """The rows of cases.txt as dicts (id, op, dtype, shape, config, torch, full, dump_tk,
    dump_torch, note)."""
    keys = ["id", "op", "dtype", "shape", "config", "torch", "full", "dump_tk", "dump_torch", "note"]
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = [x.strip() for x in line.split("|")]
            if len(fields) != len(keys):
                sys.exit(f"torch_gap.py: {path}: {len(fields)} fields, want {len(keys)}: {line}")
            rows.append(dict(zip(keys, fields)))
    return rows


def build(peers, op, dtype, shape):
    if op not in peers.PEERS:
        sys.exit(f"torch_gap.py: peers.py has no peer for {op}")
    label, builder = peers.PEERS[op]
    return label, builder(peers.parse_shape(shape), peers.DTYPES[dtype])


def cmd_time(args):
    peers = load_peers()
    import torch
    cases = [c for c in read_cases(args.cases)
             if c["torch"] == "yes" and (not args.ids or re.search(args.ids, c["id"]))]
    timer = peers.Timer(cache="cold")
    ceiling = peers.copy_gbps(timer)
    flush = "cudaMemsetAsync (CuPy)" if peers.RUNTIME else "torch fill_ (no CuPy)"
    print(f"copy_gbps={ceiling:.1f} device={torch.cuda.get_device_name(0)} torch={torch.__version__} "
          f"flush={flush} hold_us={peers.HOLD_US}", flush=True)
    for c in cases:
        label, fn = build(peers, c["op"], c["dtype"], c["shape"])
        samples = timer.time(fn)
        med, lo, hi = peers.median_ci(samples)
        print(f"torch id={c['id']} median_us={med:.3f} ci_lo_us={lo:.3f} ci_hi_us={hi:.3f} "
              f"min_us={min(samples):.3f} runs={len(samples)} call={label}", flush=True)
        del fn
        torch.cuda.empty_cache()


def cmd_profile(args):
    peers = load_peers()
    import torch
    _, fn = build(peers, args.op, args.dtype, args.shape)
    for _ in range(args.warmup):
        fn()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    for _ in range(args.reps):
        fn()
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    print(f"torch_gap: profiled {args.reps} call(s) of {args.op} {args.dtype} {args.shape}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    t = sub.add_parser("time")
    t.add_argument("cases")
    t.add_argument("--ids", help="only the cases whose id matches this regex")
    p = sub.add_parser("profile")
    p.add_argument("op")
    p.add_argument("dtype")
    p.add_argument("shape")
    p.add_argument("--reps", type=int, default=1)
    p.add_argument("--warmup", type=int, default=3)
    args = ap.parse_args()
    if args.mode == "time":
        cmd_time(args)
    else:
        cmd_profile(args)


if __name__ == "__main__":
    main()
