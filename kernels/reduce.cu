/* reduce.cu: the reduce family: *out = sum, max or min of x[0 .. n), f32/f16/bf16 in, float
 * accumulator and float out (public API and the finish/workspace rules: tunekit_reduce.h).
 *
 * Versions (compile time; the write-up's v0..v6, then what a 2026 GPU wants):
 *   0  shared-memory tree, interleaved addressing with `tid % (2s)` (divergent warps)
 *   1  interleaved addressing through a strided index 2 s tid (bank conflicts); as in Harris's
 *      slides, the strided index is also the one written (the write-up's listing writes
 *      sdata[tid], which would drop terms)
 *   2  sequential addressing, no bank conflicts
 *   3  2 with the first add during the load: a block covers 2 * block_size elements
 *   4  3 with the last warp unrolled (no __syncthreads, no `if (tid < s)`); on Volta and later
 *      the warp is not lock-step, so each step reads, __syncwarp()s, writes, __syncwarp()s
 *   5  4 with the tree completely unrolled for a compile-time block size
 *   6  5 over a fixed grid (launch.cuh's waves rule), several elements per thread (grid-stride)
 *   7  6 with warp shuffles: each warp reduces in registers, one shared word per warp
 *   8  7 with pack_size-element vector loads (tk::Pack; scalar head up to the pack boundary,
 *      scalar tail); a pack's elements are added as a pairwise tree, then to the accumulator
 *   9  8 with `unroll` (2 or 4) packs a grid apart loaded before any is added (up to 4 x 16
 *      bytes in flight per thread), each into its own accumulator
 * Versions 0..5 size the grid from n (one element, or two from 3 on, per thread); 6..9 take
 * `waves`. Block sizes 64..1024, powers of two (the trees halve; the last warp reads tid + 32).
 * Loads of versions 7..9 (LoadKind, from cache_hint x load): plain (the compiler's
 * ld.global.nc for const __restrict__ data), ld.global.cs (evict-first in L1 and L2, pack.cuh's),
 * ld.global.nc.L1::no_allocate, and the same with L2::cache_hint and an evict-first createpolicy.
 * Why evict-first: data read once is the first that L2 gives up, so what other kernels left there
 * (dirty lines) is not written back during this one. Why the others: on the H100 under a dirty
 * L2, ld.global.cs streamed about 6% slower than plain loads at 1 GiB (379 against 359 us), and
 * the L2 lines a stream holds at once (its loads in flight, ~ grid threads x unroll x 16 bytes:
 * 17 MB at unroll 4 in one wave) are about the dirty lines it displaces; no_allocate asks for
 * evict-first without the .cs operator, and unroll 2 / version 8 hold a half / a quarter of
 * those lines. (ld.global.L2::evict_first itself needs 32-byte loads, sm_100.)
 * Finish: two_pass (partials, then a one-block second launch), last_block (partials; the last
 * block to take a ticket from an atomic counter reduces them), atomic (every block combines into
 * one accumulator, the last block moves it to *out and resets it). One block: *out directly.
 * Ops: sum (a + b), max and min with NaN propagation (PTX max.NaN / min.NaN, sm_80+); the atomic
 * finish does max/min on the integer order of float bits (atomicMax on int for a clear sign
 * bit, atomicMin on unsigned for a set one; the reverse for min) with a NaN encoded as the one
 * pattern no later value displaces (0x7fffffff for max, 0xffffffff for min).
 * Workspace: one device buffer per (device, stream), grown on demand: a counter and one
 * accumulator per op (256-byte header, initialised once by a kernel on the stream), then the
 * partials.
 *
 * Order: device helpers (ops, atomics, warp/block reductions, the shared-memory trees, loads),
 * kernels, host plan (grid, finish, error depth), workspace cache, launchers, config space and
 * public entry points. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>
#include <cuda_runtime_api.h>
#include "current_device.h"
#include "dtype.cuh"
#include "launch.cuh"
#include "pack.cuh"
#include "tunekit.h"
#include "tuned_lookup.h"

namespace {

using tk::Pack;

/* The second launch of two_pass: one block of this many threads. */
constexpr int kFinishBlock = 1024;
/* Partials in flight per thread when the last block reduces them, and in the second launch. */
constexpr int kLastBlockLoads = 4;
constexpr int kFinishLoads = 8;
/* How versions 7..9 load (cache_hint x load; the file comment says what each one is). */
enum LoadKind { kLoadPlain = 0, kLoadCs = 1, kLoadNoAlloc = 2, kLoadNoAllocEvict = 3 };
/* Workspace: counter at 0, accumulators (one per op) at kAccOffset, partials at kHeaderBytes. */
constexpr size_t kAccOffset = 16;
constexpr size_t kHeaderBytes = 256;
constexpr size_t kMinWorkspace = size_t{64} << 10;

/* ---- device helpers: the ops ---------------------------------------------------------------- */

struct SumOp {
    static constexpr int kIndex = TK_REDUCE_SUM;
    __device__ __forceinline__ static float identity() { return 0.0f; }
    __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
};

struct MaxOp {
    static constexpr int kIndex = TK_REDUCE_MAX;
    __device__ __forceinline__ static float identity() { return -INFINITY; }
    /* max.NaN (sm_80+): one instruction, NaN if either is NaN */
    __device__ __forceinline__ float operator()(float a, float b) const
    {
        float r;
        asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
        return r;
    }
};

struct MinOp {
    static constexpr int kIndex = TK_REDUCE_MIN;
    __device__ __forceinline__ static float identity() { return INFINITY; }
    __device__ __forceinline__ float operator()(float a, float b) const
    {
        float r;
        asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
        return r;
    }
};

/* Combines v into *acc with one atomic (see the file comment for max/min). */
__device__ __forceinline__ void atomic_combine(SumOp, float *acc, float v) { atomicAdd(acc, v); }

__device__ __forceinline__ void atomic_combine(MaxOp, float *acc, float v)
{
    const int bits = v != v ? 0x7fffffff : __float_as_int(v);
    if (bits >= 0) atomicMax(reinterpret_cast<int *>(acc), bits);
    else atomicMin(reinterpret_cast<unsigned *>(acc), static_cast<unsigned>(bits));
}

__device__ __forceinline__ void atomic_combine(MinOp, float *acc, float v)
{
    const int bits = v != v ? -1 : __float_as_int(v);
    if (bits >= 0) atomicMin(reinterpret_cast<int *>(acc), bits);
    else atomicMax(reinterpret_cast<unsigned *>(acc), static_cast<unsigned>(bits));
}

/* ---- device helpers: reductions across threads ------------------------------------------------ */

/* Every lane gets op over the warp's 32 values (5 levels). */
template <typename Op>
__device__ __forceinline__ float warp_reduce(Op op, float v)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        v = op(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}

/* op over the block's values (blockDim.x a multiple of 32), valid in thread 0: warps reduce in
 * registers, one shared word per warp, the first warp reduces those (10 levels at most). Two calls
 * in one kernel must be separated by a __syncthreads. */
template <typename Op>
__device__ __forceinline__ float block_reduce_shuffle(Op op, float v)
{
    __shared__ float warp_partial[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_reduce(op, v);
    if (lane == 0) warp_partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < static_cast<int>(blockDim.x >> 5) ? warp_partial[lane] : Op::identity();
        v = warp_reduce(op, v);
    }
    return v;
}

/* v0: interleaved addressing; `tid % (2s)` leaves the active threads of every warp scattered. */
template <typename Op>
__device__ __forceinline__ void tree_divergent(Op op, float *s)
{
    const unsigned tid = threadIdx.x;
    for (unsigned st = 1; st < blockDim.x; st *= 2) {
        if (tid % (2 * st) == 0) s[tid] = op(s[tid], s[tid + st]);
        __syncthreads();
    }
}

/* v1: interleaved addressing through the strided index 2 s tid: active threads are contiguous,
 * but their shared-memory addresses are 2 s apart (bank conflicts). */
template <typename Op>
__device__ __forceinline__ void tree_strided(Op op, float *s)
{
    const unsigned tid = threadIdx.x;
    for (unsigned st = 1; st < blockDim.x; st *= 2) {
        const unsigned index = 2 * st * tid;
        if (index < blockDim.x) s[index] = op(s[index], s[index + st]);
        __syncthreads();
    }
}

/* v2, v3: sequential addressing, halving down to `last` active threads (1: the whole tree). */
template <typename Op>
__device__ __forceinline__ void tree_sequential(Op op, float *s, unsigned last)
{
    const unsigned tid = threadIdx.x;
    for (unsigned st = blockDim.x / 2; st >= last; st >>= 1) {
        if (tid < st) s[tid] = op(s[tid], s[tid + st]);
        __syncthreads();
    }
}

/* v5, v6: the tree down to 64 values, unrolled for the compile-time block size B. */
template <int B, typename Op>
__device__ __forceinline__ void tree_unrolled(Op op, float *s)
{
    const unsigned tid = threadIdx.x;
    if constexpr (B >= 1024) {
        if (tid < 512) s[tid] = op(s[tid], s[tid + 512]);
        __syncthreads();
    }
    if constexpr (B >= 512) {
        if (tid < 256) s[tid] = op(s[tid], s[tid + 256]);
        __syncthreads();
    }
    if constexpr (B >= 256) {
        if (tid < 128) s[tid] = op(s[tid], s[tid + 128]);
        __syncthreads();
    }
    if constexpr (B >= 128) {
        if (tid < 64) s[tid] = op(s[tid], s[tid + 64]);
        __syncthreads();
    }
}

/* v4..v6: the last 64 values by the first warp without __syncthreads (tid < 32); B == 0: the
 * block size is only known at run time (at least 64). Returns the block's result in thread 0. */
template <int B, typename Op>
__device__ __forceinline__ float warp_tail(Op op, volatile float *s, unsigned tid)
{
    float v = s[tid];
#pragma unroll
    for (int off = 32; off > 0; off >>= 1) {
        if (B == 0 || B >= 2 * off) {
            v = op(v, s[tid + off]);
            __syncwarp();
            s[tid] = v;
            __syncwarp();
        }
    }
    return v;
}

/* ---- device helpers: loads ------------------------------------------------------------------ */

/* The unsigned type of a pack's bits (2, 4, 8 or 16 bytes). */
template <size_t kBytes> struct PackBits;
template <> struct PackBits<2> { using type = unsigned short; };
template <> struct PackBits<4> { using type = unsigned int; };
template <> struct PackBits<8> { using type = uint2; };
template <> struct PackBits<16> { using type = uint4; };

/* An L2 cache policy that gives every line it touches the evict-first priority (sm_80+). */
__device__ __forceinline__ uint64_t evict_first_policy()
{
    uint64_t policy;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    return policy;
}

/* ld.global.nc.L1::no_allocate of the bits at p (read-only path, no L1 line), with the L2
 * eviction priority of `policy` when kPolicy (else the L2's normal one). volatile: a load in the
 * predicated last round of version 9 stays under its predicate. */
template <bool kPolicy, typename Bits>
__device__ __forceinline__ Bits load_no_allocate(const Bits *p, uint64_t policy)
{
    Bits r;
    if constexpr (sizeof(Bits) == 16) {
        if constexpr (kPolicy)
            asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                         : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p), "l"(policy));
        else
            asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
    } else if constexpr (sizeof(Bits) == 8) {
        if constexpr (kPolicy)
            asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v2.u32 {%0, %1}, [%2], %3;"
                         : "=r"(r.x), "=r"(r.y) : "l"(p), "l"(policy));
        else
            asm volatile("ld.global.nc.L1::no_allocate.v2.u32 {%0, %1}, [%2];"
                         : "=r"(r.x), "=r"(r.y) : "l"(p));
    } else if constexpr (sizeof(Bits) == 4) {
        if constexpr (kPolicy)
            asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.u32 %0, [%1], %2;"
                         : "=r"(r) : "l"(p), "l"(policy));
        else
            asm volatile("ld.global.nc.L1::no_allocate.u32 %0, [%1];" : "=r"(r) : "l"(p));
    } else {
        static_assert(sizeof(Bits) == 2, "packs are 2, 4, 8 or 16 bytes");
        if constexpr (kPolicy)
            asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.u16 %0, [%1], %2;"
                         : "=h"(r) : "l"(p), "l"(policy));
        else
            asm volatile("ld.global.nc.L1::no_allocate.u16 %0, [%1];" : "=h"(r) : "l"(p));
    }
    return r;
}

/* The pack at p loaded the way L says; policy: evict_first_policy() for kLoadNoAllocEvict,
 * unused otherwise. */
template <int L, typename T, int N>
__device__ __forceinline__ Pack<T, N> load_as(const T *p, uint64_t policy)
{
    if constexpr (L == kLoadPlain) {
        return tk::load_pack<T, N>(p);
    } else if constexpr (L == kLoadCs) {
        return tk::load_pack_evict_first<T, N>(p);
    } else {
        using Bits = typename PackBits<sizeof(T) * N>::type;
        const Bits r =
            load_no_allocate<L == kLoadNoAllocEvict>(reinterpret_cast<const Bits *>(p), policy);
        Pack<T, N> v;
        memcpy(&v, &r, sizeof v);
        return v;
    }
}

/* What the grid reads: n elements; versions 8, 9: n_head scalars, then n_packs aligned packs,
 * then n_tail scalars. */
struct Span {
    int64_t n;
    int n_head;
    int64_t n_packs;
    int n_tail;
};

/* Where the block results go (see the file comment). mode is a tk_reduce_finish. */
struct Finish {
    int mode;
    float *out;
    float *partials;
    unsigned *counter;
    float *acc;
};

/* Versions 0..6: the block's result (thread 0) through the shared-memory tree. */
template <int V, int B, typename Op, typename T>
__device__ __forceinline__ float tree_version(Op op, const T *__restrict__ x, int64_t n)
{
    extern __shared__ float s_dynamic[]; /* V <= 4: blockDim.x floats */
    float *s = s_dynamic;
    if constexpr (B > 0) {
        __shared__ float s_fixed[B];
        s = s_fixed;
    }
    const unsigned tid = threadIdx.x;
    const int64_t bs = B > 0 ? B : blockDim.x;
    float v;
    if constexpr (V <= 2) {
        const int64_t i = static_cast<int64_t>(blockIdx.x) * bs + tid;
        v = i < n ? tk::to_float(x[i]) : Op::identity();
    } else if constexpr (V <= 5) {
        const int64_t i = static_cast<int64_t>(blockIdx.x) * (2 * bs) + tid;
        v = op(i < n ? tk::to_float(x[i]) : Op::identity(),
               i + bs < n ? tk::to_float(x[i + bs]) : Op::identity());
    } else {
        v = Op::identity();
        const int64_t stride = static_cast<int64_t>(gridDim.x) * bs;
        for (int64_t i = static_cast<int64_t>(blockIdx.x) * bs + tid; i < n; i += stride)
            v = op(v, tk::to_float(x[i]));
    }
    s[tid] = v;
    __syncthreads();
    if constexpr (V == 0) {
        tree_divergent(op, s);
        return s[0];
    } else if constexpr (V == 1) {
        tree_strided(op, s);
        return s[0];
    } else if constexpr (V <= 3) {
        tree_sequential(op, s, 1);
        return s[0];
    } else {
        if constexpr (V == 4) tree_sequential(op, s, 64);
        else tree_unrolled<B>(op, s);
        return tid < 32 ? warp_tail<B>(op, s, tid) : v;
    }
}

/* op over the P elements of a pack as a pairwise tree (log2 P levels). */
template <typename Op, typename T, int P>
__device__ __forceinline__ float pack_reduce(Op op, const Pack<T, P> &p)
{
    float v[P];
#pragma unroll
    for (int k = 0; k < P; k++)
        v[k] = tk::to_float(p.elem[k]);
#pragma unroll
    for (int w = P / 2; w >= 1; w /= 2)
#pragma unroll
        for (int k = 0; k < w; k++)
            v[k] = op(v[k], v[k + w]);
    return v[0];
}

/* Versions 7..9: the block's result (thread 0) through registers and shuffles. Version 7 reads
 * scalars; 8 one P-element pack per round; 9 U packs a grid apart per round, all loaded
 * (predicated in the last round) before any is added, each into its own accumulator. One
 * accumulator per pack in flight keeps version 9 within 32 registers (full occupancy) for U up
 * to 4 with 16-byte packs. L: how the loads are made (LoadKind). */
template <int V, int P, int L, int U, typename Op, typename T>
__device__ __forceinline__ float shuffle_version(Op op, const T *__restrict__ x, const Span &sp)
{
    static_assert(V == 9 || U == 1, "only version 9 has several packs in flight");
    const uint64_t policy = L == kLoadNoAllocEvict ? evict_first_policy() : 0;
    const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const int64_t threads = static_cast<int64_t>(gridDim.x) * blockDim.x;
    float acc[U];
#pragma unroll
    for (int u = 0; u < U; u++)
        acc[u] = Op::identity();
    if constexpr (V == 7) {
        for (int64_t i = tid; i < sp.n; i += threads)
            acc[0] = op(acc[0], tk::to_float(load_as<L, T, 1>(x + i, policy).elem[0]));
    } else {
        const T *xp = x + sp.n_head;
        using PackT = Pack<T, P>;
        const PackT *pp = reinterpret_cast<const PackT *>(xp) + tid;
        int64_t left = sp.n_packs - tid; /* packs from pp to the end (may be <= 0) */
        /* full rounds: all U packs in range, no predicates */
#pragma unroll 1
        for (; left > (U - 1) * threads; left -= U * threads, pp += U * threads) {
            PackT p[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                p[u] = load_as<L, T, P>(reinterpret_cast<const T *>(pp + u * threads), policy);
#pragma unroll
            for (int u = 0; u < U; u++)
                acc[u] = op(acc[u], pack_reduce(op, p[u]));
        }
        /* the last round, with some of its U packs past the end */
        if (left > 0) {
            PackT p[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                if (u * threads < left)
                    p[u] = load_as<L, T, P>(reinterpret_cast<const T *>(pp + u * threads),
                                            policy);
#pragma unroll
            for (int u = 0; u < U; u++)
                if (u * threads < left) acc[u] = op(acc[u], pack_reduce(op, p[u]));
        }
        if (tid < sp.n_head) acc[0] = op(acc[0], tk::to_float(x[tid]));
        if (tid < sp.n_tail) acc[0] = op(acc[0], tk::to_float(xp[sp.n_packs * P + tid]));
    }
#pragma unroll
    for (int w = U / 2; w >= 1; w /= 2)
#pragma unroll
        for (int k = 0; k < w; k++)
            acc[k] = op(acc[k], acc[k + w]);
    return block_reduce_shuffle(op, acc[0]);
}

/* op over partials[0 .. m) by the whole block (W loads in flight per thread, read from L2: other
 * blocks wrote them), valid in thread 0. */
template <int W, typename Op>
__device__ __forceinline__ float reduce_partials(Op op, const float *partials, int64_t m)
{
    float a[W];
#pragma unroll
    for (int u = 0; u < W; u++)
        a[u] = Op::identity();
    const int64_t bs = blockDim.x;
    for (int64_t base = threadIdx.x; base < m; base += W * bs) {
#pragma unroll
        for (int u = 0; u < W; u++)
            if (base + u * bs < m) a[u] = op(a[u], __ldcg(partials + base + u * bs));
    }
#pragma unroll
    for (int w = W / 2; w >= 1; w /= 2)
#pragma unroll
        for (int k = 0; k < w; k++)
            a[k] = op(a[k], a[k + w]);
    return block_reduce_shuffle(op, a[0]);
}

/* Every thread of the block calls this with the block's result v (valid in thread 0). */
template <typename Op>
__device__ __forceinline__ void finish_block(Op op, float v, const Finish &f)
{
    __shared__ bool s_last;
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) *f.out = v;
        return;
    }
    if (f.mode == TK_FINISH_ATOMIC) {
        if (threadIdx.x == 0) {
            atomic_combine(op, f.acc, v);
            __threadfence();
            if (atomicInc(f.counter, gridDim.x - 1) == gridDim.x - 1) {
                __threadfence();
                *f.out = atomicExch(f.acc, Op::identity());
            }
        }
        return;
    }
    if (threadIdx.x == 0) f.partials[blockIdx.x] = v;
    if (f.mode == TK_FINISH_TWO_PASS) return;
    if (threadIdx.x == 0) {
        __threadfence();
        s_last = atomicInc(f.counter, gridDim.x - 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (!s_last) return;
    __threadfence();
    const float r = reduce_partials<kLastBlockLoads>(op, f.partials, gridDim.x);
    if (threadIdx.x == 0) *f.out = r;
}

/* ---- kernels -------------------------------------------------------------------------------- */

/* B: compile-time block size (versions 5, 6), else 0; P: pack size (versions 8, 9), else 1;
 * L: LoadKind (versions 7..9), else kLoadPlain; U: packs in flight (version 9), else 1.
 * At most 32 registers (two 1024-thread blocks per SM), so that every block size reaches full
 * occupancy and launch.cuh's waves (counted in 2048 resident threads per SM) are real. */
template <int V, int B, int P, int L, int U, typename Op, typename T>
__global__ void __launch_bounds__(tk::kMaxBlockSize, 2)
    reduce_kernel(Op op, const T *__restrict__ x, Span span, Finish fin)
{
    float v;
    if constexpr (V <= 6) v = tree_version<V, B>(op, x, span.n);
    else v = shuffle_version<V, P, L, U>(op, x, span);
    finish_block(op, v, fin);
}

/* two_pass, second launch: one block reduces the m partials to *out. */
template <typename Op>
__global__ void __launch_bounds__(kFinishBlock)
    finish_kernel(Op op, const float *partials, int64_t m, float *out)
{
    const float v = reduce_partials<kFinishLoads>(op, partials, m);
    if (threadIdx.x == 0) *out = v;
}

/* A new workspace: counter 0, every op's accumulator at its identity. */
__global__ void init_workspace_kernel(unsigned *counter, float *acc)
{
    *counter = 0;
    acc[TK_REDUCE_SUM] = SumOp::identity();
    acc[TK_REDUCE_MAX] = MaxOp::identity();
    acc[TK_REDUCE_MIN] = MinOp::identity();
}

/* ---- host: the plan of a call ------------------------------------------------------------------ */

struct Plan {
    int version, block, pack;
    int unroll;              /* packs in flight per thread: version 9's unroll, else 1 */
    int load;                /* LoadKind of versions 7..9 */
    Span span;
    unsigned grid;
    tk_reduce_finish finish;
    bool direct;             /* one block: *out directly */
    int64_t partials;        /* floats of partials the finish stores */
    int64_t depth;           /* error depth, see tk_reduce_plan */
};

int ceil_log2(int64_t v)
{
    int k = 0;
    while ((int64_t{1} << k) < v) k++;
    return k;
}

bool dtype_valid(tk_dtype d) { return d == TK_F32 || d == TK_F16 || d == TK_BF16; }

bool block_size_valid(int b) { return b == 64 || b == 128 || b == 256 || b == 512 || b == 1024; }

bool pack_size_valid(int p) { return p == 1 || p == 2 || p == 4 || p == 8; }

bool unroll_valid(int u) { return u == 1 || u == 2 || u == 4; }

/* Every field within the parameter space, the pack within 16 bytes where it is used, and
 * version 9 with at least two packs in flight (one is version 8). */
bool config_supported(const tk_reduce_config &c, size_t elem_size)
{
    const bool pack_fits = c.version < 8 || static_cast<size_t>(c.pack_size) * elem_size <=
                                                static_cast<size_t>(tk::kMaxPackBytes);
    return c.version >= 0 && c.version <= TK_REDUCE_MAX_VERSION &&
           block_size_valid(c.block_size) && c.waves >= 1 && c.waves <= 1024 &&
           pack_size_valid(c.pack_size) && pack_fits &&
           (c.finish == TK_FINISH_TWO_PASS || c.finish == TK_FINISH_LAST_BLOCK ||
            c.finish == TK_FINISH_ATOMIC) &&
           (c.cache_hint == TK_CACHE_NORMAL || c.cache_hint == TK_CACHE_EVICT_FIRST) &&
           (c.load == TK_REDUCE_LOAD_COP || c.load == TK_REDUCE_LOAD_NO_ALLOCATE) &&
           unroll_valid(c.unroll) && (c.version != 9 || c.unroll >= 2);
}

/* The LoadKind of a config's hint and load (versions 7..9). */
int load_kind(const tk_reduce_config &c)
{
    const bool evict = c.cache_hint == TK_CACHE_EVICT_FIRST;
    if (c.load == TK_REDUCE_LOAD_NO_ALLOCATE) return evict ? kLoadNoAllocEvict : kLoadNoAlloc;
    return evict ? kLoadCs : kLoadPlain;
}

/* The grid, span, finish and error depth of a call (c supported for elem_size; x aligned to
 * elem_size or NULL). TK_ERR_UNSUPPORTED_CONFIG when versions 0..5 would need more blocks than a
 * launch allows; TK_ERR_CUDA when the device limits are unavailable. */
tk_status make_plan(size_t elem_size, int64_t n, const void *x, const tk_reduce_config &c,
                    Plan *p)
{
    p->version = c.version;
    p->block = c.block_size;
    p->pack = c.version >= 8 ? c.pack_size : 1;
    p->unroll = c.version == 9 ? c.unroll : 1;
    p->load = c.version >= 7 ? load_kind(c) : kLoadPlain;
    p->finish = c.finish;
    p->span = Span{n, 0, 0, 0};
    const int unroll = p->unroll;
    int64_t units = n;
    if (c.version >= 3 && c.version <= 5) units = tk::ceil_div(n, 2);
    if (c.version >= 8) {
        const size_t bytes = static_cast<size_t>(p->pack) * elem_size;
        const size_t mis = reinterpret_cast<uintptr_t>(x) & (bytes - 1);
        int64_t head = mis ? static_cast<int64_t>((bytes - mis) / elem_size) : 0;
        if (head > n) head = n;
        p->span.n_head = static_cast<int>(head);
        p->span.n_packs = (n - head) / p->pack;
        p->span.n_tail = static_cast<int>(n - head - p->span.n_packs * p->pack);
        units = tk::ceil_div(p->span.n_packs, unroll);
        const int scalars = p->span.n_head > p->span.n_tail ? p->span.n_head : p->span.n_tail;
        if (units < scalars) units = scalars;
    }
    const tk_loop loop = c.version <= 5 ? TK_LOOP_ONE_SHOT : TK_LOOP_GRID_STRIDE;
    const tk_status st =
        tk::grid_size(loop, units, c.block_size, c.version >= 6 ? c.waves : 1, &p->grid);
    if (st != TK_OK) return st;
    p->direct = p->grid == 1;
    p->partials = p->direct || c.finish == TK_FINISH_ATOMIC ? 0 : p->grid;

    /* Error depth: the most float operations any element takes part in on its way to the result
     * (an operation with the identity is exact and counted anyway). */
    const int64_t threads = static_cast<int64_t>(p->grid) * c.block_size;
    const int lg_block = ceil_log2(c.block_size);
    const int shuffle_levels = 10; /* block_reduce_shuffle: 5 in warps + 5 across warps */
    int64_t depth = 0;
    if (c.version <= 2) depth = lg_block;
    else if (c.version <= 5) depth = 1 + lg_block;
    else if (c.version == 6) depth = tk::ceil_div(n, threads) + lg_block;
    else if (c.version == 7) depth = tk::ceil_div(n, threads) + shuffle_levels;
    else {
        const int64_t rounds = tk::ceil_div(p->span.n_packs, threads * unroll);
        depth = ceil_log2(p->pack) + rounds + 2 + ceil_log2(unroll) + shuffle_levels;
    }
    if (!p->direct) {
        if (c.finish == TK_FINISH_ATOMIC) depth += p->grid;
        else {
            const bool two = c.finish == TK_FINISH_TWO_PASS;
            const int fb = two ? kFinishBlock : c.block_size;
            depth += tk::ceil_div(p->grid, fb) + ceil_log2(two ? kFinishLoads : kLastBlockLoads) +
                     shuffle_levels;
        }
    }
    p->depth = depth + 1;
    return TK_OK;
}

/* ---- host: the workspace cache ----------------------------------------------------------------
 * One buffer per (device, stream); outgrown buffers are retired (kept until
 * tk_reduce_release_workspaces) so that work still queued with them never loses its memory. */

struct WorkspaceSlot {
    int device;
    cudaStream_t stream;
    char *base;
    size_t bytes;
};

std::mutex g_ws_mutex;
std::vector<WorkspaceSlot> g_ws_slots;   /* guarded by g_ws_mutex */
std::vector<WorkspaceSlot> g_ws_retired; /* guarded by g_ws_mutex */

/* The workspace of (current device, stream), at least `bytes` long (a new one is allocated and
 * initialised on stream). The library owns it. */
tk_status workspace_for(cudaStream_t stream, size_t bytes, char **base)
{
    int dev = 0;
    if (tk_current_device(&dev) != 0) return TK_ERR_CUDA;
    std::lock_guard<std::mutex> lock(g_ws_mutex);
    size_t index = g_ws_slots.size();
    for (size_t k = 0; k < g_ws_slots.size(); k++)
        if (g_ws_slots[k].device == dev && g_ws_slots[k].stream == stream) index = k;
    const bool found = index < g_ws_slots.size();
    if (found && g_ws_slots[index].bytes >= bytes) {
        *base = g_ws_slots[index].base;
        return TK_OK;
    }
    size_t want = found ? 2 * g_ws_slots[index].bytes : kMinWorkspace;
    if (want < bytes) want = bytes;
    want = (want + kHeaderBytes - 1) / kHeaderBytes * kHeaderBytes;
    try { /* room for the bookkeeping first, so that nothing below can fail after cudaMalloc */
        g_ws_slots.reserve(g_ws_slots.size() + 1);
        g_ws_retired.reserve(g_ws_retired.size() + 1);
    } catch (const std::bad_alloc &) {
        return TK_ERR_CUDA;
    }
    char *fresh = nullptr;
    if (cudaMalloc(&fresh, want) != cudaSuccess) {
        cudaGetLastError();
        return TK_ERR_CUDA;
    }
    init_workspace_kernel<<<1, 1, 0, stream>>>(reinterpret_cast<unsigned *>(fresh),
                                               reinterpret_cast<float *>(fresh + kAccOffset));
    if (cudaGetLastError() != cudaSuccess) {
        cudaFree(fresh);
        return TK_ERR_LAUNCH;
    }
    if (found) {
        g_ws_retired.push_back(g_ws_slots[index]);
        g_ws_slots[index].base = fresh;
        g_ws_slots[index].bytes = want;
    } else {
        g_ws_slots.push_back(WorkspaceSlot{dev, stream, fresh, want});
    }
    *base = fresh;
    return TK_OK;
}

/* ---- host: launchers -------------------------------------------------------------------------- */

template <int V, int B, int P, int L, int U, typename Op, typename T>
tk_status launch_kernel(const Op &op, const Plan &p, const T *x, const Finish &f, cudaStream_t s)
{
    const size_t smem = V <= 4 ? static_cast<size_t>(p.block) * sizeof(float) : 0;
    reduce_kernel<V, B, P, L, U, Op, T><<<p.grid, p.block, smem, s>>>(op, x, p.span, f);
    return cudaGetLastError() == cudaSuccess ? TK_OK : TK_ERR_LAUNCH;
}

/* Versions 5 and 6: the block size is a template argument. */
template <int V, typename Op, typename T>
tk_status launch_fixed_block(const Op &op, const Plan &p, const T *x, const Finish &f,
                             cudaStream_t s)
{
    switch (p.block) {
    case 64: return launch_kernel<V, 64, 1, kLoadPlain, 1>(op, p, x, f, s);
    case 128: return launch_kernel<V, 128, 1, kLoadPlain, 1>(op, p, x, f, s);
    case 256: return launch_kernel<V, 256, 1, kLoadPlain, 1>(op, p, x, f, s);
    case 512: return launch_kernel<V, 512, 1, kLoadPlain, 1>(op, p, x, f, s);
    case 1024: return launch_kernel<V, 1024, 1, kLoadPlain, 1>(op, p, x, f, s);
    }
    return TK_ERR_UNSUPPORTED_CONFIG;
}

/* Versions 8 and 9: the pack size is a template argument (at most 16 bytes of T). */
template <int V, int L, int U, typename Op, typename T>
tk_status launch_packed(const Op &op, const Plan &p, const T *x, const Finish &f, cudaStream_t s)
{
    switch (p.pack) {
    case 1: return launch_kernel<V, 0, 1, L, U>(op, p, x, f, s);
    case 2: return launch_kernel<V, 0, 2, L, U>(op, p, x, f, s);
    case 4:
        if constexpr (tk::kPackFits<T, 4>) return launch_kernel<V, 0, 4, L, U>(op, p, x, f, s);
        break;
    case 8:
        if constexpr (tk::kPackFits<T, 8>) return launch_kernel<V, 0, 8, L, U>(op, p, x, f, s);
        break;
    }
    return TK_ERR_UNSUPPORTED_CONFIG;
}

/* Versions 0..6 load plainly (L is not a template argument of theirs); 9 takes its unroll. */
template <int L, typename Op, typename T>
tk_status launch_version(const Op &op, const Plan &p, const T *x, const Finish &f,
                         cudaStream_t s)
{
    switch (p.version) {
    case 0: return launch_kernel<0, 0, 1, kLoadPlain, 1>(op, p, x, f, s);
    case 1: return launch_kernel<1, 0, 1, kLoadPlain, 1>(op, p, x, f, s);
    case 2: return launch_kernel<2, 0, 1, kLoadPlain, 1>(op, p, x, f, s);
    case 3: return launch_kernel<3, 0, 1, kLoadPlain, 1>(op, p, x, f, s);
    case 4: return launch_kernel<4, 0, 1, kLoadPlain, 1>(op, p, x, f, s);
    case 5: return launch_fixed_block<5>(op, p, x, f, s);
    case 6: return launch_fixed_block<6>(op, p, x, f, s);
    case 7: return launch_kernel<7, 0, 1, L, 1>(op, p, x, f, s);
    case 8: return launch_packed<8, L, 1>(op, p, x, f, s);
    case 9:
        if (p.unroll == 2) return launch_packed<9, L, 2>(op, p, x, f, s);
        if (p.unroll == 4) return launch_packed<9, L, 4>(op, p, x, f, s);
        break;
    }
    return TK_ERR_UNSUPPORTED_CONFIG;
}

/* The main launch and, for two_pass over several blocks, the second one. */
template <typename Op, typename T>
tk_status launch_plan(const Op &op, const Plan &p, const T *x, float *out, cudaStream_t stream)
{
    Finish f = {p.finish, out, nullptr, nullptr, nullptr};
    if (!p.direct) {
        char *ws = nullptr;
        const size_t bytes = kHeaderBytes + static_cast<size_t>(p.partials) * sizeof(float);
        const tk_status st = workspace_for(stream, bytes, &ws);
        if (st != TK_OK) return st;
        f.counter = reinterpret_cast<unsigned *>(ws);
        f.acc = reinterpret_cast<float *>(ws + kAccOffset) + Op::kIndex;
        f.partials = reinterpret_cast<float *>(ws + kHeaderBytes);
    }
    tk_status st = TK_ERR_UNSUPPORTED_CONFIG;
    switch (p.load) {
    case kLoadPlain: st = launch_version<kLoadPlain>(op, p, x, f, stream); break;
    case kLoadCs: st = launch_version<kLoadCs>(op, p, x, f, stream); break;
    case kLoadNoAlloc: st = launch_version<kLoadNoAlloc>(op, p, x, f, stream); break;
    case kLoadNoAllocEvict: st = launch_version<kLoadNoAllocEvict>(op, p, x, f, stream); break;
    }
    if (st != TK_OK || p.direct || p.finish != TK_FINISH_TWO_PASS) return st;
    finish_kernel<<<1, kFinishBlock, 0, stream>>>(op, f.partials, static_cast<int64_t>(p.grid),
                                                  out);
    return cudaGetLastError() == cudaSuccess ? TK_OK : TK_ERR_LAUNCH;
}

/* ---- config space and resolution -------------------------------------------------------------- */

/* Parameter order of the space (canonical: sorted by name). */
enum {
    P_BLOCK_SIZE, P_CACHE_HINT, P_FINISH, P_LOAD, P_PACK_SIZE, P_UNROLL, P_VERSION, P_WAVES,
    P_COUNT
};

const int64_t kBlockSizes[] = {64, 128, 256, 512, 1024};
const int64_t kPackSizes[] = {1, 2, 4, 8};
const int64_t kUnrolls[] = {1, 2, 4};
const int64_t kVersions[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
const char *const kCacheHints[] = {"normal", "evict_first"};
const char *const kFinishes[] = {"two_pass", "last_block", "atomic"};
const char *const kLoads[] = {"cop", "no_allocate"};
const tk_param_desc kParams[P_COUNT] = {
    {"block_size", 1, 5, kBlockSizes, nullptr, 0, 0, 0, 256},
    {"cache_hint", 1, 2, nullptr, kCacheHints, 0, 0, 0, TK_CACHE_EVICT_FIRST},
    {"finish", 0, 3, nullptr, kFinishes, 0, 0, 0, TK_FINISH_LAST_BLOCK},
    {"load", 1, 2, nullptr, kLoads, 0, 0, 0, TK_REDUCE_LOAD_COP},
    {"pack_size", 1, 4, kPackSizes, nullptr, 0, 0, 0, 4},
    {"unroll", 1, 3, kUnrolls, nullptr, 0, 0, 0, 4},
    {"version", 1, 10, kVersions, nullptr, 0, 0, 0, TK_REDUCE_MAX_VERSION},
    {"waves", 0, 0, nullptr, nullptr, 1, 1024, 1, 1},
};
const tk_config_space kSpace = {"reduce", P_COUNT, kParams};
static_assert(sizeof kVersions / sizeof kVersions[0] == TK_REDUCE_MAX_VERSION + 1,
              "one listed value per version");

/* The op names of the tuner and the generated header; these literals are tk_tuned_values' cache
 * keys, so every lookup passes one of them. */
const char kSum[] = "reduce.sum";
const char kMax[] = "reduce.max";
const char kMin[] = "reduce.min";
const char *const kOpNames[] = {kSum, kMax, kMin};

tk_reduce_config config_from_values(const int64_t *v)
{
    tk_reduce_config c;
    c.block_size = static_cast<int>(v[P_BLOCK_SIZE]);
    c.cache_hint = static_cast<tk_cache_hint>(v[P_CACHE_HINT]);
    c.finish = static_cast<tk_reduce_finish>(v[P_FINISH]);
    c.load = static_cast<tk_reduce_load>(v[P_LOAD]);
    c.pack_size = static_cast<int>(v[P_PACK_SIZE]);
    c.unroll = static_cast<int>(v[P_UNROLL]);
    c.version = static_cast<int>(v[P_VERSION]);
    c.waves = static_cast<int>(v[P_WAVES]);
    return c;
}

/* The config a call uses: *given, else the tuned entry for (op_name, dtype, n) when the library
 * can run it, else the default. dtype must be valid. */
tk_reduce_config resolve_config(const char *op_name, tk_dtype dtype, int64_t n,
                                const tk_reduce_config *given)
{
    if (given) return *given;
    const int64_t *v = tk_tuned_values(&kSpace, op_name, tk_dtype_name(dtype), n);
    if (v) {
        const tk_reduce_config c = config_from_values(v);
        if (config_supported(c, tk_dtype_size(dtype))) return c;
    }
    return tk_reduce_default_config(dtype);
}

bool op_valid(tk_reduce_op op)
{
    return op == TK_REDUCE_SUM || op == TK_REDUCE_MAX || op == TK_REDUCE_MIN;
}

} // namespace

/* ---- public entry points ---------------------------------------------------------------------- */

extern "C" {

const tk_config_space *tk_reduce_config_space(void) { return &kSpace; }

tk_reduce_config tk_reduce_default_config(tk_dtype dtype)
{
    int64_t v[P_COUNT];
    for (int k = 0; k < P_COUNT; k++)
        v[k] = kParams[k].default_value;
    tk_reduce_config c = config_from_values(v);
    const size_t size = tk_dtype_size(dtype);
    if (size) c.pack_size = static_cast<int>(tk::kMaxPackBytes / size);
    return c;
}

tk_status tk_reduce_config_from_text(const char *text, tk_reduce_config *out)
{
    if (!text || !out) return TK_ERR_INVALID_ARGUMENT;
    int64_t v[P_COUNT];
    const tk_status st = tk_config_parse(&kSpace, text, v);
    if (st != TK_OK) return st;
    *out = config_from_values(v);
    return TK_OK;
}

int tk_reduce_config_to_text(const tk_reduce_config *c, char *buf, size_t len)
{
    if (!c || (!buf && len > 0)) return -1;
    const int64_t values[P_COUNT] = {c->block_size, c->cache_hint, c->finish, c->load,
                                     c->pack_size,  c->unroll,     c->version, c->waves};
    for (int k = 0; k < P_COUNT; k++)
        if (!tk_param_supports(&kParams[k], values[k])) return -1;
    return std::snprintf(buf, len, "block_size=%d,cache_hint=%s,finish=%s,load=%s,pack_size=%d,"
                                   "unroll=%d,version=%d,waves=%d",
                         c->block_size, kCacheHints[c->cache_hint], kFinishes[c->finish],
                         kLoads[c->load], c->pack_size, c->unroll, c->version, c->waves);
}

int tk_reduce_config_supported(const tk_reduce_config *config, tk_dtype dtype)
{
    return config && dtype_valid(dtype) && config_supported(*config, tk_dtype_size(dtype));
}

tk_status tk_reduce_tuned_config(const char *op, tk_dtype dtype, int64_t n,
                                 tk_reduce_config *out)
{
    if (!op || !out || !dtype_valid(dtype) || n < 0) return TK_ERR_INVALID_ARGUMENT;
    for (const char *name : kOpNames) {
        if (std::strcmp(op, name) == 0) {
            *out = resolve_config(name, dtype, n, nullptr);
            return TK_OK;
        }
    }
    return TK_ERR_INVALID_ARGUMENT;
}

tk_status tk_reduce_plan_for(tk_dtype dtype, int64_t n, const void *x,
                             const tk_reduce_config *config, tk_reduce_plan *out)
{
    if (!dtype_valid(dtype) || n < 0 || !config || !out ||
        !tk::is_aligned(x, tk_dtype_size(dtype)))
        return TK_ERR_INVALID_ARGUMENT;
    if (!config_supported(*config, tk_dtype_size(dtype))) return TK_ERR_UNSUPPORTED_CONFIG;
    Plan p;
    const tk_status st = make_plan(tk_dtype_size(dtype), n, x, *config, &p);
    if (st != TK_OK) return st;
    out->grid = p.grid;
    out->launches = !p.direct && p.finish == TK_FINISH_TWO_PASS ? 2 : 1;
    out->finish = p.finish;
    out->direct = p.direct;
    out->workspace_bytes =
        p.direct ? 0 : static_cast<int64_t>(kHeaderBytes) + p.partials * static_cast<int64_t>(sizeof(float));
    out->error_depth = p.depth;
    return TK_OK;
}

tk_status tk_reduce(tk_reduce_op op, tk_dtype dtype, int64_t n, const void *x, float *out,
                    const tk_reduce_config *config, cudaStream_t stream)
{
    if (!op_valid(op) || !dtype_valid(dtype) || n < 0 || !out || (n > 0 && !x) ||
        !tk::is_aligned(x, tk_dtype_size(dtype)) || !tk::is_aligned(out, sizeof(float)))
        return TK_ERR_INVALID_ARGUMENT;
    if (config && !config_supported(*config, tk_dtype_size(dtype)))
        return TK_ERR_UNSUPPORTED_CONFIG;
    const tk_reduce_config c = resolve_config(kOpNames[op], dtype, n, config);
    Plan p;
    const tk_status st = make_plan(tk_dtype_size(dtype), n, x, c, &p);
    if (st != TK_OK) return st;
    return tk::dispatch_dtype(dtype, [&](auto tag) {
        using T = decltype(tag);
        const T *xs = static_cast<const T *>(x);
        switch (op) {
        case TK_REDUCE_MAX: return launch_plan(MaxOp{}, p, xs, out, stream);
        case TK_REDUCE_MIN: return launch_plan(MinOp{}, p, xs, out, stream);
        default: return launch_plan(SumOp{}, p, xs, out, stream);
        }
    });
}

tk_status tk_reduce_sum(tk_dtype dtype, int64_t n, const void *x, float *out,
                        const tk_reduce_config *config, cudaStream_t stream)
{
    return tk_reduce(TK_REDUCE_SUM, dtype, n, x, out, config, stream);
}

tk_status tk_reduce_max(tk_dtype dtype, int64_t n, const void *x, float *out,
                        const tk_reduce_config *config, cudaStream_t stream)
{
    return tk_reduce(TK_REDUCE_MAX, dtype, n, x, out, config, stream);
}

tk_status tk_reduce_min(tk_dtype dtype, int64_t n, const void *x, float *out,
                        const tk_reduce_config *config, cudaStream_t stream)
{
    return tk_reduce(TK_REDUCE_MIN, dtype, n, x, out, config, stream);
}

tk_status tk_reduce_release_workspaces(void)
{
    std::lock_guard<std::mutex> lock(g_ws_mutex);
    int current = 0;
    const bool know_current = cudaGetDevice(&current) == cudaSuccess;
    tk_status st = TK_OK;
    for (std::vector<WorkspaceSlot> *list : {&g_ws_slots, &g_ws_retired}) {
        for (const WorkspaceSlot &s : *list)
            if (cudaSetDevice(s.device) != cudaSuccess || cudaFree(s.base) != cudaSuccess)
                st = TK_ERR_CUDA;
        list->clear();
    }
    if (know_current) cudaSetDevice(current);
    if (st != TK_OK) cudaGetLastError();
    return st;
}

} // extern "C"
