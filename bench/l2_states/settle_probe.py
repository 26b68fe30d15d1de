#!/usr/bin/env python3
"""settle_probe.py: does the time between the L2 flush and a timed run change what a short kernel
measures? The tuner's `cache: cold` queues cudaMemsetAsync of 1.25 x L2 and records the start
event right after it; scripts/peers.py (PyTorch's figures in the dumps) and judge.py overwrite
2 x L2 and then hold the stream 100 us before the start event. On the H200 the dump's 64 Ki
problems all came out at 4.16 us under the tuner while the judge separated the same configs by
4 timer ticks and timed PyTorch at 3.97 us. This times short kernels under both sequences and
with a spin of S us between a 1.25 x flush and the start event, every (kernel, sequence) once per
round in a rotating order, CUDA events around the kernel only, and prints each one's median over
the rounds.

    python3 bench/l2_states/settle_probe.py [ROUNDS (default 400)]   (needs PyTorch, CuPy, a GPU)
"""
import importlib.util
import os
import statistics
import sys

import cupy as cp
import numpy as np
import torch

SRC = r"""
#include <cuda_bf16.h>
template <typename T, typename V>
__device__ void mul(const V *a, const V *b, V *y, long long n_packs, int u_count)
{
    for (int u = 0; u < u_count; u++) {
        const long long i = (long long)blockIdx.x * blockDim.x * u_count + u * blockDim.x + threadIdx.x;
        if (i < n_packs) {
            V va = a[i], vb = b[i], r;
            const T *pa = reinterpret_cast<const T *>(&va);
            const T *pb = reinterpret_cast<const T *>(&vb);
            T *pr = reinterpret_cast<T *>(&r);
#pragma unroll
            for (int k = 0; k < (int)(sizeof(V) / sizeof(T)); k++) pr[k] = pa[k] * pb[k];
            y[i] = r;
        }
    }
}
extern "C" __global__ void mul_f32x4(const float4 *a, const float4 *b, float4 *y, long long n, int u)
{ mul<float, float4>(a, b, y, n, u); }
extern "C" __global__ void mul_bf16x8(const float4 *a, const float4 *b, float4 *y, long long n, int u)
{ mul<__nv_bfloat16, float4>(a, b, y, n, u); }
extern "C" __global__ void mul_bf16x2(const unsigned *a, const unsigned *b, unsigned *y, long long n, int u)
{ mul<__nv_bfloat16, unsigned>(a, b, y, n, u); }
"""


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    props = torch.cuda.get_device_properties(0)
    l2 = props.L2_cache_size
    spec = importlib.util.spec_from_file_location(
        "tk_peers", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "peers.py"))
    peers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peers)
    cyc = peers.sleep_cycles_per_us()   # torch.cuda._sleep's cycles per us, as judge.py holds
    mod = cp.RawModule(code=SRC, options=("-std=c++17",))
    stream = cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)
    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    rt = cp.cuda.runtime
    print(f"{props.name}: L2 {l2 / 2**20:.0f} MiB; {rounds} rounds", flush=True)

    def raw(name, grid, block, a, b, y, n_packs, u):
        k = mod.get_function(name)
        argv = (np.uint64(a.data_ptr()), np.uint64(b.data_ptr()), np.uint64(y.data_ptr()),
                np.int64(n_packs), np.int32(u))
        return lambda: k((grid,), (block,), argv, stream=stream)

    kernels = []   # (label, fn)
    for dt, n in ((torch.bfloat16, 1 << 16), (torch.float32, 1 << 20)):
        a, b, y = (torch.empty(n, dtype=dt, device="cuda").uniform_(-4, 4) for _ in range(3))
        tag = f"{str(dt)[6:]} n={n}"
        kernels.append((f"{tag} torch.mul", lambda a=a, b=b, y=y: torch.mul(a, b, out=y)))
        if dt == torch.bfloat16:
            np8, np2 = n // 8, n // 2
            kernels.append((f"{tag} pack8 block256", raw("mul_bf16x8", (np8 + 255) // 256, 256, a, b, y, np8, 1)))
            kernels.append((f"{tag} pack2 block1024", raw("mul_bf16x2", (np2 + 1023) // 1024, 1024, a, b, y, np2, 1)))
        else:
            np4 = n // 4
            kernels.append((f"{tag} pack4 block256 u2", raw("mul_f32x4", (np4 + 511) // 512, 256, a, b, y, np4, 2)))
            kernels.append((f"{tag} pack4 block128 u1", raw("mul_f32x4", (np4 + 127) // 128, 128, a, b, y, np4, 1)))

    cold = (l2 * 5 // 4) & ~255
    seqs = [("tuner: 1.25x, start", cold, 0), ("2x, start", 2 * l2, 0)]
    seqs += [(f"1.25x, spin {s} us", cold, s) for s in (1, 3, 10, 30, 100)]
    seqs += [("judge: 2x, spin 100 us", 2 * l2, 100)]
    cells = [(k, s) for k in kernels for s in seqs]
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in cells]
    times = [[] for _ in cells]
    fill = 0
    for fn, _ in ((k[1], None) for k in kernels):
        fn()
    torch.cuda.synchronize()
    for r in range(rounds):
        order = list(range(len(cells)))
        shift = r % len(order)
        order = order[shift:] + order[:shift]
        torch.cuda._sleep(int(20000 * cyc))   # the host queues the whole round before the GPU gets to it
        for i in order:
            (label, fn), (_, nbytes, spin) = cells[i]
            fill = (fill + 1) & 0xFF
            rt.memsetAsync(flush.data_ptr(), fill, nbytes, torch.cuda.current_stream().cuda_stream)
            if spin:
                torch.cuda._sleep(int(spin * cyc))
            ev[i][0].record()
            fn()
            ev[i][1].record()
        torch.cuda.synchronize()
        for i in range(len(cells)):
            times[i].append(ev[i][0].elapsed_time(ev[i][1]) * 1000.0)
    for i, ((label, _), (seq, _, _)) in enumerate(cells):
        t = times[i]
        print(f"settle {label:28s} {seq:24s} median {statistics.median(t):7.3f} us  "
              f"mean {statistics.fmean(t):7.3f}  p10 {np.percentile(t, 10):7.3f}", flush=True)


if __name__ == "__main__":
    main()
