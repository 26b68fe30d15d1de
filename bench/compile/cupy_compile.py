#!/usr/bin/env python3
"""cupy_compile.py: the reference for the compile benchmark: the same variants of sgemm_small.cu
that `tuner compile bench/compile/sgemm_small.yaml` compiles (every (bm, bn, bk, tm, tn) its
constraints allow), compiled through CuPy's NVRTC path to cubins for this GPU by a pool of
processes, with CuPy's kernel cache pointed at an empty folder. Prints variants, seconds,
variants per second and the processes' CPU time, to compare with the tuner's compile pool on the
same machine in the same job.

    python3 bench/compile/cupy_compile.py [--jobs 16]
"""
import argparse
import itertools
import os
import resource
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

SRC = (Path(__file__).resolve().parent / "sgemm_small.cu").read_text()


def configs():
    vals = [32, 64, 128]
    for bm, bn in itertools.product(vals, vals):
        for bk in (8, 16, 32):
            for tm, tn in itertools.product((2, 4, 8), repeat=2):
                threads = (bm // tm) * (bn // tn)
                if 32 <= threads <= 1024 and 4 * bk * (bm + bn) <= 49152:
                    yield (bm, bn, bk, tm, tn)


def compile_one(c):
    import cupy
    name = "sgemm_tiled<%d, %d, %d, %d, %d>" % c
    mod = cupy.RawModule(code=SRC, options=("-std=c++17",), name_expressions=[name])
    mod.get_function(name)   # compiles (NVRTC to a cubin for this GPU) and loads
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    cfgs = list(configs())
    with tempfile.TemporaryDirectory() as cache:
        os.environ["CUPY_CACHE_DIR"] = cache
        with Pool(args.jobs) as pool:
            pool.map(compile_one, cfgs[:args.jobs])   # warm the processes: imports, CUDA context
            t0 = time.time()
            cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            pool.map(compile_one, cfgs[args.jobs:] , chunksize=1)
            wall = time.time() - t0
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    n = len(cfgs) - args.jobs
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    print("cupy_compile: %d variants of sgemm_tiled in %.2f s (%.1f per second) on %d processes; "
          "CPU %.1f s (children reaped: %s)" % (n, wall, n / wall, args.jobs, cpu,
                                               "yes" if cpu > 0 else "not until the pool ends"))


if __name__ == "__main__":
    main()
