#!/usr/bin/env python3
"""examples_dev.py: a development benchmark of the user-kernel examples (examples/gemm,
examples/conv2d, examples/softmax) on a GPU machine, without the tuner. For a list of configs per
example it compiles the example's kernel with NVRTC through CuPy (cupy.RawModule with -D options
and name expressions, compiled in parallel processes into CuPy's kernel cache), validates every
config against a float64 PyTorch reference (max |out - ref| / max |ref|, output poisoned with NaN
first), and times it the tuner's way: CUDA events around the launch only, warm-up, L2 overwritten
(cudaMemsetAsync of a buffer twice the L2 size) before every timed run, median of --runs runs. The
example's peer (peer.py, the library the space file names) and a device-to-device copy of the
output's size are timed the same way. One table per example: config, registers, spilled bytes,
error, us, TFLOP/s or GB/s, % of the copy rate, and the peer's time over ours (>1: faster than
the peer).

    python3 bench/examples_dev.py                      # the configs below, every example
    python3 bench/examples_dev.py --only gemm --set sweep --jobs 16

The config lists here are hand-kept (this script does not read the space files' expressions);
their parameter names are the macros the space files define, and the *_ok functions mirror the
space files' constraints (the counts agree with `tuner space --backend` on an H100). --set best
is a short list of the configs expected near the top, to re-measure winners quickly; --set
sweep explores (GEMM: hand-picked tile families plus a seeded sample of the space, the 12
fastest at 4096^3 then timed on the other shapes). Needs torch, cupy and a CUDA GPU; writes
examples_dev.json under $OUT when OUT is set.
"""
import argparse
import concurrent.futures as cf
import importlib.util
import itertools
import json
import math
import multiprocessing as mp
import os
import random
import statistics
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples"

# H100 device attributes the constraints read (checked against the device at run time)
MAX_THREADS, REGS_PER_SM = 1024, 65536

# the space files' problems
GEMM_PROBLEMS = [{"M": 4096, "N": 4096, "K": 4096}, {"M": 8192, "N": 2048, "K": 4096},
                 {"M": 2048, "N": 8192, "K": 1024}]
CONV_PROBLEMS = [{"H": 4096, "W": 4096, "R": 17}]
SOFTMAX_PROBLEMS = [{"rows": 8192, "cols": 4096}, {"rows": 65536, "cols": 512}, {"rows": 4096, "cols": 32768}]


# ---------------------------------------------------------------- configs

def gemm_threads(c):
    return 32 * (c["BM"] // (c["TY"] * c["TM"])) * (c["BN"] // ((32 // c["TY"]) * c["TN"]))


def gemm_smem(c):
    a = c["BK"] * (c["BM"] + c["PAD_A"]) if c["A_T"] else c["BM"] * (c["BK"] + c["PAD_A"])
    return 4 * c["STAGES"] * (a + c["BK"] * c["BN"])


def gemm_ok(c, prob, smem_block, smem_sm):
    """sgemm.yaml's constraints, in Python."""
    BM, BN, BK, TM, TN, TY = (c[k] for k in ("BM", "BN", "BK", "TM", "TN", "TY"))
    if BM % (TY * TM) or BN % ((32 // TY) * TN):
        return False
    if prob["M"] % BM or prob["N"] % BN or prob["K"] % BK:
        return False
    nt = gemm_threads(c)
    if nt > MAX_THREADS or (BM * BK // 4) % nt or (BK * BN // 4) % nt:
        return False
    if TM * TN > 128 or TM * TN + 2 * (TM + TN) + 16 > min(255, REGS_PER_SM // (nt * c["MINB"])):
        return False
    if c["LOAD"] == 0 and c["STAGES"] != 2:
        return False
    s = gemm_smem(c)
    return s <= smem_block and (c["MINB"] == 1 or 2 * (s + 1024) <= smem_sm)


def gemm_defines(c):
    d = {k: c[k] for k in ("BM", "BN", "BK", "TM", "TN", "STAGES", "LOAD", "A_T", "PAD_A", "GROUP", "MINB")}
    d["WM"] = c["TY"] * c["TM"]
    d["WN"] = (32 // c["TY"]) * c["TN"]
    return d


def G(BM, BN, BK, TM, TN, TY, STAGES, LOAD, A_T=1, PAD_A=4, GROUP=8, MINB=1):
    return dict(BM=BM, BN=BN, BK=BK, TM=TM, TN=TN, TY=TY, STAGES=STAGES, LOAD=LOAD, A_T=A_T,
                PAD_A=PAD_A, GROUP=GROUP, MINB=MINB)


GEMM_BEST = [
    G(128, 128, 8, 8, 8, 4, 2, 0, MINB=2),
    G(128, 128, 8, 8, 8, 4, 3, 1, MINB=2),
    G(128, 128, 16, 8, 8, 4, 3, 1),
    G(128, 256, 8, 8, 16, 8, 3, 1),
    G(256, 128, 8, 16, 8, 4, 3, 1),
]


def gemm_sweep(smem_block, smem_sm):
    """Hand-picked families around the CUTLASS-style SIMT tiles, then a seeded sample of the
    space's remaining configs."""
    picked = []
    for (BM, BN, TM, TN, TY) in [(128, 128, 8, 8, 4), (128, 128, 8, 8, 8), (128, 256, 8, 16, 8),
                                 (256, 128, 16, 8, 4), (128, 128, 8, 16, 8), (64, 128, 8, 8, 4),
                                 (128, 64, 8, 8, 4), (256, 128, 8, 8, 4), (128, 256, 8, 8, 4),
                                 (256, 256, 16, 16, 4)]:
        for BK in (8, 16):
            for (LOAD, STAGES) in ((0, 2), (1, 2), (1, 3), (1, 4)):
                for MINB in (1, 2):
                    picked.append(G(BM, BN, BK, TM, TN, TY, STAGES, LOAD, MINB=MINB))
    for A_T, PAD_A, GROUP in ((0, 4, 8), (1, 0, 8), (1, 4, 1), (0, 0, 8)):
        for (LOAD, STAGES) in ((0, 2), (1, 3)):
            picked.append(G(128, 128, 8, 8, 8, 4, STAGES, LOAD, A_T, PAD_A, GROUP, 2))
            picked.append(G(128, 256, 8, 8, 16, 8, STAGES, LOAD, A_T, PAD_A, GROUP, 1))
    space = [dict(zip(("BM", "BN", "BK", "TM", "TN", "TY", "STAGES", "LOAD", "A_T", "PAD_A", "GROUP", "MINB"), v))
             for v in itertools.product((32, 64, 128, 256), (32, 64, 128, 256), (8, 16, 32), (4, 8, 16),
                                        (4, 8, 16), (2, 4, 8, 16), (2, 3, 4), (0, 1), (0, 1), (0, 4),
                                        (1, 8), (1, 2))]
    space = [c for c in space if gemm_ok(c, GEMM_PROBLEMS[0], smem_block, smem_sm)]
    rnd = random.Random(1)
    out, seen = [], set()
    for c in picked + rnd.sample(space, 40):
        key = tuple(sorted(c.items()))
        if key not in seen and gemm_ok(c, GEMM_PROBLEMS[0], smem_block, smem_sm):
            seen.add(key)
            out.append(c)
    return out, len(space)


def conv_ok(c, prob, smem_block):
    BX, BY, OX, OY, R = c["BX"], c["BY"], c["OX"], c["OY"], prob["R"]
    if (R - 1) % 4 or prob["W"] % BX or prob["H"] % BY or prob["W"] % 4 or BX % OX or BY % OY:
        return False
    nt = (BX // OX) * (BY // OY)
    if nt < 32 or nt > MAX_THREADS or OX * OY > 64:
        return False
    if c["SMEM_IN"] == 0 and c["PAD"] != 0:
        return False
    return conv_smem(c, prob) <= smem_block


def conv_smem(c, prob):
    R = prob["R"]
    tile = (c["BY"] + R - 1) * (c["BX"] + R - 1 + c["PAD"]) if c["SMEM_IN"] else 0
    return 4 * (R * ((R + 3) // 4 * 4) + tile)


def C2(BX, BY, OX, OY, SMEM_IN=1, PAD=0, UNROLL=1):
    return dict(BX=BX, BY=BY, OX=OX, OY=OY, SMEM_IN=SMEM_IN, PAD=PAD, UNROLL=UNROLL)


CONV_BEST = [C2(128, 64, 8, 4), C2(128, 64, 8, 8), C2(64, 64, 16, 4), C2(128, 32, 8, 4, 0)]


def conv_sweep():
    out = []
    for BX, BY in ((64, 32), (64, 64), (128, 32), (128, 64), (128, 128), (256, 32), (256, 64)):
        for OX, OY in ((4, 4), (4, 8), (8, 2), (8, 4), (8, 8), (16, 2), (16, 4)):
            out.append(C2(BX, BY, OX, OY))
    for c in (C2(128, 64, 8, 4), C2(128, 64, 8, 8), C2(64, 64, 16, 4)):
        out += [dict(c, SMEM_IN=0), dict(c, PAD=4), dict(c, UNROLL=2), dict(c, UNROLL=4)]
    return out


def softmax_ok(c, prob, dtype_size):
    TPR, BLOCK, VEC, ITEMS, cols = c["TPR"], c["BLOCK"], c["VEC"], c["ITEMS"], prob["cols"]
    if BLOCK % TPR or BLOCK > MAX_THREADS or VEC * dtype_size not in (4, 8, 16) or cols % VEC:
        return False
    if TPR * VEC > cols:
        return False
    if c["PASSES"] == 1:
        return TPR * VEC * ITEMS >= cols and TPR * VEC * (ITEMS - 1) < cols and ITEMS * VEC <= 64
    return c["ONLINE"] == 1 and TPR >= 32 and 2 * TPR * VEC * ITEMS <= cols and ITEMS * VEC <= 32


def S(TPR, BLOCK, VEC, ONLINE=1, CS=0, PASSES=1, ITEMS=0):
    """ITEMS 0: the whole row (PASSES 1), from the problem"""
    return dict(TPR=TPR, BLOCK=BLOCK, VEC=VEC, ITEMS=ITEMS, PASSES=PASSES, ONLINE=ONLINE, CS=CS)


def softmax_items(c, prob):
    return c["ITEMS"] or -(-prob["cols"] // (c["TPR"] * c["VEC"]))


SOFTMAX_BEST = [S(32, 256, 4), S(32, 256, 8), S(256, 256, 4), S(256, 256, 8), S(512, 512, 4),
                S(512, 512, 8), S(1024, 1024, 4), S(1024, 1024, 8),
                S(256, 256, 4, PASSES=2, ITEMS=4), S(256, 256, 8, PASSES=2, ITEMS=2),
                S(512, 512, 4, PASSES=2, ITEMS=4, CS=1), S(512, 512, 8, PASSES=2, ITEMS=2, CS=1)]


def softmax_sweep():
    out = []
    for TPR in (16, 32, 64, 128, 256, 512, 1024):
        for BLOCK in (128, 256, 512, 1024):
            for VEC in (2, 4, 8):
                if BLOCK >= TPR:
                    out.append(S(TPR, BLOCK, VEC))
    for c in (S(32, 256, 4), S(256, 256, 4), S(1024, 1024, 4), S(32, 256, 8), S(1024, 1024, 8)):
        out += [dict(c, ONLINE=0), dict(c, CS=1)]
    for TPR, BLOCK in ((128, 128), (128, 256), (256, 256), (256, 512), (512, 512), (1024, 1024)):
        for VEC, ITEMS in ((4, 2), (4, 4), (4, 8), (8, 2), (8, 4)):
            for CS in (0, 1):
                out.append(S(TPR, BLOCK, VEC, CS=CS, PASSES=2, ITEMS=ITEMS))
    return out


# ---------------------------------------------------------------- compiling

def compile_one(job):
    """In a worker process: compile one (source, options, name expression) into CuPy's cache."""
    code, options, name = job
    import cupy
    t = time.time()
    try:
        mod = cupy.RawModule(code=code, options=options, name_expressions=[name] if "<" in name else None)
        mod.get_function(name)
        return None, time.time() - t
    except Exception as e:   # a config that does not compile is reported, not fatal
        return f"{type(e).__name__}: {str(e).strip().splitlines()[0][:300]}", time.time() - t


class Compiler:
    def __init__(self, jobs):
        self.jobs = jobs
        self.errors = {}
        self.modules = {}

    def prebuild(self, jobs):
        jobs = list(dict.fromkeys(jobs))
        t = time.time()
        with cf.ProcessPoolExecutor(max_workers=self.jobs, mp_context=mp.get_context("spawn")) as ex:
            for job, (err, _) in zip(jobs, ex.map(compile_one, jobs)):
                if err:
                    self.errors[job] = err
        print(f"compiled {len(jobs)} variants in {time.time() - t:.1f} s on {self.jobs} processes"
              f" ({len(self.errors)} failed)", flush=True)

    def get(self, job):
        """(kernel, None) or (None, error)"""
        import cupy
        if job in self.errors:
            return None, self.errors[job]
        code, options, name = job
        try:
            mod = cupy.RawModule(code=code, options=options, name_expressions=[name] if "<" in name else None)
            return mod.get_function(name), None
        except Exception as e:
            return None, f"{type(e).__name__}: {str(e).strip().splitlines()[0][:300]}"


def job_for(source, defines, name, extra=()):
    code = source.read_text()
    opts = tuple(extra) + tuple(f"-D{k}={v}" for k, v in defines.items())   # NVRTC's default: C++17
    return (code, opts, name)


# ---------------------------------------------------------------- timing

class Timer:
    """CUDA events around the call only; 2 x L2 overwritten (cudaMemsetAsync) before every timed
    run; warm-up; median of runs."""

    def __init__(self, runs, warmup=3):
        import cupy
        import torch
        self.torch, self.rt = torch, cupy.cuda.runtime
        l2 = torch.cuda.get_device_properties(0).L2_cache_size
        self.flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
        self.runs, self.warmup = runs, warmup
        self.start = torch.cuda.Event(enable_timing=True)
        self.stop = torch.cuda.Event(enable_timing=True)

    def time(self, fn, runs=None):
        torch = self.torch
        for _ in range(self.warmup):
            fn()
        torch.cuda.synchronize()
        stream = torch.cuda.current_stream().cuda_stream
        samples = []
        for r in range(runs or self.runs):
            self.rt.memsetAsync(self.flush.data_ptr(), (r + 1) & 0xFF, self.flush.numel(), stream)
            self.start.record()
            fn()
            self.stop.record()
            self.stop.synchronize()
            samples.append(self.start.elapsed_time(self.stop) * 1000.0)
        return statistics.median(samples)

    def copy_us(self, nbytes):
        torch = self.torch
        a = torch.empty(nbytes, dtype=torch.uint8, device="cuda").random_(0, 255)
        b = torch.empty_like(a)
        stream = torch.cuda.current_stream().cuda_stream
        t = self.time(lambda: self.rt.memcpyAsync(b.data_ptr(), a.data_ptr(), nbytes, 3, stream))
        del a, b
        return t


def load_peer(folder):
    spec = importlib.util.spec_from_file_location(f"peer_{folder.name}", folder / "peer.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.peer


def rel_err(out, ref):
    torch = sys.modules["torch"]
    d = out.double()
    if not torch.isfinite(d).all():
        return math.inf
    return ((d - ref).abs().max() / ref.abs().max()).item()


def fmt_cfg(c):
    return ",".join(f"{k}={v}" for k, v in c.items())


def table(title, rows, cols):
    print(f"\n== {title}")
    widths = [max(len(h), *(len(str(r.get(k, ""))) for r in rows)) if rows else len(h) for h, k in cols]
    print("  ".join(h.rjust(w) if i > 1 else h.ljust(w) for i, ((h, _), w) in enumerate(zip(cols, widths))))
    for r in rows:
        print("  ".join(str(r.get(k, "")).rjust(w) if i > 1 else str(r.get(k, "")).ljust(w)
                        for i, ((_, k), w) in enumerate(zip(cols, widths))), flush=True)


# ---------------------------------------------------------------- the examples

def run_gemm(cfgs, timer, comp, results, top):
    import cupy
    import numpy as np
    import torch
    src = EX / "gemm" / "sgemm.cu"
    peer = load_peer(EX / "gemm")
    rows = []
    for pi, prob in enumerate(GEMM_PROBLEMS):
        M, N, K = prob["M"], prob["N"], prob["K"]
        flops = 2.0 * M * N * K
        A = torch.empty(M, K, device="cuda").uniform_(-1, 1)
        B = torch.empty(K, N, device="cuda").uniform_(-1, 1)
        C = torch.empty(M, N, device="cuda")
        ref = A.double() @ B.double()
        name, fn = peer(prob, "f32")
        peer_us = timer.time(fn)
        del fn
        shape = f"{M}x{N}x{K}"
        rows.append(dict(shape=shape, config=name, us=f"{peer_us:.1f}",
                         tflops=f"{flops / peer_us / 1e6:.1f}", ratio="1.00", _ref=1))
        a, b, c = cupy.asarray(A), cupy.asarray(B), cupy.asarray(C)
        todo = [x for x in cfgs if gemm_ok(x, prob, timer.smem_block, timer.smem_sm)]
        if pi > 0 and top:
            # later shapes: only the configs that did best on the first
            todo = [x for x in todo if fmt_cfg(x) in top]
        mine = []
        for cfg in todo:
            k, err = comp.get(job_for(src, gemm_defines(cfg), "sgemm"))
            r = dict(shape=shape, config=fmt_cfg(cfg))
            if k is None:
                r["err"] = "compile: " + err
                rows.append(r)
                continue
            smem = gemm_smem(cfg)
            k.max_dynamic_shared_size_bytes = smem
            grid, block = ((M // cfg["BM"]) * (N // cfg["BN"]),), (gemm_threads(cfg),)
            args = (c, a, b, np.int32(M), np.int32(N), np.int32(K))
            launch = lambda: k(grid, block, args, shared_mem=smem)
            r["regs"], r["spill"] = k.num_regs, k.local_size_bytes
            C.fill_(float("nan"))
            try:
                launch()
                torch.cuda.synchronize()
            except Exception as e:
                r["err"] = f"launch: {e}"
                rows.append(r)
                continue
            e = rel_err(C, ref)
            r["err"] = f"{e:.1e}"
            if not e <= 1e-5:
                r["err"] += " FAIL"
                rows.append(r)
                continue
            us = timer.time(launch)
            r.update(us=f"{us:.1f}", tflops=f"{flops / us / 1e6:.1f}", ratio=f"{peer_us / us:.2f}", _us=us)
            rows.append(r)
            mine.append((us, r["config"]))
        if pi == 0 and len(cfgs) > 12:
            top = {cfg for _, cfg in sorted(mine)[:12]}
        del A, B, C, ref, a, b, c
        torch.cuda.empty_cache()
    results["gemm"] = rows
    table("gemm: C = A * B, f32, TF32 off (ratio = peer us / ours)", sorted_rows(rows),
          [("shape", "shape"), ("config", "config"), ("regs", "regs"), ("spill", "spill"),
           ("err", "err"), ("us", "us"), ("TFLOP/s", "tflops"), ("x peer", "ratio")])


def sorted_rows(rows):
    """the peer and the copy first, then ours fastest first, failures last; per shape in input order"""
    order = list(dict.fromkeys(r["shape"] for r in rows))
    out = []
    for s in order:
        rs = [r for r in rows if r["shape"] == s]
        out += sorted(rs, key=lambda r: (r.get("_ref", 9), r.get("_us", math.inf)))
    return out


def run_conv(cfgs, timer, comp, results):
    import cupy
    import numpy as np
    import torch
    src = EX / "conv2d" / "conv2d.cu"
    peer = load_peer(EX / "conv2d")
    rows = []
    for prob in CONV_PROBLEMS:
        H, W, R = prob["H"], prob["W"], prob["R"]
        flops = 2.0 * H * W * R * R
        X = torch.empty(H + R - 1, W + R - 1, device="cuda").uniform_(-1, 1)
        F = torch.empty(R, R, device="cuda").uniform_(-1, 1)
        O = torch.empty(H, W, device="cuda")
        ref = torch.nn.functional.conv2d(X.double()[None, None], F.double()[None, None])[0, 0]
        name, fn = peer(prob, "f32")
        peer_us = timer.time(fn)
        del fn
        shape = f"{H}x{W} R={R}"
        rows.append(dict(shape=shape, config=name, us=f"{peer_us:.1f}",
                         tflops=f"{flops / peer_us / 1e6:.2f}", ratio="1.00", _ref=1))
        x, f, o = cupy.asarray(X), cupy.asarray(F), cupy.asarray(O)
        for cfg in [c for c in cfgs if conv_ok(c, prob, timer.smem_block)]:
            k, err = comp.get(job_for(src, dict(FR=R, **cfg), "conv2d"))
            r = dict(shape=shape, config=fmt_cfg(cfg))
            if k is None:
                r["err"] = "compile: " + err
                rows.append(r)
                continue
            smem = conv_smem(cfg, prob)
            k.max_dynamic_shared_size_bytes = smem
            grid, block = (W // cfg["BX"], H // cfg["BY"]), ((cfg["BX"] // cfg["OX"]) * (cfg["BY"] // cfg["OY"]),)
            args = (o, x, f, np.int32(H), np.int32(W))
            launch = lambda: k(grid, block, args, shared_mem=smem)
            r["regs"], r["spill"] = k.num_regs, k.local_size_bytes
            O.fill_(float("nan"))
            try:
                launch()
                torch.cuda.synchronize()
            except Exception as ex:
                r["err"] = f"launch: {ex}"
                rows.append(r)
                continue
            e = rel_err(O, ref)
            r["err"] = f"{e:.1e}"
            if not e <= 1e-5:
                r["err"] += " FAIL"
                rows.append(r)
                continue
            us = timer.time(launch)
            r.update(us=f"{us:.1f}", tflops=f"{flops / us / 1e6:.2f}", ratio=f"{peer_us / us:.2f}", _us=us)
            rows.append(r)
        del X, F, O, ref, x, f, o
        torch.cuda.empty_cache()
    results["conv2d"] = rows
    table("conv2d: single channel f32, valid cross-correlation (ratio = peer us / ours)", sorted_rows(rows),
          [("shape", "shape"), ("config", "config"), ("regs", "regs"), ("spill", "spill"),
           ("err", "err"), ("us", "us"), ("TFLOP/s", "tflops"), ("x peer", "ratio")])


def run_softmax(cfgs, timer, comp, results):
    import cupy
    import numpy as np
    import torch
    src = EX / "softmax" / "softmax.cu"
    peer = load_peer(EX / "softmax")
    inc = cuda_include()
    rows = []
    for dt, tdt, ctype, size in (("f32", torch.float32, "float", 4), ("f16", torch.float16, "__half", 2)):
        for prob in SOFTMAX_PROBLEMS:
            nr, nc = prob["rows"], prob["cols"]
            nbytes = 2 * nr * nc * size
            copy_us = timer.copy_us(nr * nc * size)
            X = torch.empty(nr, nc, device="cuda").uniform_(-2, 2).to(tdt)
            Y = torch.empty(nr, nc, device="cuda", dtype=tdt)
            ref = torch.softmax(X.double(), dim=-1)
            name, fn = peer(prob, dt)
            peer_us = timer.time(fn)
            del fn
            shape = f"{dt} {nr}x{nc}"
            rows.append(dict(shape=shape, config=name, us=f"{peer_us:.1f}",
                             gbps=f"{nbytes / peer_us / 1e3:.0f}", pct=f"{100 * copy_us / peer_us:.1f}",
                             ratio="1.00", _ref=1))
            rows.append(dict(shape=shape, config="cudaMemcpyAsync D2D, same size", us=f"{copy_us:.1f}",
                             gbps=f"{nbytes / copy_us / 1e3:.0f}", pct="100.0", _ref=2))
            x, y = cupy.asarray(X), cupy.asarray(Y)
            tol = 1e-5 if dt == "f32" else 1e-3
            for cfg in cfgs:
                cfg = dict(cfg, ITEMS=softmax_items(cfg, prob))
                if not softmax_ok(cfg, prob, size):
                    continue
                k, err = comp.get(job_for(src, cfg, f"softmax<{ctype}>", inc))
                r = dict(shape=shape, config=fmt_cfg(cfg))
                if k is None:
                    r["err"] = "compile: " + err
                    rows.append(r)
                    continue
                grid, block = (-(-nr // (cfg["BLOCK"] // cfg["TPR"])),), (cfg["BLOCK"],)
                args = (y, x, np.int32(nr), np.int32(nc))
                launch = lambda: k(grid, block, args)
                r["regs"], r["spill"] = k.num_regs, k.local_size_bytes
                Y.fill_(float("nan"))
                try:
                    launch()
                    torch.cuda.synchronize()
                except Exception as ex:
                    r["err"] = f"launch: {ex}"
                    rows.append(r)
                    continue
                e = rel_err(Y, ref)
                r["err"] = f"{e:.1e}"
                if not e <= tol:
                    r["err"] += " FAIL"
                    rows.append(r)
                    continue
                us = timer.time(launch)
                r.update(us=f"{us:.1f}", gbps=f"{nbytes / us / 1e3:.0f}", pct=f"{100 * copy_us / us:.1f}",
                         ratio=f"{peer_us / us:.2f}", _us=us)
                rows.append(r)
            del X, Y, ref, x, y
            torch.cuda.empty_cache()
    results["softmax"] = rows
    table("softmax: rows, f32 and f16 (GB/s = read once + write once; % of a same-size D2D copy)",
          sorted_rows(rows), [("shape", "shape"), ("config", "config"), ("regs", "regs"),
                              ("spill", "spill"), ("err", "err"), ("us", "us"), ("GB/s", "gbps"),
                              ("% copy", "pct"), ("x peer", "ratio")])


def cuda_include():
    import cupy
    path = cupy.cuda.get_cuda_path()
    for p in (os.path.join(path, "include") if path else None, "/usr/local/cuda/include"):
        if p and os.path.exists(os.path.join(p, "cuda_fp16.h")):
            return (f"-I{p}",)
    return ()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="gemm,conv2d,softmax", help="comma-separated examples")
    ap.add_argument("--set", choices=["best", "sweep"], default="best", help="which config lists")
    ap.add_argument("--runs", type=int, default=20, help="timed runs per median (default 20)")
    ap.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 1), help="compiler processes")
    args = ap.parse_args()
    os.environ.setdefault("CUPY_CACHE_DIR", tempfile.mkdtemp(prefix="examples_dev_cupy_"))
    import cupy
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    t0 = time.time()
    props = torch.cuda.get_device_properties(0)
    dev = cupy.cuda.Device(0)
    smem_block = dev.attributes["MaxSharedMemoryPerBlockOptin"]
    smem_sm = dev.attributes["MaxSharedMemoryPerMultiprocessor"]
    if (dev.attributes["MaxThreadsPerBlock"], dev.attributes["MaxRegistersPerMultiprocessor"]) != (MAX_THREADS, REGS_PER_SM):
        print("examples_dev.py: note: this GPU's thread or register limits differ from the ones the"
              " config filters assume (1024 threads per block, 65536 registers per SM)")
    only = args.only.split(",")
    timer = Timer(args.runs)
    timer.smem_block, timer.smem_sm = smem_block, smem_sm
    copy1g = timer.copy_us(1 << 30)
    print(f"{props.name}: {props.multi_processor_count} SMs, L2 {props.L2_cache_size >> 20} MiB, "
          f"smem/block {smem_block}, torch {torch.__version__}, cupy {cupy.__version__}, "
          f"1 GiB D2D copy {2 * (1 << 30) / copy1g / 1e3:.0f} GB/s (cold, median of {args.runs})", flush=True)

    sets = {}
    if "gemm" in only:
        if args.set == "sweep":
            sets["gemm"], n = gemm_sweep(smem_block, smem_sm)
            print(f"gemm: {n} configs allowed at 4096^3 by the space's constraints; sweeping {len(sets['gemm'])}")
        else:
            sets["gemm"] = GEMM_BEST
    if "conv2d" in only:
        sets["conv2d"] = conv_sweep() if args.set == "sweep" else CONV_BEST
    if "softmax" in only:
        sets["softmax"] = softmax_sweep() if args.set == "sweep" else SOFTMAX_BEST

    jobs = []
    for c in sets.get("gemm", []):
        if any(gemm_ok(c, p, smem_block, smem_sm) for p in GEMM_PROBLEMS):
            jobs.append(job_for(EX / "gemm" / "sgemm.cu", gemm_defines(c), "sgemm"))
    for c in sets.get("conv2d", []):
        for p in CONV_PROBLEMS:
            if conv_ok(c, p, smem_block):
                jobs.append(job_for(EX / "conv2d" / "conv2d.cu", dict(FR=p["R"], **c), "conv2d"))
    if "softmax" in sets:
        inc = cuda_include()
        for c in sets["softmax"]:
            for ctype, size in (("float", 4), ("__half", 2)):
                for p in SOFTMAX_PROBLEMS:
                    cc = dict(c, ITEMS=softmax_items(c, p))
                    if softmax_ok(cc, p, size):
                        jobs.append(job_for(EX / "softmax" / "softmax.cu", cc, f"softmax<{ctype}>", inc))
    comp = Compiler(args.jobs)
    comp.prebuild(jobs)

    results = {}
    runners = {"gemm": lambda: run_gemm(sets["gemm"], timer, comp, results, None),
               "conv2d": lambda: run_conv(sets["conv2d"], timer, comp, results),
               "softmax": lambda: run_softmax(sets["softmax"], timer, comp, results)}
    failed = 0
    for name in sets:
        try:
            runners[name]()
        except Exception:   # one broken example does not hide the others' tables
            failed += 1
            print(f"\nexamples_dev.py: {name} failed:\n{traceback.format_exc()}", flush=True)
    print(f"\nexamples_dev.py: {time.time() - t0:.0f} s; {props.name}; median of {args.runs} cold runs", flush=True)
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "examples_dev.json"), "w") as fh:
            json.dump({"device": props.name, "runs": args.runs, "results": results}, fh, indent=1, default=str)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
