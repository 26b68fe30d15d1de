#!/usr/bin/env python3
"""flush_size.py: how much must be overwritten before a timed run for L2 to be cold? The tuner's
`cache: cold` overwrites twice the L2 size with cudaMemsetAsync before every timed run (about
30 us on an H100, more than many of the kernels it times). This times a kernel whose data fits
in L2 (y = max(x, 0) over N float32, x random) after a cudaMemsetAsync of a fraction of the L2
size, from 0 (L2 hot) to 2 (the tuner's flush), rounds interleaved (every fraction once per
round, so drift hits all alike), CUDA events around the kernel only; and the memset's own time.
L2 is cold from the fraction on where the kernel's median stops changing.

    python3 bench/l2_states/flush_size.py [ROUNDS (default 300)]   (needs CuPy and a GPU)

Prints one table per N: fraction, flush bytes, the flush's median us, the kernel's median us,
and the kernel's median over its median after the 2x flush. On an H100 (2026-11-27, output in
flush_size-nvidia-h100-80gb-hbm3.txt): from 1x on every kernel time is within 0.5% of the 2x
one, while the flush itself takes 23.3 us at 1x, 28.4 us at 1.25x and 40.0 us at 2x; below 1x
part of the data is still in L2. The tuner's cold flush overwrites 1.25x.
"""
import statistics
import sys

import cupy as cp

FRACTIONS = [0.0, 0.25, 0.5, 0.75, 1.0, 1.125, 1.25, 1.5, 2.0]
RELU = cp.RawKernel(r'''
extern "C" __global__ void relu(const float *x, float *y, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = fmaxf(x[i], 0.0f);
}''', 'relu')


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    l2 = props['l2CacheSize']
    name = props['name'].decode() if isinstance(props['name'], bytes) else props['name']
    print(f"{name}: L2 {l2 / 2**20:.0f} MiB, {props['multiProcessorCount']} SMs; {rounds} rounds")
    flush = cp.empty(2 * l2, dtype=cp.uint8)
    stream = cp.cuda.Stream(non_blocking=True)
    ev = [cp.cuda.Event() for _ in range(3)]
    sms = props['multiProcessorCount']
    for n in (1 << 20, 1 << 22):   # 4 MiB and 16 MiB read, as much written
        x = cp.random.standard_normal(n, dtype=cp.float32)
        y = cp.empty_like(x)
        grid, block = (sms * 8,), (256,)
        kern = {f: [] for f in FRACTIONS}
        fl = {f: [] for f in FRACTIONS}
        with stream:
            for _ in range(5):
                RELU(grid, block, (x, y, cp.int64(n)))
            for r in range(rounds):
                for f in FRACTIONS:
                    nbytes = int(f * l2) & ~255
                    ev[0].record(stream)
                    if nbytes:
                        cp.cuda.runtime.memsetAsync(flush.data.ptr, (r + 1) & 0xff, nbytes, stream.ptr)
                    ev[1].record(stream)
                    RELU(grid, block, (x, y, cp.int64(n)))
                    ev[2].record(stream)
                    ev[2].synchronize()
                    fl[f].append(cp.cuda.get_elapsed_time(ev[0], ev[1]) * 1e3)
                    kern[f].append(cp.cuda.get_elapsed_time(ev[1], ev[2]) * 1e3)
        ref = statistics.median(kern[2.0])
        print(f"\nN = {n} float32 ({n * 4 / 2**20:.0f} MiB read, as much written)")
        print(f"{'fraction':>8} {'flush MiB':>9} {'flush us':>9} {'kernel us':>10} {'vs 2x':>7}")
        for f in FRACTIONS:
            km = statistics.median(kern[f])
            print(f"{f:8.3f} {f * l2 / 2**20:9.1f} {statistics.median(fl[f]):9.2f} {km:10.2f} "
                  f"{km / ref:7.3f}")


if __name__ == '__main__':
    main()
