#!/usr/bin/env python3
"""peers.py: times PyTorch on the problems a tuner run stored, the way the tuner times its own
variants (CUDA events around the call only, warm-up, L2 overwritten before every timed run, the
stream held after the flush until the call is queued, repeat until the median's 95% confidence
interval is within rel_ci, median reported), and stores
the figures in the same database's `peers` table, with the device-to-device copy ceiling measured
in the same process. Run it on the GPU machine right after `tuner run`, in the same job:

    build/tuner run spaces/elementwise.yaml --db tunekit.db
    python3 scripts/peers.py --db tunekit.db [--op elementwise.mul] [--dtype f32]

Then `tuner best`, `tuner report` and the dump carry PyTorch's times beside tunekit's.
Inputs are random (never zeros), drawn per problem; offsets shift the views like the tuner's.

A user kernel's space names its own peer (docs/user-kernels.md: `kernel.peer`, a Python file
whose `peer(problem, dtype)` returns `(name, fn)`); give the space with --space:

    python3 scripts/peers.py --db tunekit.db --space examples/gemm/sgemm.yaml
"""
import argparse
import datetime
import importlib.util
import math
import os
import sqlite3
import subprocess
import sys

import torch

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


def parse_shape(text):
    out = {}
    for kv in text.split(","):
        k, v = kv.split("=", 1)
        out[k] = int(v) if v.lstrip("-").isdigit() else v
    return out


def rand(n, dtype, offset=0):
    base = torch.empty(n + offset + 16, dtype=dtype, device="cuda").uniform_(-4, 4)
    return base[offset:offset + n]


# op -> (library label, builder(shape, dtype) returning a zero-argument callable)
def ew_unary(fn):
    def build(s, dt):
        x = rand(s["n"], dt, s.get("offset", 0))
        return lambda: fn(x)
    return build


def ew_binary(fn):
    def build(s, dt):
        a, b = rand(s["n"], dt, s.get("offset", 0)), rand(s["n"], dt, s.get("offset", 0))
        y = rand(s["n"], dt, s.get("offset", 0))
        return lambda: fn(a, b, out=y)
    return build


def ew_fma(s, dt):
    x, y, z = (rand(s["n"], dt, s.get("offset", 0)) for _ in range(3))
    out = rand(s["n"], dt, s.get("offset", 0))
    return lambda: torch.addcmul(z, x, y, out=out)


PEERS = {
    "elementwise.mul": ("torch.mul", ew_binary(torch.mul)),
    "elementwise.add": ("torch.add", ew_binary(torch.add)),
    "elementwise.fma": ("torch.addcmul", ew_fma),
    "elementwise.relu": ("torch.relu", ew_unary(torch.relu)),
    "elementwise.gelu": ("torch.nn.functional.gelu", ew_unary(torch.nn.functional.gelu)),
}


# upsample: nearest 2x forward and backward on NCHW problems {N, C, H, W} (the input's sizes),
# as autograd runs them: F.interpolate(scale_factor=2) and the aten backward it records.
def up_forward(s, dt):
    x = torch.empty(s["N"], s["C"], s["H"], s["W"], dtype=dt, device="cuda").uniform_(-4, 4)
    return lambda: torch.nn.functional.interpolate(x, scale_factor=2, mode="nearest")


def up_backward(s, dt):
    n, c, h, w = s["N"], s["C"], s["H"], s["W"]
    dy = torch.empty(n, c, 2 * h, 2 * w, dtype=dt, device="cuda").uniform_(-4, 4)
    return lambda: torch.ops.aten.upsample_nearest2d_backward(dy, [2 * h, 2 * w], [n, c, h, w], 2.0, 2.0)


PEERS["upsample.nearest2x_fwd"] = ("torch.nn.functional.interpolate", up_forward)
PEERS["upsample.nearest2x_bwd"] = ("torch.ops.aten.upsample_nearest2d_backward", up_backward)


# reduce: sum, max and min of n elements into one value. tunekit accumulates in float and writes
# a float for every dtype, so the f16/bf16 sum is torch.sum(x, dtype=torch.float32) (the same
# float accumulation and output); torch.amax/amin return the input dtype, which holds the exact
# maximum/minimum of 16-bit inputs anyway.
def red_sum(s, dt):
    x = rand(s["n"], dt, s.get("offset", 0))
    return lambda: torch.sum(x, dtype=torch.float32)


def red_extreme(fn):
    def build(s, dt):
        x = rand(s["n"], dt, s.get("offset", 0))
        return lambda: fn(x)
    return build


PEERS["reduce.sum"] = ("torch.sum", red_sum)
PEERS["reduce.max"] = ("torch.amax", red_extreme(torch.amax))
PEERS["reduce.min"] = ("torch.amin", red_extreme(torch.amin))


# conv1d: the full 1-D convolution of len_a and len_b f32 samples as cuDNN computes it through
# torch.nn.functional.conv1d. That is a cross-correlation, so the filter is flipped (once, outside
# the timed call, as stored weights would be) and padded by len_b - 1 on both sides: the
# len_a + len_b - 1 outputs of the full convolution. cuDNN picks its algorithm by benchmarking
# (cudnn.benchmark, during the warm-up) and computes in true f32 (no TF32), as tunekit does.
def conv1d_full(s, dt):
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False
    probe = torch.nn.functional.conv1d(torch.tensor([[[1.0, 2.0, 3.0]]], device="cuda"),
                                       torch.tensor([[[1.0, -1.0]]], device="cuda").flip(-1),
                                       padding=1)
    assert probe.flatten().tolist() == [1.0, 1.0, 1.0, -3.0], "conv1d is not the full convolution"
    la, lb = s["len_a"], s["len_b"]
    a = torch.empty(1, 1, la, dtype=dt, device="cuda").uniform_(-1, 1)
    w = torch.empty(lb, dtype=dt, device="cuda").uniform_(-1, 1).flip(0).reshape(1, 1, lb).contiguous()
    return lambda: torch.nn.functional.conv1d(a, w, padding=lb - 1)


PEERS["conv1d.full"] = ("torch.nn.functional.conv1d (cuDNN)", conv1d_full)


# atomic: dot of x and y (f16/bf16 views at the problem's offset), the write-up's benchmark of
# half atomics; PyTorch's answer is torch.dot (a new one-element tensor: tunekit adds into one).
def atomic_dot(s, dt):
    x, y = rand(s["n"], dt, s.get("offset", 0)), rand(s["n"], dt, s.get("offset", 0))
    return lambda: torch.dot(x, y)


PEERS["atomic.dot"] = ("torch.dot", atomic_dot)


# index_add: self.index_add_(dim, index, source, alpha=0.75) in place on the harness's problems
# {self0..self7 (leading non-zero sizes), dim, n_index, index_range (0: the whole dimension),
# idx64, offset (self and source shifted by that many elements)}; indices drawn uniformly.
def index_add(s, dt):
    dims = []
    for k in range(8):
        if s.get(f"self{k}", 0) == 0:
            break
        dims.append(s[f"self{k}"])
    dim, n_index, off = s.get("dim", 0), s["n_index"], s.get("offset", 0)
    high = s.get("index_range", 0) or dims[dim]
    src_dims = list(dims)
    src_dims[dim] = n_index
    x = torch.empty(math.prod(dims) + off, dtype=dt, device="cuda").uniform_(-1, 1)[off:].view(dims)
    t = torch.empty(math.prod(src_dims) + off, dtype=dt, device="cuda").uniform_(-1, 1)[off:].view(src_dims)
    itype = torch.int64 if s.get("idx64", 1) else torch.int32
    index = torch.randint(0, high, (n_index,), device="cuda", dtype=itype)
    return lambda: x.index_add_(dim, index, t, alpha=0.75)


PEERS["index_add.add"] = ("Tensor.index_add_", index_add)


# relu_mask: ReLU / Add+ReLU forward and backward as eager PyTorch runs them (ResNet's
# `out += identity; out = relu(out)` and autograd's threshold_backward(grad, result, 0), which
# reads y: PyTorch keeps no mask). tunekit's masked forward also writes the bitmask, and its
# add_relu_bwd also writes the addend's gradient to its own buffer, so the peer of that op copies
# the gradient once more (autograd itself would hand the same tensor to both inputs).
def rm_relu_fwd(s, dt):
    x = rand(s["n"], dt, s.get("offset", 0))
    return lambda: torch.relu(x)


def rm_add_relu_fwd(s, dt):
    x, a, y = (rand(s["n"], dt, s.get("offset", 0)) for _ in range(3))
    return lambda: torch.relu_(torch.add(x, a, out=y))


def rm_backward(copy_addend_grad):
    def build(s, dt):
        dy = rand(s["n"], dt, s.get("offset", 0))
        y = rand(s["n"], dt, s.get("offset", 0)).relu_()   # y = relu(.), at the same offset
        da = rand(s["n"], dt, s.get("offset", 0))
        if not copy_addend_grad:
            return lambda: torch.ops.aten.threshold_backward(dy, y, 0)
        return lambda: da.copy_(torch.ops.aten.threshold_backward(dy, y, 0))
    return build


PEERS["relu_mask.relu_fwd"] = ("torch.relu", rm_relu_fwd)
PEERS["relu_mask.add_relu_fwd"] = ("torch.add + torch.relu_", rm_add_relu_fwd)
PEERS["relu_mask.relu_bwd"] = ("torch.ops.aten.threshold_backward", rm_backward(False))
PEERS["relu_mask.add_relu_bwd"] = ("threshold_backward + copy_ to the addend's gradient",
                                   rm_backward(True))


def median_ci(samples):
    """The distribution-free 95% CI of the median (tuner/core/stats.c computes the same)."""
    s = sorted(samples)
    n = len(s)
    def cdf(k):
        return sum(math.comb(n, i) for i in range(k + 1)) / 2.0 ** n
    lo = 1
    while lo + 1 <= n and cdf(lo) <= 0.025:
        lo += 1
    med = (s[(n - 1) // 2] + s[n // 2]) / 2
    return med, s[lo - 1], s[n - lo]


def runtime_calls():
    """cudaMemsetAsync and cudaMemcpyAsync (device to device), the calls the tuner flushes L2 and
    measures the copy ceiling with, through CuPy's CUDA runtime bindings; None without CuPy (then
    torch's fill_ and copy_ stand in: a fill kernel and a copy that need not leave L2 as the
    tuner's memset does, so the comparison is less exact, and main() says so)."""
    try:
        import cupy
        rt = cupy.cuda.runtime
        rt.getDeviceCount()
    except Exception:
        return None
    return (lambda ptr, value, n, stream: rt.memsetAsync(ptr, value, n, stream),
            lambda dst, src, n, stream: rt.memcpyAsync(dst, src, n, 3, stream))  # 3: device to device


RUNTIME = runtime_calls()


# How long the stream waits after the flush before the start event (us): longer than the host
# takes to record the start event and dispatch the call, so that the GPU does not reach the start
# event first and time the host's dispatch as well. The tuner's own loop holds each batch until
# its launches are queued (tuner/measure/measure.c); without a hold, PyTorch's times of 4 us
# kernels on an H100 came out a median 23% longer on one host than on another (2026-11-27,
# docs/performance.md).
HOLD_US = 100.0


def sleep_cycles_per_us():
    """torch.cuda._sleep's spin cycles per microsecond on this GPU, timed once (0: no _sleep)."""
    if not hasattr(torch.cuda, "_sleep"):
        return 0.0
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(1000)
    torch.cuda.synchronize()
    start.record()
    torch.cuda._sleep(2_000_000)
    stop.record()
    stop.synchronize()
    us = start.elapsed_time(stop) * 1000.0
    return 2_000_000 / us if us > 0 else 0.0


class Timer:
    def __init__(self, warmup=3, min_runs=10, max_runs=100, rel_ci=0.01, cache="cold"):
        props = torch.cuda.get_device_properties(0)
        l2 = getattr(props, "L2_cache_size", 50 << 20) or (50 << 20)
        self.flush = torch.full((2 * l2,), 0x5a, dtype=torch.uint8, device="cuda")
        self.warmup, self.min_runs, self.max_runs, self.rel_ci, self.cache = warmup, min_runs, max_runs, rel_ci, cache
        self.start = torch.cuda.Event(enable_timing=True)
        self.stop = torch.cuda.Event(enable_timing=True)
        self.hold_cycles = int(HOLD_US * sleep_cycles_per_us())
        self.fill = 0

    def queue_run(self, fn, start, stop):
        """One run of fn queued as the tuner times one: the cache prepared, the stream held, fn
        between the events start and stop (nothing waits: read them once stop is done)."""
        if self.cache == "cold":
            # overwrite 2x L2 with a new byte value, as the tuner's `cache: cold` does
            self.fill = (self.fill + 1) & 0xFF
            if RUNTIME:
                RUNTIME[0](self.flush.data_ptr(), self.fill, self.flush.numel(),
                           torch.cuda.current_stream().cuda_stream)
            else:
                self.flush.fill_(self.fill)
        elif self.cache == "clean":
            # read 2x L2, as the tuner's `cache: clean` does: clean lines, no write-back
            self.flush_sink = self.flush.view(torch.int32).max()
        if self.hold_cycles:
            torch.cuda._sleep(self.hold_cycles)
        start.record()
        fn()
        stop.record()

    def alternate(self, fn_a, fn_b, rounds):
        """fn_a and fn_b timed in alternating rounds, as `tuner retime` judges two configs: one
        queue_run of each a round, the order swapped every round. Returns their samples (us)."""
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(4)]
        a_us, b_us = [], []
        for k in range(rounds):
            first, second = (fn_a, fn_b) if k % 2 == 0 else (fn_b, fn_a)
            self.queue_run(first, ev[0], ev[1])
            self.queue_run(second, ev[2], ev[3])
            ev[3].synchronize()
            x, y = ev[0].elapsed_time(ev[1]) * 1e3, ev[2].elapsed_time(ev[3]) * 1e3
            if k % 2 == 0:
                a_us.append(x), b_us.append(y)
            else:
                b_us.append(x), a_us.append(y)
        return a_us, b_us

    def time(self, fn):
        for _ in range(self.warmup):
            fn()
        torch.cuda.synchronize()
        samples = []
        self.fill = 0
        while len(samples) < self.max_runs:
            self.queue_run(fn, self.start, self.stop)
            self.stop.synchronize()
            samples.append(self.start.elapsed_time(self.stop) * 1000.0)
            if len(samples) >= max(self.min_runs, 6):
                med, lo, hi = median_ci(samples)
                if (hi - lo) / 2 <= self.rel_ci * med:
                    break
        return samples


def copy_gbps(timer):
    nbytes = min(1 << 30, torch.cuda.get_device_properties(0).total_memory // 8)
    a = torch.empty(nbytes, dtype=torch.uint8, device="cuda").random_(0, 255)
    b = torch.empty_like(a)
    t = Timer(warmup=3, min_runs=20, max_runs=50, rel_ci=0.005, cache="hot")
    if RUNTIME:  # cudaMemcpyAsync of random bytes, as the tuner measures it
        s = t.time(lambda: RUNTIME[1](b.data_ptr(), a.data_ptr(), nbytes,
                                      torch.cuda.current_stream().cuda_stream))
    else:
        s = t.time(lambda: b.copy_(a))
    med = median_ci(s)[0]
    return 2 * nbytes / (med * 1e3)


def user_peers(spaces, tuner):
    """op -> peer(problem, dtype) for each user-kernel space: the family and op as the tuner
    names them (asked from `tuner space`), the function from the space's kernel.peer file."""
    import yaml
    peers = {}
    for path in spaces:
        doc = yaml.safe_load(open(path))
        kernel = doc.get("kernel") if isinstance(doc, dict) else None
        if not isinstance(kernel, dict) or "peer" not in kernel:
            sys.exit(f"peers.py: error: {path}: not a user kernel with a kernel.peer")
        out = subprocess.run([tuner, "space", path], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"peers.py: error: {out.stderr.strip()}")
        family = out.stdout.split("(kernel ", 1)[1].split(",", 1)[0]
        op = out.stdout.split("\nops:", 1)[1].split()[0]
        file = os.path.join(os.path.dirname(path), kernel["peer"])
        spec = importlib.util.spec_from_file_location(f"peer_{family}_{op}", file)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        peers[f"{family}.{op}"] = module.peer
    return peers


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", default="tunekit.db")
    ap.add_argument("--op", help="only this op (family.op)")
    ap.add_argument("--dtype", help="only this dtype")
    ap.add_argument("--cache", choices=["cold", "clean", "hot"], default="cold",
                    help="L2 before each timed run, as the space's measure.cache (default cold)")
    ap.add_argument("--space", action="append", default=[],
                    help="a user kernel's space file whose kernel.peer to time (repeatable)")
    ap.add_argument("--tuner", default=os.environ.get("TUNER", "build/tuner"),
                    help="the tuner binary (to read spaces; default $TUNER, else build/tuner)")
    args = ap.parse_args()
    user = user_peers(args.space, args.tuner)
    if not torch.cuda.is_available():
        sys.exit("peers.py: error: no CUDA device visible to PyTorch")
    con = sqlite3.connect(args.db)
    con.execute("PRAGMA foreign_keys=ON")
    props = torch.cuda.get_device_properties(0)
    uuid = "GPU-" + str(props.uuid)
    row = con.execute("SELECT id FROM devices WHERE uuid=?", (uuid,)).fetchone()
    if row is None:
        sys.exit(f"peers.py: error: {args.db} has no device {uuid} ({props.name}); run the tuner on this GPU first")
    device_id = row[0]
    timer = Timer(cache=args.cache)
    ceiling = copy_gbps(timer)
    how = ("cudaMemsetAsync flush and cudaMemcpyAsync ceiling through CuPy, as the tuner" if RUNTIME
           else "no CuPy: torch fill_ flush and copy_ ceiling, not exactly the tuner's")
    print(f"peers.py: {props.name}, copy ceiling {ceiling:.1f} GB/s, torch {torch.__version__}; {how}")
    problems = con.execute("SELECT id, op, dtype, shape, bytes FROM problems ORDER BY op, dtype, elements, shape").fetchall()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    for pid, op, dt, shape, nbytes in problems:
        if (op not in PEERS and op not in user) or (args.op and op != args.op) or \
                (args.dtype and dt != args.dtype):
            continue
        if op in user:
            label, fn = user[op](parse_shape(shape), dt)
        else:
            label, build = PEERS[op]
            fn = build(parse_shape(shape), DTYPES[dt])
        samples = timer.time(fn)
        med, lo, hi = median_ci(samples)
        mean = sum(samples) / len(samples)
        sd = math.sqrt(sum((x - mean) ** 2 for x in samples) / max(1, len(samples) - 1))
        gbps = nbytes / (med * 1e3)
        lib = f"torch {torch.__version__}: {label}"
        con.execute("DELETE FROM peers WHERE device_id=? AND problem_id=? AND library=?", (device_id, pid, lib))
        con.execute("INSERT INTO peers(device_id, problem_id, library, median_us, min_us, mean_us, stddev_us,"
                    " ci_lo_us, ci_hi_us, n_runs, gbps, frac_copy, copy_gbps, created_at)"
                    " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (device_id, pid, lib, med, min(samples), mean, sd, lo, hi, len(samples), gbps,
                     gbps / ceiling, ceiling, now))
        con.commit()
        print(f"  {op:20s} {dt:5s} {shape:26s} {med:10.2f} us {gbps:8.1f} GB/s {100 * gbps / ceiling:5.1f}%  {label}")
        del fn
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
